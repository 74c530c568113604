import Knapsack

public final class Storage: Sendable {
  public init(owner: TodoScreen) {}
}

public final class Session: Sendable { public init() {} }
public protocol Analytics: Sendable {}

/// `@LazyInjected` resolves on first access, after the factory that made the screen returned.
public struct TodoScreen: Sendable {
  /// `\.storage`'s factory resolves `\.screen`: no cycle, the property resolves later.
  @LazyInjected(\.storage) var storage: Storage
  /// A singleton screen that reads a unique session later: no captive dependency (`validate()`
  /// checks what a `Lazy` resolves as a root of its own, too).
  @LazyInjected(\.session) var session: Session
  /// Still resolved some time: a type that nobody registers is an error.
  @LazyInjected(type: (any Analytics).self) var analytics: any Analytics
  public init() {}
}

extension Dependencies {
  public var screen: Key<TodoScreen> { Key { TodoScreen() }.scope(.singleton) }
  public var storage: Key<Storage> { Key { r in Storage(owner: try r[\.screen]) } }
  public var session: Key<Session> { Key { Session() } }
}
