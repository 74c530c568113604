import Knapsack

public struct BaseConfig: Sendable { public init() {} }

extension Dependencies {
  public var settings: Key<BaseConfig> { .required() }
}
