public import Foundation

/// Why the to-do list refused a change.
public enum TodoError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The title is empty or only whitespace.
  case emptyTitle
  /// The title has more than ``TodoTitle/maximumLength`` characters.
  case titleTooLong(length: Int)
  /// No item has this id.
  case notFound(UUID)

  public var description: String {
    switch self {
    case .emptyTitle:
      "The title must not be empty."
    case .titleTooLong(let length):
      "The title has \(length) characters; at most \(TodoTitle.maximumLength) are allowed."
    case .notFound(let id):
      "No to-do item has the id \(id.uuidString)."
    }
  }
}

/// The rules for a to-do title.
public enum TodoTitle {
  /// The longest title allowed, in characters.
  public static let maximumLength = 200

  /// The title with surrounding whitespace trimmed, or an error if it breaks a rule.
  public static func validate(_ title: String) throws(TodoError) -> String {
    let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw .emptyTitle }
    guard trimmed.count <= maximumLength else { throw .titleTooLong(length: trimmed.count) }
    return trimmed
  }
}
