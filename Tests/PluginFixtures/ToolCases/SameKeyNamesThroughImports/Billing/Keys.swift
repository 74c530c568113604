import Knapsack

public final class BillingConfig: Sendable {
  public init() {}
}

extension Dependencies {
  public var config: Key<BillingConfig> { .required() }
}
