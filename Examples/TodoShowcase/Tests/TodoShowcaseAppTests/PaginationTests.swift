import DIShowcase
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Cursor pagination in the API")
struct PaginationTests {
  /// The ids of one page and the next page's address from its Link header.
  private static func page(_ client: some TestClientProtocol, _ uri: String) async throws -> ([String], String?) {
    let reply = try await client.send(.get, uri)
    #expect(reply.status == .ok)
    let ids = (reply.json as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    let next = reply.headers[HTTPField.Name("Link")!].flatMap { link -> String? in
      guard let start = link.firstIndex(of: "<"), let end = link.firstIndex(of: ">") else { return nil }
      return String(link[link.index(after: start)..<end])
    }
    return (ids, next)
  }

  @Test("Following Link headers visits every item once, in the unpaged order")
  func followLinks() async throws {
    try await withApp { client in
      for number in 1...7 { _ = try await client.addItem("item \(number)") }
      let all = try await Self.page(client, "/api/todos?limit=200").0
      var seen: [String] = []
      var next: String? = "/api/todos?limit=3"
      var pages = 0
      while let uri = next {
        let (ids, following) = try await Self.page(client, uri)
        #expect(ids.count <= 3)
        seen += ids
        next = following
        pages += 1
      }
      #expect(pages == 3)
      #expect(seen == all)
      #expect(Set(seen).count == 7)
    }
  }

  @Test("Inserts and deletes between pages neither repeat nor skip the remaining items")
  func concurrentChanges() async throws {
    try await withApp { client in
      for number in 1...6 { _ = try await client.addItem("item \(number)") }
      let all = try await Self.page(client, "/api/todos?limit=200").0
      let (first, next) = try await Self.page(client, "/api/todos?limit=2")
      let nextURI = try #require(next)
      // The page's last item (the cursor's own item) is deleted, and a new item is added.
      #expect(try await client.send(.delete, "/api/todos/\(first[1])").status == .noContent)
      let added = try await client.addItem("added meanwhile")

      var rest: [String] = []
      var uri: String? = nextURI
      while let current = uri {
        let (ids, following) = try await Self.page(client, current)
        rest += ids
        uri = following
      }
      #expect(Array(rest.filter { $0 != added }) == Array(all.dropFirst(2)))
      #expect(rest.filter { $0 == added }.count <= 1)
      #expect(Set(rest).isDisjoint(with: first))
    }
  }

  @Test("A bad limit or cursor is a 400 JSON error", arguments: ["limit=0", "limit=201", "limit=x", "after=nope"])
  func badQuery(query: String) async throws {
    try await withApp { client in
      let reply = try await client.send(.get, "/api/todos?\(query)")
      #expect(reply.status == .badRequest)
      #expect(reply.errorMessage != nil)
    }
  }
}
