import Knapsack

public final class Storage: Sendable {
  public init(owner: TodoScreen) {}
}

public struct TodoScreen: Sendable {
  @Injected(\.storage) var storage: Storage
  public init() {}
}

/// `\.screen`'s factory makes a `TodoScreen`, whose `@Injected` property resolves `\.storage`,
/// whose factory resolves `\.screen`: a cycle, with a note at the property.
extension Dependencies {
  public var screen: Key<TodoScreen> { Key { TodoScreen() } }
  public var storage: Key<Storage> { Key { r in Storage(owner: try r[\.screen]) } }
}
