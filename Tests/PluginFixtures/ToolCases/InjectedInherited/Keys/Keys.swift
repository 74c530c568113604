public import Knapsack

public protocol Store: Sendable {}
public protocol Screen: Sendable {}

// A subclass with no property of its own: making it resolves what its superclasses' @Injected
// properties name, through two levels.
open class BaseScreen: @unchecked Sendable {
  @Injected var store: any Store
  @Injected(\.loop) var loop: Int
  public init() {}
}
open class ListScreen: BaseScreen, @unchecked Sendable {}
public final class TodoScreen: ListScreen, @unchecked Sendable {}

// The first inherited type is a protocol: nothing to follow.
public final class SettingsScreen: Screen, @unchecked Sendable {
  public init() {}
}

extension Dependencies {
  public var loop: Key<Int> {
    Key { r in
      _ = try r[\.screen]
      return 1
    }
  }
  public var screen: Key<TodoScreen> { Key { TodoScreen() } }
  public var settings: Key<SettingsScreen> { .required() }
}
