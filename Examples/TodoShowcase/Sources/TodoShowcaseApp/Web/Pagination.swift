import DIShowcase
import Foundation

/// Keyset (cursor) pagination over to-do items.
///
/// Items are ordered by creation time, then id; a cursor names the last item of a page by those
/// two values, so the next page starts right after it even when that item was deleted meanwhile,
/// and an item inserted or deleted elsewhere never shifts or repeats the items of later pages.
struct Page: Equatable {
  /// The largest page size a client may ask for.
  static let maximumLimit = 1000

  var items: [TodoItem]
  /// The cursor of the next page, or `nil` on the last page.
  var next: String?

  /// The page of at most `limit` items after `cursor` (from the start when `nil`).
  static func of(_ items: [TodoItem], after cursor: Cursor?, limit: Int) -> Page {
    let ordered = items.sorted { Cursor($0) < Cursor($1) }
    let rest = cursor.map { cursor in ordered.filter { Cursor($0) > cursor } } ?? ordered
    let page = Array(rest.prefix(limit))
    let next = rest.count > limit ? page.last.map { Cursor($0).text } : nil
    return Page(items: page, next: next)
  }
}

/// A position in the item order: creation time in microseconds, then the id.
struct Cursor: Comparable {
  var microseconds: Int64
  var id: String

  init(_ item: TodoItem) {
    microseconds = Int64((item.created.timeIntervalSince1970 * 1_000_000).rounded())
    id = item.id.uuidString
  }

  /// A cursor from its text, `MICROSECONDS~UUID`; `nil` if malformed.
  init?(text: String) {
    let parts = text.split(separator: "~", omittingEmptySubsequences: false)
    guard parts.count == 2, let microseconds = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
      return nil
    }
    self.microseconds = microseconds
    self.id = id.uuidString
  }

  var text: String { "\(microseconds)~\(id)" }

  static func < (left: Cursor, right: Cursor) -> Bool {
    (left.microseconds, left.id) < (right.microseconds, right.id)
  }
}
