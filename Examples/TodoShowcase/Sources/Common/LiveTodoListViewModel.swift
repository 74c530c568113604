public import Foundation
import Synchronization

/// The view model every DI style uses: the to-do list kept in a ``LocalStorage``.
///
/// Each change is one ``LocalStorage/modify(_:forKey:default:_:)`` call, so screens of different
/// styles that share one storage never lose each other's changes.
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

  public var items: [TodoItem] {
    state.withLock { $0 }
  }

  public func load() throws {
    let items = try storage.load([TodoItem].self, forKey: Self.storageKey) ?? []
    state.withLock { $0 = items }
  }

  @discardableResult
  public func add(title: String) throws -> TodoItem {
    let title = try TodoTitle.validate(title)
    let item = TodoItem(id: makeID(), title: title, created: now())
    try change { $0.append(item) }
    return item
  }

  @discardableResult
  public func setDone(_ done: Bool, id: UUID) throws -> TodoItem {
    try change { items in
      guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      items[index].done = done
      return items[index]
    }
  }

  @discardableResult
  public func toggle(id: UUID) throws -> TodoItem {
    try change { items in
      guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      items[index].done.toggle()
      return items[index]
    }
  }

  public func delete(id: UUID) throws {
    try change { items in
      guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.notFound(id) }
      items.remove(at: index)
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
