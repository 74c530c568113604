import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import TodoShowcaseApp

/// What a response shows back of a client's text, what an Origin must look like, and what a
/// refused Host is told, found by a review of the server as an attacker would use it.
@Suite("Echoes, origins and Host refusals")
struct EchoAndTargetTests {
  @Test("A client's text shown back is cut, with its invisible characters written out")
  func echoesAreCutAndEscaped() async throws {
    try await withApp { client in
      // A link that would put a message of its own in the app's page, reversed by U+202E.
      // An unknown style's page does not show the id, and names the styles there are.
      let spoof = try await client.raw(.get, "/?tab=manual%E2%80%9D.%20Your%20list%20was%20reset%E2%80%AE")
      #expect(spoof.status == .notFound)
      #expect(!spoof.text.contains("Your list was reset"))
      #expect(spoof.text.contains("There is no such style; the styles are Manual DI (manual), "), "\(spoof.text)")
      let long = String(repeating: "A", count: 5000)
      let tab = try await client.raw(.get, "/?tab=\(long)")
      #expect(tab.status == .notFound)
      #expect(!tab.text.contains("AAAA"))
      // An id in a path is shown cut, with its invisible characters written out.
      let reversed = try await client.raw(.get, "/nowhere%E2%80%AEexe")
      #expect(reversed.status == .notFound)
      #expect(!reversed.text.contains("\u{202E}"))
      let api = try await client.raw(.get, "/api/todos/\(long)")
      #expect(api.status == .notFound)
      let message = try #require(api.errorMessage)
      #expect(message.count < 300, "\(message)")
      #expect(message.contains("…(5000 bytes)"))
      let nowhere = try await client.raw(.get, "/nowhere/\(long)")
      #expect(nowhere.status == .notFound)
      #expect(!nowhere.text.contains(String(repeating: "A", count: 201)))
    }
  }

  @Test("An Origin is this site's only as a web page's origin: http or https, no user, path or query")
  func originShape() {
    typealias Middleware = SecurityMiddleware<BasicRequestContext>
    func reason(_ origin: String) -> String? {
      Middleware.crossSiteReason(headerFields([("Origin", origin)]), authority: "127.0.0.1:18080")
    }
    #expect(reason("http://127.0.0.1:18080") == nil)
    // A page served on this name and port over TLS (a proxy in front of the server).
    #expect(reason("https://127.0.0.1:18080") == nil)
    for origin in [
      "ws://127.0.0.1:18080", "file://127.0.0.1:18080", "http://evil@127.0.0.1:18080",
      "http://user:pass@127.0.0.1:18080", "http://127.0.0.1:18080/path", "http://127.0.0.1:18080?x",
      "http://127.0.0.1:18080#x", "null", "127.0.0.1:18080",
    ] {
      #expect(reason(origin) != nil, "\(origin)")
    }
    let long = "http://" + String(repeating: "e", count: 5000) + ".example"
    #expect((reason(long)?.count ?? 0) < 300)
  }

  @Test("A Host refusal advises --allowed-host only for a name it would take")
  func hostRefusalAdvice() {
    let policy = HostPolicy(listenHost: "127.0.0.1")
    let junk = policy.refusalReason(["localhost:18080<script>"])
    #expect(junk?.contains("which is not a host name or address with an optional port") == true, "\(junk ?? "")")
    #expect(junk?.contains("start it with") == false)
    #expect(policy.refusalReason(["todo.lan:8080"])?.contains("start it with --allowed-host todo.lan") == true)
    #expect(policy.refusalReason(["10.0.0.5:8080"])?.contains("listen beyond loopback") == true)
    #expect(policy.refusalReason(["bad_name!"])?.contains("which is not a valid host name") == true)
    #expect(policy.refusalReason(["localhost:8080"]) == nil)
  }
}
