public import Common
public import Foundation
import Synchronization

/// A row-by-row store in memory (a ``TodoItemStorage``, as SQLite is) that counts the items its
/// reads have handed out, so a test can tell one item read from the whole list read.
public final class CountingItemStorage: TodoItemStorage {
  private let state: Mutex<(items: [TodoItem], served: Int)>

  public init(items: [TodoItem] = []) {
    state = Mutex((items, 0))
  }

  /// How many items reads have returned so far.
  public var served: Int { state.withLock { $0.served } }

  public func allTodos() throws -> [TodoItem] {
    state.withLock { state in
      state.served += state.items.count
      return state.items
    }
  }

  public func todoPage(after cursor: TodoCursor?, limit: Int) throws -> TodoPage {
    state.withLock { state in
      let page = state.items.page(after: cursor, limit: limit)
      state.served += page.items.count
      return page
    }
  }

  public func todo(id: UUID) throws -> TodoItem? {
    state.withLock { state in
      guard let item = state.items.first(where: { $0.id == id }) else { return nil }
      state.served += 1
      return item
    }
  }

  public func insertTodo(_ item: TodoItem, maximum: Int) throws {
    try state.withLock { state in
      guard state.items.count < maximum else { throw TodoError.listFull(maximum: maximum) }
      state.items.append(item)
    }
  }

  public func updateTodo(id: UUID, _ body: (inout TodoItem) throws -> Void) throws -> TodoItem {
    try state.withLock { state in
      guard let index = state.items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      try body(&state.items[index])
      return state.items[index]
    }
  }

  public func deleteTodo(id: UUID) throws {
    try state.withLock { state in
      guard let index = state.items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      state.items.remove(at: index)
    }
  }

  // The list is kept in rows only: no whole-list value under any key.
  public func save<T: Encodable>(_ value: T, forKey key: String) throws {}
  public func load<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? { nil }
  public func remove(forKey key: String) throws {}
  public func modify<T: Codable, Result>(
    _ type: T.Type, forKey key: String, default defaultValue: T, _ body: (inout T) throws -> Result
  ) throws -> Result {
    var value = defaultValue
    return try body(&value)
  }
}
