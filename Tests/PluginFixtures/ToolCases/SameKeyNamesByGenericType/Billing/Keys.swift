public import Knapsack

public struct Box<Value: Sendable>: Sendable { public init() {} }
public struct BillingConfig: Sendable { public init() {} }

extension Dependencies {
  public var config: Key<Box<Int>> { .required() }
  public var setting: Key<BillingConfig?> { .required() }
}
