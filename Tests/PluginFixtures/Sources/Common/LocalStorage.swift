/// Where the to-do items are kept.
public protocol LocalStorage: Sendable {
  func load() -> [String]
}

/// Items kept in memory.
public struct InMemoryStorage: LocalStorage {
  let items: [String]

  public init(items: [String]) { self.items = items }

  public func load() -> [String] { items }
}
