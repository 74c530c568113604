import Knapsack

public struct ProfileConfig: Sendable { public init() {} }

extension Dependencies {
  public var config: Key<ProfileConfig> { .required() }
}
