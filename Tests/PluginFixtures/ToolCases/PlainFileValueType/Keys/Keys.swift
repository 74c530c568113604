import Knapsack

public final class SessionCache: Sendable { public init(_ session: Session) {} }

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  public var sessionCache: Key<SessionCache> { Key { r in SessionCache(try r[\.session]) }.scope(.singleton) }
}
