import Knapsack

public struct BillingConfig: Sendable {
  public init() {}
}

public final class Ledger: Sendable {
  public init() {}
}

public final class Invoicer: Sendable {
  public init(_ config: BillingConfig, _ ledger: Ledger) {}
}

/// Billing's `\.config` and `\.ledger`: singletons, the config registered by Billing itself.
extension Dependencies {
  public var config: Key<BillingConfig> { .required() }
  public var ledger: Key<Ledger> { Key { Ledger() }.scope(.singleton) }
  public var invoicer: Key<Invoicer> { Key { r in Invoicer(try r[\.config], try r[\.ledger]) }.scope(.singleton) }
}

public func registerBilling(in container: Container) {
  container.register(\.config, scope: .singleton) { BillingConfig() }
}
