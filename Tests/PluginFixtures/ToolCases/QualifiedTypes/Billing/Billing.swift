import Knapsack

public final class Ledger: Sendable { public init() {} }
public final class Invoicer: Sendable { public init(_ l: Ledger) {} }
public final class Auditor: Sendable { public init(_ l: Ledger) {} }

extension Dependencies {
  public var invoicer: Key<Invoicer> { Key { r in Invoicer(try r.resolve(type: Ledger.self)) } }
  /// A qualified spelling of a type nobody registers is still missing.
  public var auditor: Key<Auditor> { Key { r in Auditor(try r.resolve(type: Billing.Ledger.self, name: "audit")) } }
}
