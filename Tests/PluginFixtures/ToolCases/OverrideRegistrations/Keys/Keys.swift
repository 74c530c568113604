import Knapsack

public protocol API: Sendable {}
public struct LiveAPI: API { public init() {} }
public struct MockAPI: API { public init() {} }
public struct Session: Sendable { public init() {} }

extension Dependencies {
  // Registered only in an override scope: missing everywhere else.
  public var api: Key<any API> { .required() }
  // Registered by the app and overridden in a preview: provided.
  public var session: Key<Session> { .required() }
  // Registered in the operation of an override scope, on the app's container: provided.
  public var clock: Key<Int> { .required() }
  // Registered only in the configuration passed as the first argument.
  public var token: Key<String> { .required() }
}
