import Knapsack

public protocol AppClock: Sendable {}
public struct SystemClock: AppClock { public init() {} }
public final class Session: Sendable { public init() {} }
public final class Cache: Sendable {
  let session: Session
  public init(session: Session) { self.session = session }
}

extension Dependencies {
  // Registered through a helper that overloads register with a label of its own.
  public var clock: Key<any AppClock> { .required() }
  public var session: Key<Session> { .required() }
  // Registered through the same helper, a singleton that holds the unique session: captive.
  public var cache: Key<Cache> { .required() }
}
