import Knapsack

public protocol API: Sendable {}
public struct LiveAPI: API { public init() {} }
public final class Store: Sendable { public init() {} }

extension Dependencies {
  public var api: Key<any API> { .required() }
}
