import Knapsack

public final class Session: Sendable { public init() {} }
public final class Settings: Sendable { public init() {} }

/// Keeps what its properties resolve for as long as it lives.
public struct Dashboard: Sendable {
  @Injected(\.session) var session: Session
  @Injected(type: Settings.self) var settings: Settings
  public init() {}
}

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  /// A singleton dashboard keeps a unique session: a captive dependency, at the property.
  public var dashboard: Key<Dashboard> { Key { Dashboard() }.scope(.singleton) }
}

extension Dependencies {
  public var board: Key<Dashboard> { .required() }
  public var pinnedBoard: Key<Dashboard> { .required() }
}
