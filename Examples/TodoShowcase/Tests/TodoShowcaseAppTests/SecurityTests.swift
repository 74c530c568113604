import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoShowcaseApp

extension TestClientProtocol {
  /// Sends a request with exactly the headers given.
  func raw(
    _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil
  ) async throws
    -> Reply
  {
    try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) {
      Reply(status: $0.status, headers: $0.headers, text: String(buffer: $0.body))
    }
  }
}

@Suite("Safe by default")
struct SecurityTests {
  private static func headers(_ pairs: [(String, String)]) -> HTTPFields {
    var fields = HTTPFields()
    for (name, value) in pairs {
      if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    return fields
  }

  @Test("A text/plain POST with a foreign Origin is refused and creates nothing")
  func foreignOriginAPI() async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, "/api/todos",
        headers: Self.headers([
          ("Host", "127.0.0.1:8080"), ("Origin", "https://evil.example"), ("Content-Type", "text/plain"),
        ]),
        body: #"{"title": "forged"}"#
      )
      #expect(reply.status == .forbidden)
      #expect(try await client.titles() == [])
    }
  }

  @Test("A cross-site form post to a tab is refused and creates nothing", arguments: ["cross-site", "same-site"])
  func crossSiteForm(site: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, "/styles/knapsack/todos",
        headers: Self.headers([
          ("Sec-Fetch-Site", site), ("Content-Type", "application/x-www-form-urlencoded"),
        ]),
        body: "title=forged&return=/"
      )
      #expect(reply.status == .forbidden)
      #expect(try await client.titles() == [])
    }
  }

  @Test("A same-origin browser request is accepted")
  func sameOrigin() async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, "/api/todos",
        headers: Self.headers([
          ("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin"),
          ("Content-Type", "application/json"),
        ]),
        body: #"{"title": "mine"}"#
      )
      #expect(reply.status == .created)
      #expect(try await client.titles() == ["mine"])
    }
  }

  @Test("The JSON API refuses a body that is not application/json with 415", arguments: ["text/plain", ""])
  func jsonContentType(type: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, "/api/todos",
        headers: type.isEmpty ? [:] : Self.headers([("Content-Type", type)]),
        body: #"{"title": "plain"}"#
      )
      #expect(reply.status == .unsupportedMediaType)
      #expect(reply.errorMessage?.contains("application/json") == true)
      #expect(try await client.titles() == [])
    }
  }

  @Test("A body over the limit gets 413 and creates nothing")
  func bodyLimit() async throws {
    try await withApp { client in
      let title = String(repeating: "x", count: SecurityMiddleware<BasicRequestContext>.bodyLimit + 1)
      let reply = try await client.raw(
        .post, "/api/todos",
        headers: Self.headers([("Content-Type", "application/json")]),
        body: #"{"title": "\#(title)"}"#
      )
      #expect(reply.status == .contentTooLarge)
      #expect(try await client.titles() == [])
    }
  }

  @Test(
    "Security headers are on pages, the API, static files and errors",
    arguments: ["/", "/api/todos", "/graph", "/static/app.css", "/nope"])
  func securityHeaders(path: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(.get, path)
      let csp = try #require(reply.headers[.contentSecurityPolicy])
      #expect(csp.contains("frame-ancestors 'none'"))
      #expect(csp.contains("script-src 'self'"))
      #expect(!csp.contains("unsafe-inline"))
      #expect(reply.headers[.xContentTypeOptions] == "nosniff")
      #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
    }
  }

  @Test("Pages have no inline script or style; the stylesheet is a served file")
  func noInlineScriptOrStyle() async throws {
    try await withApp { client in
      for path in ["/", "/styles/manual", "/graph"] {
        let page = try await client.raw(.get, path).text
        #expect(!page.contains("<style"))
        #expect(!page.contains("<script>"))
        #expect(page.contains(#"<link rel="stylesheet" href="/static/app.css">"#))
      }
      let css = try await client.raw(.get, "/static/app.css")
      #expect(css.status == .ok)
      #expect(css.headers[.contentType]?.hasPrefix("text/css") == true)
      #expect(css.text == Layout.stylesheet + StyleLesson.stylesheet + ListStyles.stylesheet)
    }
  }

  @Test("HEAD works wherever GET does, with no body", arguments: ["/", "/styles/knapsack", "/api/todos", "/graph"])
  func head(path: String) async throws {
    try await withApp { client in
      let get = try await client.raw(.get, path)
      let head = try await client.raw(.head, path)
      #expect(head.status == .ok)
      #expect(head.text.isEmpty)
      #expect(head.headers[.contentType] == get.headers[.contentType])
    }
  }

  @Test(
    "A wrong method gets 405 with Allow",
    arguments: [
      (HTTPRequest.Method.delete, "/", "GET, HEAD"),
      (.put, "/api/todos", "GET, HEAD, POST"),
      (.post, "/api/todos/6F9619FF-8B86-D011-B42D-00CF4FC964FF", "GET, HEAD, PATCH, DELETE"),
      (.get, "/styles/knapsack/todos", "POST"),
      (.post, "/graph", "GET, HEAD"),
    ]
  )
  func wrongMethod(method: HTTPRequest.Method, path: String, allow: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(method, path)
      #expect(reply.status == .methodNotAllowed)
      #expect(reply.headers[.allow] == allow)
    }
  }
}
