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
  private static func headers(_ pairs: [(String, String)]) -> HTTPFields { headerFields(pairs) }

  /// POSTs `body` to the API with the header fields `pairs`: the reply, and the titles listed
  /// after it.
  private static func postToAPI(_ pairs: [(String, String)], body: String) async throws -> (Reply, [String]) {
    try await withApp { client in
      let reply = try await client.raw(.post, "/api/todos", headers: headers(pairs), body: body)
      return (reply, try await client.titles())
    }
  }

  @Test("A text/plain POST with a foreign Origin is refused and creates nothing")
  func foreignOriginAPI() async throws {
    let (reply, titles) = try await Self.postToAPI(
      [("Host", "127.0.0.1:8080"), ("Origin", "https://evil.example"), ("Content-Type", "text/plain")],
      body: #"{"title": "forged"}"#)
    #expect(reply.status == .forbidden)
    #expect(titles == [])
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
      // A person sees the app's page saying why, not a line of plain text.
      #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
      #expect(reply.text.contains("<h2>Forbidden</h2>"), "\(reply.text)")
      #expect(
        reply.text.contains(
          #"<p class="error" role="alert">Cross-site request refused: Sec-Fetch-Site is \#(site).</p>"#))
      #expect(reply.text.contains(#"<a href="/">Back to the lists</a>"#))
      #expect(try await client.titles() == [])
    }
  }

  @Test("A wrong method on a page is the app's 405 page with Allow; on the API it is JSON")
  func wrongMethodPage() async throws {
    try await withApp { client in
      let page = try await client.raw(.delete, "/styles/knapsack")
      #expect(page.status == .methodNotAllowed)
      #expect(page.headers[.allow] == "GET, HEAD")
      #expect(page.headers[.contentType] == "text/html; charset=utf-8")
      #expect(page.text.contains("<h2>Method not allowed</h2>"), "\(page.text)")
      #expect(page.text.contains("DELETE is not allowed here; use GET, HEAD."))
      let api = try await client.raw(.put, "/api/todos")
      #expect(api.status == .methodNotAllowed)
      #expect(api.headers[.contentType] == "application/json; charset=utf-8")
      #expect(api.errorMessage == "PUT is not allowed here; use GET, HEAD, POST.")
    }
  }

  @Test(
    "An API refusal is valid JSON even when it quotes a header with a control character or quotes",
    arguments: ["https://evil.example\tx", "https://evil.example\t\"\\x", "https://evil.example/\\u0000"])
  func refusalIsJSON(origin: String) async throws {
    let (reply, titles) = try await Self.postToAPI(
      [("Host", "127.0.0.1:8080"), ("Origin", origin), ("Content-Type", "application/json")],
      body: #"{"title": "forged"}"#)
    #expect(reply.status == .forbidden)
    #expect(reply.headers[.contentType] == "application/json; charset=utf-8")
    // The header's control characters are written out (`\u{9}`), so the message is one line.
    let shown = EscapedText.echoed(origin)
    #expect(reply.errorMessage?.hasPrefix("Cross-site request refused: Origin \(shown) ") == true, "\(reply.text)")
    #expect(titles == [])
  }

  @Test("A same-origin browser request is accepted")
  func sameOrigin() async throws {
    let (reply, titles) = try await Self.postToAPI(
      [
        ("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin"),
        ("Content-Type", "application/json"),
      ],
      body: #"{"title": "mine"}"#)
    #expect(reply.status == .created)
    #expect(titles == ["mine"])
  }

  @Test("A same-origin request over IPv6 is accepted: Origin http://[::1]:port matches Host [::1]:port")
  func sameOriginIPv6() async throws {
    let (reply, titles) = try await Self.postToAPI(
      [("Host", "[::1]:18489"), ("Origin", "http://[::1]:18489"), ("Content-Type", "application/json")],
      body: #"{"title": "over v6"}"#)
    #expect(reply.status == .created)
    #expect(titles == ["over v6"])
    typealias Middleware = SecurityMiddleware<BasicRequestContext>
    let origin = Self.headers([("Origin", "http://[::1]:18489")])
    #expect(Middleware.crossSiteReason(origin, authority: "[::1]:18489") == nil)
    #expect(Middleware.crossSiteReason(origin, authority: "[::1]:18490") != nil)
    #expect(Middleware.crossSiteReason(origin, authority: "::1:18489") != nil)
  }

  @Test("The start-up line brackets an IPv6 listen address")
  func listeningLine() {
    #expect(ShowcaseServer.listeningLine(host: "::1", port: 18489) == "Listening on http://[::1]:18489")
    #expect(ShowcaseServer.listeningLine(host: "127.0.0.1", port: 8080) == "Listening on http://127.0.0.1:8080")
  }

  @Test(
    "On a loopback address, a Host that is not a loopback name is refused (DNS rebinding)",
    arguments: ["127.0.0.1", "::1", "localhost"])
  func foreignHostOnLoopback(listenHost: String) async throws {
    try await withApp(listenHost: listenHost) { client in
      for host in [
        "rebind.evil.example:8080", "evil.example", "127.0.0.1.evil.example", "[::2]:8080",
        // A loopback name followed by anything but a port.
        "localhost:1@evil.example", "localhost:abc", "[::1]junk", "127.0.0.1:80808080", "localhost:",
      ] {
        let page = try await client.raw(.get, "/", headers: Self.headers([("Host", host)]))
        #expect(page.status == .forbidden, "Host: \(host)")
        #expect(page.text.contains("does not answer for the host \(host)"))
        let api = try await client.raw(.get, "/api/todos", headers: Self.headers([("Host", host)]))
        #expect(api.status == .forbidden)
        #expect(api.errorMessage?.contains("loopback only") == true)
        let post = try await client.raw(
          .post, "/api/todos",
          headers: Self.headers([("Host", host), ("Content-Type", "application/json")]),
          body: #"{"title": "rebound"}"#
        )
        #expect(post.status == .forbidden)
      }
      for host in ["127.0.0.1:8080", "127.1.2.3", "localhost:8080", "LOCALHOST", "[::1]:8080", "[::1]"] {
        let page = try await client.raw(.get, "/", headers: Self.headers([("Host", host)]))
        #expect(page.status == .ok, "Host: \(host)")
      }
      #expect(try await client.titles() == [])
    }
  }

  @Test(
    "On a LAN address, a Host that is an IP address, a loopback name or an --allowed-host name is answered",
    arguments: ["0.0.0.0", "192.168.1.20", "::"])
  func knownHostsOnLAN(listenHost: String) async throws {
    try await withApp(listenHost: listenHost, allowedHosts: ["todo.lan", "Box.Example."]) { client in
      for host in [
        "192.168.1.20:8080", "10.0.0.1", "[fe80::1]:8080", "[2001:db8::2]", "127.0.0.1:8080", "localhost",
        "[::1]:8080", "todo.lan:8080", "TODO.LAN", "todo.lan.", "box.example:18085",
      ] {
        let page = try await client.raw(.get, "/", headers: Self.headers([("Host", host)]))
        #expect(page.status == .ok, "Host: \(host)")
      }
      let post = try await client.raw(
        .post, "/api/todos",
        headers: Self.headers([
          ("Host", "todo.lan:18085"), ("Origin", "http://todo.lan:18085"), ("Sec-Fetch-Site", "same-origin"),
          ("Content-Type", "application/json"),
        ]),
        body: #"{"title": "mine"}"#
      )
      #expect(post.status == .created)
    }
  }

  @Test(
    "On a LAN address, any other Host is refused with 403 naming --allowed-host (DNS rebinding)",
    arguments: ["0.0.0.0", "192.168.1.20", "::"])
  func foreignHostOnLAN(listenHost: String) async throws {
    try await withApp(listenHost: listenHost, allowedHosts: ["todo.lan"]) { client in
      for host in [
        "rebind.evil.example:18085", "evil.example", "todo.lan.evil.example", "192.168.1.20.evil.example",
        "1.2.3", "0x7f.0.0.1", "[not-v6]", "::1",
      ] {
        let page = try await client.raw(.get, "/", headers: Self.headers([("Host", host)]))
        #expect(page.status == .forbidden, "Host: \(host)")
        #expect(page.text.contains("not the host \(host)"))
        #expect(page.text.contains("--allowed-host"))
      }
      // The reviewer's rebinding request: the attacker's name in both Host and Origin.
      let post = try await client.raw(
        .post, "/api/todos",
        headers: Self.headers([
          ("Host", "rebind.evil.example:18085"), ("Origin", "http://rebind.evil.example:18085"),
          ("Sec-Fetch-Site", "same-origin"), ("Content-Type", "application/json"),
        ]),
        body: #"{"title": "planted"}"#
      )
      #expect(post.status == .forbidden)
      #expect(post.errorMessage?.contains("--allowed-host rebind.evil.example") == true)
      #expect(try await client.titles() == [])
    }
  }

  @Test("On a loopback address, an --allowed-host name is answered and other names are not")
  func allowedHostOnLoopback() async throws {
    try await withApp(listenHost: "127.0.0.1", allowedHosts: ["todo.lan"]) { client in
      let allowed = try await client.raw(.get, "/", headers: Self.headers([("Host", "todo.lan:8080")]))
      #expect(allowed.status == .ok)
      for host in ["192.168.1.20:8080", "evil.example"] {
        let refused = try await client.raw(.get, "/", headers: Self.headers([("Host", host)]))
        #expect(refused.status == .forbidden, "Host: \(host)")
      }
    }
  }

  @Test("The start-up line says which Host values are answered")
  func hostAnnouncement() {
    #expect(
      HostPolicy(listenHost: "127.0.0.1").announcement
        == "Accepting Host: loopback names (add a name with --allowed-host NAME)")
    #expect(
      HostPolicy(listenHost: "0.0.0.0").announcement
        == "Accepting Host: IP addresses and loopback names (add a name with --allowed-host NAME)")
    #expect(
      HostPolicy(listenHost: "0.0.0.0", allowedNames: ["todo.lan", "Box."]).announcement
        == "Accepting Host: IP addresses, loopback names and todo.lan, box")
  }

  @Test("Listening beyond loopback warns that the list is open to whoever reaches the port")
  func exposureWarning() {
    for host in ["127.0.0.1", "::1", "localhost"] {
      #expect(HostPolicy(listenHost: host).exposureWarning == nil, "\(host)")
    }
    for host in ["0.0.0.0", "192.168.1.20", "::"] {
      let warning = HostPolicy(listenHost: host).exposureWarning
      #expect(warning?.contains("no sign-in and no TLS") == true, "\(host)")
      #expect(warning?.contains("anyone who can reach this port can read and change the list") == true, "\(host)")
    }
  }

  @Test("A doubled slash does not bypass the API's content-type check", arguments: ["//api/todos", "/api//todos"])
  func doubledSlash(path: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, path,
        headers: Self.headers([("Content-Type", "text/plain")]),
        body: #"{"title": "smuggled"}"#
      )
      #expect(reply.status == .unsupportedMediaType)
      #expect(reply.errorMessage?.contains("application/json") == true)
      #expect(try await client.titles() == [])
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

  @Test(
    "A form route refuses a body that is not URL-encoded with 415 on the app's page, not as an empty title",
    arguments: ["application/json", "multipart/form-data; boundary=x", "text/plain"])
  func formContentType(type: String) async throws {
    try await withApp { client in
      let reply = try await client.raw(
        .post, "/styles/knapsack/todos", headers: Self.headers([("Content-Type", type)]), body: #"{"title": "x"}"#)
      #expect(reply.status == .unsupportedMediaType)
      #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
      #expect(reply.text.contains("The forms accept only Content-Type: application/x-www-form-urlencoded."))
      #expect(!reply.text.contains("must not be empty"))
      #expect(try await client.titles() == [])
      // A form of any case, with a charset, is read; so is a post with no body and no type.
      let added = try await client.raw(
        .post, "/styles/knapsack/todos",
        headers: Self.headers([("Content-Type", "Application/X-WWW-Form-URLEncoded; charset=UTF-8")]),
        body: "title=Read")
      #expect(added.status == .seeOther)
      let listed = { try await client.send(.get, "/api/todos").json as? [[String: Any]] ?? [] }
      let id = try #require(try await listed().first?["id"] as? String)
      let toggled = try await client.raw(.post, "/styles/knapsack/todos/\(id)/toggle")
      #expect(toggled.status == .seeOther)
      #expect(try await listed().map { $0["done"] as? Bool } == [true])
      // A path no route serves is not found, whatever its body.
      let unknown = try await client.raw(.post, "/nope", headers: Self.headers([("Content-Type", type)]), body: "{}")
      #expect(unknown.status == .notFound)
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
    "Security headers are on pages, the API, static files and errors; only static files may be cached",
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
      // Pages, the API and errors are never cached; a static file is revalidated.
      #expect(reply.headers[.cacheControl] == (path.hasPrefix("/static/") ? "no-cache" : "no-store"))
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

  @Test("The icon is served at /favicon.ico and at the /static/ path every page links to")
  func favicon() async throws {
    try await withApp { client in
      #expect(try await client.raw(.get, "/").text.contains(#"<link rel="icon" href="/static/icon.svg""#))
      for path in ["/favicon.ico", "/static/icon.svg"] {
        let icon = try await client.raw(.get, path)
        #expect(icon.status == .ok, "\(path)")
        #expect(icon.headers[.contentType] == "image/svg+xml")
        #expect(icon.text.hasPrefix("<svg "))
      }
    }
  }

  @Test("Titles are clipped to their box, so stacked marks cannot draw over the page")
  func titleClipped() {
    #expect(
      Layout.stylesheet.contains("li.item .title { flex: 1; min-width: 0; overflow-wrap: anywhere; overflow: hidden; }")
    )
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
