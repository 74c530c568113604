import DIShowcase
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoShowcaseApp

/// Requests the server refuses before any route sees them (Hummingbird's HTTP parser answers 400
/// and closes; 431 for a head over the decoder's limits), or refuses for their body, over a plain
/// socket: each answer carries the same security headers as a routed one.
@Suite("Early refusals")
struct EarlyRefusalTests {
  /// The response to `request` (sent whole over a new connection) up to the server closing it.
  private static func response(to request: String) async throws -> String {
    let server = ShowcaseServer(storage: InMemoryStorage(), storageLabel: "test")
    let app = server.makeApplication(host: "127.0.0.1", port: 0, idleTimeout: .seconds(5))
    return try await app.test(.live) { client in
      let connection = try RawConnection(port: try #require(client.port))
      try connection.send(request)
      var received = ""
      #expect(try await connection.waitForClose(within: .seconds(60), received: &received))
      return received
    }
  }

  /// The status line and the header fields (names lowercased) of a raw response.
  private static func head(of response: String) -> (status: String, fields: [String: String]) {
    let lines = response.components(separatedBy: "\r\n\r\n").first?.components(separatedBy: "\r\n") ?? []
    var fields: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return (lines.first ?? "", fields)
  }

  private static let headerLimit = 80 * 1024  // Hummingbird's default maxHeaderListSize
  private static let oversizedBody = String(
    repeating: "x", count: SecurityMiddleware<BasicRequestContext>.bodyLimit + 1)

  static let cases: [(name: String, request: String, status: String)] = [
    ("a malformed request line", "GET /\u{0}nope HTTP/1.1\r\nHost: localhost\r\n\r\n", "400"),
    ("a request line that is not HTTP", "HELLO\r\n\r\n", "400"),
    // The decoder lets only printable ASCII into a URL, so no control character reaches a route or the log.
    ("a URL with an escape character", "GET /\u{1B}[2J HTTP/1.1\r\nHost: localhost\r\n\r\n", "400"),
    ("a URL with a C1 control character", "GET /\u{9B}2J HTTP/1.1\r\nHost: localhost\r\n\r\n", "400"),
    (
      "a header section over the decoder's limit",
      "GET / HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: headerLimit))\r\n\r\n", "431"
    ),
    (
      "header fields over the decoder's limit in all, none over it alone",
      "GET / HTTP/1.1\r\nHost: localhost\r\n"
        + String(repeating: "X-Padding: \(String(repeating: "a", count: 1000))\r\n", count: headerLimit / 1000 + 1)
        + "\r\n",
      "431"
    ),
    (
      "more header fields than the decoder takes",
      "GET / HTTP/1.1\r\nHost: localhost\r\n" + String(repeating: "X-A: 1\r\n", count: 1001) + "\r\n", "431"
    ),
    // The decoder counts the request line with the header fields (see HeaderOverflowHandler).
    (
      "a URL over the decoder's limit",
      "GET /?q=\(String(repeating: "a", count: headerLimit)) HTTP/1.1\r\nHost: localhost\r\n\r\n", "431"
    ),
    (
      "a body over the limit, by its Content-Length",
      "POST /api/todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + "Content-Length: \(oversizedBody.utf8.count)\r\n\r\n\(oversizedBody)",
      "413"
    ),
    (
      "a body over the limit, chunked",
      "POST /styles/manual/todos HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        + "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "\(String(oversizedBody.utf8.count, radix: 16))\r\n\(oversizedBody)\r\n0\r\n\r\n",
      "413"
    ),
  ]

  @Test(
    "A body that is not valid HTTP (a chunk size that is not hex) gets 400, not 413, as the API documents",
    arguments: ["POST /api/todos", "PATCH /api/todos/{id}", "DELETE /api/todos/{id}"])
  func malformedChunkIsBadRequest(operation: String) async throws {
    let parts = operation.split(separator: " ").map(String.init)
    let path = parts[1].replacingOccurrences(of: "{id}", with: UUID().uuidString)
    let response = try await Self.response(
      to: "\(parts[0]) \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
    #expect(Self.head(of: response).status.hasPrefix("HTTP/1.1 400 "), "\(response)")
    #expect(response.contains(#"{"error":"The body could not be read: it is not valid HTTP/1.1."}"#), "\(response)")
    let document = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.text.utf8)) as? [String: Any]
    let paths = try #require(document?["paths"] as? [String: [String: Any]])
    let entry = try #require(paths[parts[1]]?[parts[0].lowercased()] as? [String: Any])
    #expect((entry["responses"] as? [String: Any])?["400"] != nil)
  }

  @Test("A refused request gets the security headers", arguments: cases.indices)
  func refusalCarriesSecurityHeaders(index: Int) async throws {
    let (name, request, status) = Self.cases[index]
    let response = try await Self.response(to: request)
    let (statusLine, fields) = Self.head(of: response)
    #expect(statusLine.hasPrefix("HTTP/1.1 \(status) "), "\(name): \(statusLine)")
    #expect(fields["content-security-policy"] == SecurityHeaders.contentSecurityPolicy, "\(name)")
    #expect(fields["x-content-type-options"] == "nosniff", "\(name)")
    #expect(fields["x-frame-options"] == "DENY", "\(name)")
    #expect(fields["referrer-policy"] == "same-origin", "\(name)")
    #expect(fields["cache-control"] == "no-store", "\(name)")
  }

  @Test("A head over the limits after a routed 400 on the same connection gets 431; the routed 400 stays")
  func overflowAfterAnsweredRequest() async throws {
    // Sent together, the decoder refuses the second head before the first is answered; only the
    // parser's own bodiless 400 becomes 431, not the route's.
    let response = try await Self.response(
      to: "GET /api/todos?limit=0 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        + "GET / HTTP/1.1\r\nHost: localhost\r\nX-Padding: \(String(repeating: "a", count: Self.headerLimit))\r\n\r\n")
    #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(response)")
    #expect(response.components(separatedBy: "HTTP/1.1 ").count == 3, "\(response)")
    #expect(response.contains("\"}HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(response)")
  }

  @Test("An answered request over a socket has each security header once")
  func routedResponseHasEachHeaderOnce() async throws {
    let response = try await Self.response(to: "GET /nope HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    let head = response.components(separatedBy: "\r\n\r\n").first ?? ""
    #expect(head.hasPrefix("HTTP/1.1 404 "))
    for name in [
      "content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy", "cache-control",
    ] {
      let count = head.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix(name + ":") }.count
      #expect(count == 1, "\(name)")
    }
  }
}
