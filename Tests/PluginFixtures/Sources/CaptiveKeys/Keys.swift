public import Knapsack

/// Made anew for each use.
public final class Session: Sendable {
  public init() {}
}

/// Kept for the container's life, and keeps the session it was made with.
public final class SessionCache: Sendable {
  let session: Session

  public init(session: Session) { self.session = session }
}

extension Dependencies {
  /// Unique: one per use.
  public var session: Key<Session> { Key { Session() } }

  /// A singleton that holds a unique session: a captive dependency.
  public var sessionCache: Key<SessionCache> {
    Key { r in SessionCache(session: try r[\.session]) }.scope(.singleton)
  }
}
