import Knapsack

public final class SessionCache: Sendable { public init(_ session: Session, _ stamp: Stamp) {} }

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  public var stamp: Key<Stamp> { Key { Stamp() } }
  public var sessionCache: Key<SessionCache> {
    Key { r in SessionCache(try r[\.session], try r[\.stamp]) }.scope(.singleton)
  }
}
