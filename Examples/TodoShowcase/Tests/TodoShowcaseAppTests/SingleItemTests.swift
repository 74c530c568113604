import DIShowcase
import Foundation
import HummingbirdTesting
import ShowcaseTestSupport
import Testing

@testable import TodoShowcaseApp

/// One item is read alone: the routes that name one item never read the whole list.
@Suite("One item, one row")
struct SingleItemTests {
  /// `count` items, one second apart, far more than a page (50 on the pages, 200 streamed).
  private static func items(_ count: Int) -> [TodoItem] {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    return (0..<count).map { TodoItem(id: UUID(), title: "Item \($0)", created: start.addingTimeInterval(Double($0))) }
  }

  @Test("GET /api/todos/{id} reads that one item, not the list; an unknown id reads none")
  func apiReadsOneItem() async throws {
    let items = Self.items(1000)
    let storage = CountingItemStorage(items: items)
    let wanted = items[777]
    try await withApp(storage: storage) { client in
      let reply = try await client.send(.get, "/api/todos/\(wanted.id.uuidString)")
      #expect(reply.status == .ok)
      #expect(reply.text == String(decoding: try apiJSONEncoder().encode(wanted), as: UTF8.self))
      #expect(storage.served == 1)

      let unknown = try await client.send(.get, "/api/todos/\(UUID().uuidString)")
      #expect(unknown.status == .notFound)
      #expect(storage.served == 1)
    }
  }

  @Test("Every style's view model reads one item alone", arguments: Showcase.styles.map(\.id))
  func eachStyleReadsOneItem(styleID: String) throws {
    let items = Self.items(500)
    let storage = CountingItemStorage(items: items)
    let screen = try #require(try Showcase(storage: storage).makeScreen(styleID: styleID))
    #expect(try screen.viewModel.item(id: items[321].id) == items[321])
    #expect(storage.served == 1)
    let unknown = UUID()
    #expect(throws: TodoError.notFound(unknown)) { try screen.viewModel.item(id: unknown) }
    #expect(storage.served == 1)
  }

  @Test("The forms that toggle or delete one item read no item of the list", arguments: ["toggle", "delete"])
  func formsReadNoList(action: String) async throws {
    let items = Self.items(500)
    let storage = CountingItemStorage(items: items)
    try await withApp(storage: storage) { client in
      let reply = try await client.send(
        .post, "/styles/manual/todos/\(items[5].id.uuidString)/\(action)", form: "return=%2Fstyles%2Fmanual")
      #expect(reply.status == .seeOther)
      // Back at the item (a deleted one's form names no next item here: the add field).
      let landing = action == "toggle" ? "toggle-\(items[5].id.uuidString)" : "title-manual"
      #expect(reply.headers[.location] == "/styles/manual#\(landing)")
      #expect(storage.served == 0)
    }
  }

  @Test("On a list in one value (memory, JSON files), one item is found in it")
  func wholeValueStores() throws {
    let storage = FakeStorage.withTwoItems()
    let viewModel = LiveTodoListViewModel(storage: storage)
    #expect(try viewModel.item(id: TodoFixtures.second.id) == TodoFixtures.second)
    let unknown = UUID()
    #expect(throws: TodoError.notFound(unknown)) { try viewModel.item(id: unknown) }
  }
}
