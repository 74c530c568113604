public import Knapsack

/// Made anew for each use.
public final class Session: Sendable {
  public init() {}
}

/// Kept for the container's life, and keeps the sessions it was made with.
public final class SessionArchive: Sendable {
  let sessions: [Session]

  public init(_ sessions: [Session]) { self.sessions = sessions }
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

  /// A singleton session, and an alias of it: a unique key whose factory hands the singleton out.
  public var sharedSession: Key<Session> { Key { Session() }.scope(.singleton) }
  public var currentSession: Key<Session> { Key { r in try r[\.sharedSession] } }

  /// A singleton that keeps what the alias gives: the singleton session, so nothing captive.
  public var sharedSessionCache: Key<SessionCache> {
    Key { r in SessionCache(session: try r[\.currentSession]) }.scope(.singleton)
  }

  /// Every session of a list, kept by a singleton: the unique contribution is captive.
  public var sessions: Multibinding<Session> { Multibinding() }
  public var sessionArchive: Key<SessionArchive> { Key { r in SessionArchive(try r[\.sessions]) }.scope(.singleton) }
}
