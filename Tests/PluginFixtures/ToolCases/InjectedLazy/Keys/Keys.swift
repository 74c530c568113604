import Knapsack

public final class Storage: Sendable {
  public init(owner: TodoScreen) {}
}

public final class Session: Sendable { public init() {} }
public protocol Analytics: Sendable {}

/// `@LazyInjected` resolves on first access, after the factory that made the screen returned.
public struct TodoScreen: Sendable {
  /// `\.storage`'s factory resolves `\.screen`: no cycle, the property resolves later (but the
  /// singleton screen keeps the unique storage it reads first: a captive dependency).
  @LazyInjected(\.storage) var storage: Storage
  /// A singleton screen that reads a unique session later keeps the first one it reads: a captive
  /// dependency through the property's `Lazy`, as `validate()` reports it.
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
