import DIShowcase
import Foundation
import HummingbirdTesting
import Testing

@Suite("Cursor pagination in the list pages")
struct PagePaginationTests {
  /// The titles a list page shows, in order.
  private static func titles(_ html: String) -> [String] {
    html.components(separatedBy: #"<span class="title" dir="auto">"#).dropFirst().map {
      String($0.prefix { $0 != "<" })
    }
  }

  /// The address of the page's "Next page" link, unescaped.
  private static func nextLink(_ html: String) -> String? {
    guard let range = html.range(of: #"<a class="next" rel="next" href=""#) else { return nil }
    return String(html[range.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
  }

  private static func addItems(_ count: Int, _ client: some TestClientProtocol) async throws -> [String] {
    var ids: [String] = []
    for number in 1...count { ids.append(try await client.addItem("item \(number)")) }
    return ids
  }

  @Test(
    "Each list page shows 50 items and links to the next page, which follows the same order",
    arguments: [("/?tab=knapsack", "&"), ("/styles/provider", "?")])
  func followNextLinks(path: String, separator: String) async throws {
    let storage = try SQLiteStorage(
      url: FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID()).sqlite"))
    defer { try? FileManager.default.removeItem(at: storage.url) }
    try await withApp(storage: storage) { client in
      _ = try await Self.addItems(120, client)
      var seen: [String] = []
      var next: String? = path
      var pages = 0
      while let uri = next {
        let reply = try await client.send(.get, uri)
        #expect(reply.status == .ok)
        #expect(reply.text.contains("<footer>120 items, 0 done</footer>"))
        #expect(reply.text.contains(#"class="first" href="\#(path)""#) == (pages > 0))
        let titles = Self.titles(reply.text)
        #expect(titles.count == (pages < 2 ? 50 : 20))
        seen += titles
        next = Self.nextLink(reply.text)
        if let next { #expect(next.hasPrefix(path + separator + "after=")) }
        pages += 1
      }
      #expect(pages == 3)
      #expect(seen == (1...120).map { "item \($0)" })
    }
  }

  @Test("Inserts and deletes between pages neither repeat nor skip the items of the next page")
  func concurrentChanges() async throws {
    try await withApp { client in
      let ids = try await Self.addItems(60, client)
      let first = try await client.send(.get, "/?tab=manual")
      let next = try #require(Self.nextLink(first.text))
      // The first page's last item (the cursor's own item) is deleted, another one too, and one is added.
      #expect(try await client.send(.delete, "/api/todos/\(ids[49])").status == .noContent)
      #expect(try await client.send(.delete, "/api/todos/\(ids[3])").status == .noContent)
      _ = try await client.addItem("added meanwhile")
      let second = try await client.send(.get, next)
      #expect(Self.titles(second.text) == (51...60).map { "item \($0)" } + ["added meanwhile"])
      #expect(Self.nextLink(second.text) == nil)
    }
  }

  @Test("A change made on a later page goes back to that page")
  func changeKeepsThePage() async throws {
    try await withApp { client in
      let ids = try await Self.addItems(55, client)
      let next = try #require(Self.nextLink(try await client.send(.get, "/?tab=manual").text))
      let reply = try await client.send(
        .post, "/styles/manual/todos/\(ids[52])/toggle", form: "return=\(formValue(next))")
      #expect(reply.status == .seeOther)
      #expect(reply.headers[.location] == next + "#toggle-\(ids[52])")
    }
  }

  @Test("A malformed cursor is a 400 page, and a forged return path falls back to the style's page")
  func badCursor() async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/?tab=manual&after=not-a-cursor")
      #expect(reply.status == .badRequest)
      #expect(reply.text.contains("after must be a cursor"))
      let id = try await client.addItem("one")
      let valid = "1~00000000-0000-0000-0000-000000000000"
      let returns = [
        ("/?tab=manual&after=1~x", "/styles/manual"),
        ("https://evil.example/?tab=manual&after=\(valid)", "/styles/manual"),
        ("/styles/manual&after=\(valid)", "/styles/manual"),
        ("/?tab=manual?after=\(valid)", "/styles/manual"),
        ("/styles/manual?after=\(valid)", "/styles/manual?after=\(valid)"),
        ("/?tab=swinject&after=\(valid)", "/?tab=swinject&after=\(valid)"),
      ]
      for (path, expected) in returns {
        let reply = try await client.send(.post, "/styles/manual/todos/\(id)/toggle", form: "return=\(formValue(path))")
        // Back at the item toggled.
        #expect(reply.headers[.location] == expected + "#toggle-\(id)", "return=\(path)")
      }
    }
  }
}
