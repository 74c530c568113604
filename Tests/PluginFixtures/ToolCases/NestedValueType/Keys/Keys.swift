import Knapsack

public enum API {
  /// A value type that shares its name with the top-level class below.
  public struct Session: Sendable {}
}

public final class Session: Sendable {
  public init() {}
}

public final class SessionCache: Sendable {
  public init(_ session: Session, _ apiSession: API.Session) {}
}

extension Dependencies {
  public var session: Key<Session> { Key { Session() } }
  public var apiSession: Key<API.Session> { Key { API.Session() } }

  /// Holds the class (captive) and the nested struct (kept by value).
  public var sessionCache: Key<SessionCache> {
    Key { r in SessionCache(try r[\.session], try r[\.apiSession]) }.scope(.singleton)
  }
}
