import DIShowcase
import Foundation
import Hummingbird
import HummingbirdTesting
import ShowcaseTestSupport
import Testing

@testable import TodoShowcaseApp

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The whole list, streamed")
struct StreamedListTests {
  private static func items(_ count: Int) -> [TodoItem] {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    return (0..<count).map { number in
      // 190 characters of 4 code points (7 bytes) each: the longest kind of title.
      TodoItem(
        id: UUID(), title: String(repeating: "e\u{301}\u{302}\u{303}", count: 190) + " \(number)",
        created: start.addingTimeInterval(Double(number)))
    }
  }

  @Test("A client that does not read GET /api/todos makes the server read only the first pages of the list")
  func unreadListIsNotLoadedWhole() async throws {
    let items = Self.items(5000)  // about 7 MB of JSON, more than the sockets buffer
    let storage = CountingItemStorage(items: items)
    let server = ShowcaseServer(storage: storage, storageLabel: "test")
    let app = server.makeApplication(host: "127.0.0.1", port: 0)
    try await app.test(.live) { client in
      let port = try #require(client.port)
      var size: Int32 = 4096
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      defer { close(descriptor) }
      _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      try #require(connected == 0)
      let request = Array("GET /api/todos HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
      _ = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      // The client reads nothing: the server goes as far as the sockets let it, then waits. It
      // first has to begin (on a busy machine, half a second may pass before it reads a page;
      // the bound only stops a hung test).
      let deadline = ContinuousClock.now + .seconds(60)
      while storage.served == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
      var previous = -1
      while storage.served != previous {
        previous = storage.served
        try await Task.sleep(for: .milliseconds(500))
      }
      #expect(storage.served > 0)
      #expect(storage.served < items.count)

      // Then it reads the whole response: every item, in order, as one JSON array.
      var received = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        received += buffer[..<count]
      }
      #expect(received.starts(with: Array("HTTP/1.1 200 OK".utf8)))
      // The body after the head, in the chunked transfer coding: join the chunks' data.
      let crlf: [UInt8] = [13, 10]
      var position = try #require(Self.find([13, 10, 13, 10], in: received, from: 0)) + 4
      var json = [UInt8]()
      while let end = Self.find(crlf, in: received, from: position),
        let length = Int(String(decoding: received[position..<end], as: UTF8.self), radix: 16), length > 0
      {
        json += received[(end + 2)..<(end + 2 + length)]
        position = end + 2 + length + 2
      }
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      let listed = try decoder.decode([TodoItem].self, from: Data(json))
      #expect(listed.map(\.id) == items.map(\.id))
    }
  }

  /// Where `pattern` first occurs in `bytes` at or after `start`.
  private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
    return (start...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
  }

  @Test("GET /api/todos gives the same array as before, empty or not", arguments: [0, 1, 199, 200, 201, 450])
  func sameArray(count: Int) async throws {
    let items = Self.items(count)
    let storage = CountingItemStorage(items: items)
    let reply = try await withApp(storage: storage) { client in try await client.send(.get, "/api/todos") }
    #expect(reply.status == .ok)
    #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
    let expected = String(decoding: try apiJSONEncoder().encode(items), as: UTF8.self)
    #expect(reply.text == expected)
  }
}
