import Knapsack

public protocol API: Sendable {}
public struct MockAPI: API { public init() {} }

extension Dependencies {
  // Registered only through a helper called in an override scope: missing everywhere else.
  public var api: Key<any API> { .required() }
}
