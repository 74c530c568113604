import DIShowcase
import Foundation
import HTTPTypes
import Testing

@testable import TodoShowcaseApp

/// A client on the network cannot grow the list without bound: once it has
/// `TodoList.maximumItems` items, adding one is refused through the API and every style's form.
@Suite("The list's size limit")
struct ListLimitTests {
  /// A store that already holds the most items the list may have.
  private static func fullStorage() throws -> InMemoryStorage {
    let storage = InMemoryStorage()
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let items = (0..<TodoList.maximumItems).map { number in
      TodoItem(id: UUID(), title: "Item \(number)", created: start.addingTimeInterval(Double(number)))
    }
    try storage.save(items, forKey: LiveTodoListViewModel.storageKey)
    return storage
  }

  private static func count(_ storage: InMemoryStorage) throws -> Int {
    try storage.load([TodoItem].self, forKey: LiveTodoListViewModel.storageKey)?.count ?? 0
  }

  @Test("POST /api/todos on a full list gets 409 with the reason and stores nothing")
  func apiRefusesWhenFull() async throws {
    let storage = try Self.fullStorage()
    let reply = try await withApp(storage: storage) { client in
      try await client.send(.post, "/api/todos", json: #"{"title": "One more"}"#)
    }
    #expect(reply.status == .conflict)
    #expect(reply.errorMessage?.contains("\(TodoList.maximumItems) items") == true)
    #expect(try Self.count(storage) == TodoList.maximumItems)
  }

  @Test("A form post on a full list shows the reason with 409 and stores nothing", arguments: Showcase.styles.map(\.id))
  func formRefusesWhenFull(style: String) async throws {
    let storage = try Self.fullStorage()
    let reply = try await withApp(storage: storage) { client in
      try await client.send(.post, "/styles/\(style)/todos", form: "title=One+more&return=%2Fstyles%2F\(style)")
    }
    #expect(reply.status == .conflict)
    #expect(reply.text.contains("delete some to add more"))
    #expect(reply.text.contains(#"value="One more""#))
    #expect(try Self.count(storage) == TodoList.maximumItems)
  }

  @Test("Below the limit an item is still added, and deleting one from a full list makes room")
  func roomAfterDelete() async throws {
    let storage = try Self.fullStorage()
    let first = try #require(try storage.load([TodoItem].self, forKey: LiveTodoListViewModel.storageKey)?.first)
    let reply = try await withApp(storage: storage) { client in
      let deleted = try await client.send(.delete, "/api/todos/\(first.id.uuidString)")
      #expect(deleted.status == .noContent)
      return try await client.send(.post, "/api/todos", json: #"{"title": "One more"}"#)
    }
    #expect(reply.status == .created)
    #expect(try Self.count(storage) == TodoList.maximumItems)
  }
}
