import Knapsack

public final class Session: Sendable { public init() {} }
public final class Clock: Sendable { public init() {} }

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  public var clock: Key<Clock> {
    Key { r in
      _ = try r[\.shell]
      return Clock()
    }
  }
}
