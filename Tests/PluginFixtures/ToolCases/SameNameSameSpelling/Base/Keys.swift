import Knapsack

public struct Config: Sendable { public init() {} }

extension Dependencies {
  public var settings: Key<Config> { .required() }
}
