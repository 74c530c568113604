import Knapsack

public final class Session: Sendable { public init() {} }
public final class Cache: Sendable {
  let session: Session
  public init(session: Session) { self.session = session }
}
public final class Feed: Sendable {
  let session: Session
  public init(session: Session) { self.session = session }
}

extension Dependencies {
  // Registered through a helper whose scope parameter defaults to .singleton: a singleton.
  public var session: Key<Session> { .required() }
  // A singleton that holds the session, a singleton too: nothing captive.
  public var cache: Key<Cache> { .required() }
  // Registered through the same helper, passed .unique: a unique session held by a singleton.
  public var scratchSession: Key<Session> { .required() }
  public var feed: Key<Feed> { .required() }
}
