import DIShowcase
import Foundation

/// Cursor (keyset) pagination as the API and the pages read it from a query: `limit` and
/// `after`.
///
/// The order and the paging itself are ``TodoCursor`` and ``TodoPage`` (one implementation, in
/// the shared model and, for SQLite, the store's query): items are ordered by creation time, then
/// id, and `after` names the last item of the previous page, so a page starts right after it even
/// when that item was deleted meanwhile, and inserts and deletes elsewhere never shift or repeat
/// the items of later pages.
enum Pagination {
  /// How many items a list page shows.
  static let pageSize = 50

  /// Why a query's paging parameters were refused.
  struct Invalid: Error {
    var message: String
  }

  /// The `after` parameter: `nil` when absent; throws ``Invalid`` when it is no cursor.
  static func cursor(_ text: String?) throws -> TodoCursor? {
    guard let text else { return nil }
    guard let cursor = TodoCursor(text: text) else {
      throw Invalid(message: "after must be a cursor from a Link header or a Next page link.")
    }
    return cursor
  }

  /// The `limit` parameter, from 1 to ``TodoPage/maximumLimit`` (`defaultLimit` when absent).
  static func limit(_ text: String?, default defaultLimit: Int) throws -> Int {
    guard let text else { return defaultLimit }
    guard let limit = Int(text), (1...TodoPage.maximumLimit).contains(limit) else {
      throw Invalid(message: "limit must be a whole number from 1 to \(TodoPage.maximumLimit).")
    }
    return limit
  }
}
