public import Foundation

/// A position in the list order: creation time in whole microseconds, then the id.
///
/// The list is ordered by creation time, then id. A cursor names the last item of a page by those
/// two values, so the next page starts right after it even when that item was deleted meanwhile,
/// and an item inserted or deleted elsewhere never shifts or repeats the items of later pages.
public struct TodoCursor: Comparable, Hashable, Sendable {
  /// The creation time in microseconds since 1970.
  public var microseconds: Int64
  /// The id, in the upper-case text form that orders like its bytes.
  public var id: String

  /// The cursor that names `item`.
  public init(_ item: TodoItem) {
    microseconds = Self.microseconds(item.created)
    id = item.id.uuidString
  }

  /// A cursor from its text, `MICROSECONDS~UUID`; `nil` if malformed.
  public init?(text: String) {
    let parts = text.split(separator: "~", omittingEmptySubsequences: false)
    guard parts.count == 2, let microseconds = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
      return nil
    }
    self.microseconds = microseconds
    self.id = id.uuidString
  }

  /// The cursor as text for a URL: `MICROSECONDS~UUID`.
  public var text: String { "\(microseconds)~\(id)" }

  /// A creation time in whole microseconds since 1970, the first part of the order.
  public static func microseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
  }

  public static func < (left: TodoCursor, right: TodoCursor) -> Bool {
    (left.microseconds, left.id) < (right.microseconds, right.id)
  }

  /// Whether `left` comes before `right` in the list order; builds the id text only on a tie.
  static func precedes(_ left: TodoItem, _ right: TodoItem) -> Bool {
    let leftTime = microseconds(left.created)
    let rightTime = microseconds(right.created)
    if leftTime != rightTime { return leftTime < rightTime }
    return left.id.uuidString < right.id.uuidString
  }

  /// Whether `item` comes after this cursor in the list order.
  func precedes(_ item: TodoItem) -> Bool {
    let time = Self.microseconds(item.created)
    if time != microseconds { return microseconds < time }
    return id < item.id.uuidString
  }
}

/// One page of the to-do list, oldest first, with the counts of the whole list.
public struct TodoPage: Equatable, Sendable {
  /// The largest page size a client may ask for: as many items as the whole list is streamed
  /// in, so that a client that asks for a page and does not read it holds no more of the
  /// server's memory than one that asks for the whole list.
  public static let maximumLimit = 200

  /// The items of this page.
  public var items: [TodoItem]
  /// The cursor of the next page, or `nil` on the last page.
  public var next: TodoCursor?
  /// How many items the whole list has.
  public var total: Int
  /// How many items of the whole list are done.
  public var done: Int

  public init(items: [TodoItem], next: TodoCursor?, total: Int, done: Int) {
    self.items = items
    self.next = next
    self.total = total
    self.done = done
  }
}

extension Array where Element == TodoItem {
  /// The page of at most `limit` items after `cursor` (from the start when `nil`), in list order.
  ///
  /// The one paging routine for lists held whole in memory (the file stores and the in-memory
  /// store); the SQLite store runs the same order as a query.
  public func page(after cursor: TodoCursor?, limit: Int) -> TodoPage {
    let ordered = inListOrder
    var start = 0
    if let cursor {
      // Binary search for the first item after the cursor.
      var end = ordered.count
      while start < end {
        let middle = (start + end) / 2
        if cursor.precedes(ordered[middle]) { end = middle } else { start = middle + 1 }
      }
    }
    let stop = Swift.min(ordered.count, start + Swift.max(limit, 0))
    let items = Array(ordered[start..<stop])
    let next = stop < ordered.count ? items.last.map(TodoCursor.init) : nil
    return TodoPage(items: items, next: next, total: count, done: count(where: \.done))
  }

  /// The items in list order (by creation time, then id), as the pages and the SQLite store
  /// give them: writers that append side by side may store them slightly out of it.
  public var inListOrder: [TodoItem] { isOrdered ? self : sorted(by: TodoCursor.precedes) }

  /// Whether the items are already in list order (the usual case: items are appended as made).
  private var isOrdered: Bool {
    indices.dropFirst().allSatisfy { !TodoCursor.precedes(self[$0], self[$0 - 1]) }
  }
}

/// A storage that keeps the to-do list item by item, so one change writes one item.
///
/// ``LiveTodoListViewModel`` uses these operations when its storage offers them, and otherwise
/// reads and rewrites the whole list under ``LiveTodoListViewModel/storageKey``.
public protocol TodoItemStorage: LocalStorage {
  /// Every item, in list order.
  func allTodos() throws -> [TodoItem]

  /// The page of at most `limit` items after `cursor`, in list order.
  func todoPage(after cursor: TodoCursor?, limit: Int) throws -> TodoPage

  /// The item with this id, or `nil` if there is none: one item read, not the list.
  func todo(id: UUID) throws -> TodoItem?

  /// Stores a new item unless the list already has `maximum` items (then throws
  /// ``TodoError/listFull(maximum:)``), counting and inserting as one step.
  func insertTodo(_ item: TodoItem, maximum: Int) throws

  /// Lets `body` change the item with this id and stores the result, as one step; throws
  /// ``TodoError/notFound(_:)`` for an unknown id. Nothing is saved when `body` throws.
  func updateTodo(id: UUID, _ body: (inout TodoItem) throws -> Void) throws -> TodoItem

  /// Deletes the item with this id; throws ``TodoError/notFound(_:)`` for an unknown id.
  func deleteTodo(id: UUID) throws
}
