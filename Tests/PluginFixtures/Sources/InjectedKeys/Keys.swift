public import Knapsack

/// Required, and registered nowhere: only the `@Injected` property of the screen that
/// `\.screen`'s factory makes resolves it.
public final class Clock: Sendable {
  public init() {}
}

/// Made anew for each use.
public final class Session: Sendable {
  public init() {}
}

/// Made by `\.screen`'s factory; its property resolves the clock when it is made.
public struct Screen: Sendable {
  @Injected(\.wallClock) var clock: Clock
  public init() {}
}

/// Kept for the container's life with the session its property resolved: a captive dependency.
public struct Dashboard: Sendable {
  @Injected(\.session) var session: Session
  public init() {}
}

/// Made by `\.loopScreen`'s factory; its property resolves `\.loopStorage`, whose factory
/// resolves `\.loopScreen`: a cycle.
public struct LoopScreen: Sendable {
  @Injected(\.loopStorage) var storage: LoopStorage
  public init() {}
}

public final class LoopStorage: Sendable {
  public init(owner: LoopScreen) {}
}

extension Dependencies {
  public var wallClock: Key<Clock> { .required() }
  public var screen: Key<Screen> { Key { Screen() } }
  public var session: Key<Session> { Key { Session() } }
  public var dashboard: Key<Dashboard> { Key { Dashboard() }.scope(.singleton) }
  public var loopScreen: Key<LoopScreen> { Key { LoopScreen() } }
  public var loopStorage: Key<LoopStorage> { Key { r in LoopStorage(owner: try r[\.loopScreen]) } }
}

/// Reads a unique session on first access, and keeps it for the container's life with the
/// singleton: a captive dependency through the `Lazy` of its property, which both checks report.
public struct LazyDashboard: Sendable {
  @LazyInjected(\.session) var session: Session
  public init() {}
}

/// Resolves `\.lazyStorage` on first access, after `\.lazyScreen`'s factory returned: no cycle.
public struct LazyScreen: Sendable {
  @LazyInjected(\.lazyStorage) var storage: LazyStorage
  public init() {}
}

public final class LazyStorage: Sendable {
  public init(owner: LazyScreen) {}
}

extension Dependencies {
  public var lazyDashboard: Key<LazyDashboard> { Key { LazyDashboard() }.scope(.singleton) }
  public var lazyScreen: Key<LazyScreen> { Key { LazyScreen() } }
  public var lazyStorage: Key<LazyStorage> { Key { r in LazyStorage(owner: try r[\.lazyScreen]) } }
}
