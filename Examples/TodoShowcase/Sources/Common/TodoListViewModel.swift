public import Foundation

/// What a to-do list screen needs: the items and the actions on them.
public protocol TodoListViewModel: Sendable {
  /// The items as of the last ``load()`` or change, oldest first.
  var items: [TodoItem] { get }

  /// Reads the items from storage.
  func load() throws

  /// Reads one page of the items from storage, oldest first: at most `limit` items after
  /// `cursor` (from the start when `nil`), with the counts of the whole list.
  func loadPage(after cursor: TodoCursor?, limit: Int) throws -> TodoPage

  /// Reads the item with this id from storage; throws ``TodoError/notFound(_:)`` for an unknown
  /// id. Leaves ``items`` as they were.
  func item(id: UUID) throws -> TodoItem

  /// Adds an item; throws ``TodoError/emptyTitle``, ``TodoError/blankTitle(_:)``,
  /// ``TodoError/titleTooLong(length:)``, ``TodoError/titleTooComplex(scalars:)``,
  /// ``TodoError/controlCharacter(_:)``, ``TodoError/invisibleCharacter(_:)``,
  /// ``TodoError/strayVariationSelector(_:)`` or ``TodoError/unusableCharacter(_:)`` for a title
  /// that breaks a rule of ``TodoTitle``, or
  /// ``TodoError/listFull(maximum:)`` when the list already has ``TodoList/maximumItems`` items.
  @discardableResult
  func add(title: String) throws -> TodoItem

  /// Sets an item's done state; throws ``TodoError/notFound(_:)`` for an unknown id.
  @discardableResult
  func setDone(_ done: Bool, id: UUID) throws -> TodoItem

  /// Flips an item's done state; throws ``TodoError/notFound(_:)`` for an unknown id.
  @discardableResult
  func toggle(id: UUID) throws -> TodoItem

  /// Deletes an item; throws ``TodoError/notFound(_:)`` for an unknown id.
  func delete(id: UUID) throws
}
