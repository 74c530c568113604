public import Foundation

/// One entry of the to-do list.
public struct TodoItem: Codable, Sendable, Hashable, Identifiable {
  public var id: UUID
  public var title: String
  public var done: Bool
  public var created: Date

  public init(id: UUID, title: String, done: Bool = false, created: Date) {
    self.id = id
    self.title = title
    self.done = done
    self.created = created
  }
}
