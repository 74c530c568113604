public import Foundation
import Synchronization

/// The view model every DI style uses: the to-do list kept in a ``LocalStorage``.
///
/// On a ``TodoItemStorage`` (SQLite) each change writes that one item and reading one item reads
/// that one row; on any other storage a change is one ``LocalStorage/modify(_:forKey:default:_:)``
/// call on the whole list. Either way screens of different styles that share one storage never
/// lose each other's changes.
public final class LiveTodoListViewModel: TodoListViewModel {
  /// The storage key under which the list is kept.
  public static let storageKey = "todos"

  private let storage: any LocalStorage
  private let now: @Sendable () -> Date
  private let makeID: @Sendable () -> UUID
  private let state = Mutex<[TodoItem]>([])

  /// - Parameters:
  ///   - storage: Where the list is kept.
  ///   - now: The clock that stamps new items.
  ///   - makeID: Makes the id of a new item.
  public init(
    storage: any LocalStorage,
    now: @escaping @Sendable () -> Date = Date.init,
    makeID: @escaping @Sendable () -> UUID = UUID.init
  ) {
    self.storage = storage
    self.now = now
    self.makeID = makeID
  }

  /// The items as of the last ``load()``, ``loadPage(after:limit:)`` or change.
  public var items: [TodoItem] {
    state.withLock { $0 }
  }

  public func load() throws {
    let items =
      if let records = storage as? any TodoItemStorage {
        try records.allTodos()
      } else {
        (try storage.load([TodoItem].self, forKey: Self.storageKey) ?? []).inListOrder
      }
    state.withLock { $0 = items }
  }

  public func loadPage(after cursor: TodoCursor?, limit: Int) throws -> TodoPage {
    let page =
      if let records = storage as? any TodoItemStorage {
        try records.todoPage(after: cursor, limit: limit)
      } else {
        (try storage.load([TodoItem].self, forKey: Self.storageKey) ?? []).page(after: cursor, limit: limit)
      }
    state.withLock { $0 = page.items }
    return page
  }

  /// On a ``TodoItemStorage`` one item is read (SQLite: one lookup by primary key); any other
  /// storage keeps the list as one value, which is read whole to find it.
  public func item(id: UUID) throws -> TodoItem {
    let item =
      if let records = storage as? any TodoItemStorage {
        try records.todo(id: id)
      } else {
        try storage.load([TodoItem].self, forKey: Self.storageKey)?.first { $0.id == id }
      }
    guard let item else { throw TodoError.notFound(id) }
    return item
  }

  @discardableResult
  public func add(title: String) throws -> TodoItem {
    let title = try TodoTitle.validate(title)
    let item = TodoItem(id: makeID(), title: title, created: now())
    let maximum = TodoList.maximumItems
    if let records = storage as? any TodoItemStorage {
      try records.insertTodo(item, maximum: maximum)
      state.withLock { $0.append(item) }
    } else {
      try change { items in
        guard items.count < maximum else { throw TodoError.listFull(maximum: maximum) }
        items.append(item)
      }
    }
    return item
  }

  @discardableResult
  public func setDone(_ done: Bool, id: UUID) throws -> TodoItem {
    try update(id: id) { $0.done = done }
  }

  @discardableResult
  public func toggle(id: UUID) throws -> TodoItem {
    try update(id: id) { $0.done.toggle() }
  }

  public func delete(id: UUID) throws {
    if let records = storage as? any TodoItemStorage {
      try records.deleteTodo(id: id)
      state.withLock { $0.removeAll { $0.id == id } }
      return
    }
    try change { items in
      guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      items.remove(at: index)
    }
  }

  private func update(id: UUID, _ body: (inout TodoItem) -> Void) throws -> TodoItem {
    if let records = storage as? any TodoItemStorage {
      let item = try records.updateTodo(id: id, body)
      state.withLock { items in
        if let index = items.firstIndex(where: { $0.id == id }) { items[index] = item }
      }
      return item
    }
    return try change { items in
      guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      body(&items[index])
      return items[index]
    }
  }

  private func change<Result>(_ body: (inout [TodoItem]) throws -> Result) throws -> Result {
    var latest: [TodoItem] = []
    let result = try storage.modify([TodoItem].self, forKey: Self.storageKey, default: []) { items in
      let result = try body(&items)
      latest = items
      return result
    }
    state.withLock { $0 = latest }
    return result
  }
}
