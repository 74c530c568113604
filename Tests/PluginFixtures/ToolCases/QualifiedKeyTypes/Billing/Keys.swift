import Knapsack

public struct Config: Sendable { public init() {} }

extension Dependencies {
  public var config: Key<Config> { .required() }
  public var formatter: Key<@Sendable (Int) -> String> { .required() }
}
