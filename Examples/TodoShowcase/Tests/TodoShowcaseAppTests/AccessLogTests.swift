import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
import TodoShowcaseApp

/// Log lines kept in memory for one test.
final class LogLines: Sendable {
  struct Line: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]
  }

  let lines = Mutex<[Line]>([])

  var handler: Handler { Handler(sink: self) }

  struct Handler: LogHandler {
    let sink: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let all = metadata.merging(event.metadata ?? [:]) { $1 }
      let line = Line(
        level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })
      sink.lines.withLock { $0.append(line) }
    }
  }
}

@Suite("Access and error logs")
struct AccessLogTests {
  @Test("Each request logs one structured line with the request id it answers with")
  func accessLine() async throws {
    let sink = LogLines()
    let logger = Logger(label: "test") { _ in sink.handler }
    let server = ShowcaseServer(storage: InMemoryStorage(), storageLabel: "test")
    let requestID = try await Application(router: server.makeRouter(), logger: logger).test(.router) { client in
      try await client.execute(uri: "/api/todos", method: .get) { response in
        #expect(response.status == .ok)
        return response.headers[HTTPField.Name("X-Request-Id")!]
      }
    }
    let id = try #require(requestID)
    let line = try #require(sink.lines.withLock { $0 }.first { $0.message == "request" })
    #expect(line.level == .info)
    #expect(line.metadata["hb.request.id"] == id)
    #expect(line.metadata["http.method"] == "GET")
    #expect(line.metadata["http.path"] == "/api/todos")
    #expect(line.metadata["http.status"] == "200")
    #expect(line.metadata["duration_ms"] != nil)
  }

  @Test("A path's control and invisible characters are logged escaped, and a long path is cut")
  func pathLoggedSafely() async throws {
    let sink = LogLines()
    let logger = Logger(label: "test") { _ in sink.handler }
    let server = ShowcaseServer(storage: InMemoryStorage(), storageLabel: "test")
    // Over HTTP/1 the decoder refuses such a URL (see EarlyRefusalTests); the router alone takes it.
    let tricky = "/styles/\u{9B}31m\u{202E}gnp.exe\u{2028}\tx"
    let long = "/styles/" + String(repeating: "a", count: 70_000)
    try await Application(router: server.makeRouter(), logger: logger).test(.router) { client in
      for path in [tricky, long] {
        try await client.execute(uri: path, method: .get) { response in #expect(response.status == .notFound) }
      }
    }
    let paths = sink.lines.withLock { $0 }.filter { $0.message == "request" }.compactMap { $0.metadata["http.path"] }
    #expect(paths.count == 2)
    #expect(paths.first == #"/styles/\u{9B}31m\u{202E}gnp.exe\u{2028}\u{9}x"#)
    let cut = try #require(paths.last)
    #expect(cut == "/styles/" + String(repeating: "a", count: 248) + "…(70008 bytes)")
  }
}
