import Knapsack

public struct SystemClock: Sendable {
  public init() {}
}

extension Dependencies {
  public var clock: Key<SystemClock> { .required() }
}
