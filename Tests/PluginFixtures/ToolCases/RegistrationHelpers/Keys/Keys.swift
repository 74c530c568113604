import Knapsack

public protocol AppClock: Sendable {}
public struct SystemClock: AppClock { public init() {} }
public final class Session: Sendable { public init() {} }
public final class Cache: Sendable {
  let session: Session
  public init(session: Session) { self.session = session }
}

extension Dependencies {
  // Registered through a free function that takes the key path.
  public var clock: Key<any AppClock> { .required() }
  // Registered through a method of an extension of Container, with the scope it is passed.
  public var session: Key<Session> { .required() }
  // Registered through the same method as a singleton that holds the unique session: captive.
  public var cache: Key<Cache> { .required() }
  // Passed to a helper by a key path held in a variable: still missing.
  public var backupClock: Key<any AppClock> { .required() }
}
