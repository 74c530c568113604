import Knapsack

public struct BillingConfig: Sendable { public init() {} }

extension Dependencies {
  public var config: Key<BillingConfig> { .required() }
}
