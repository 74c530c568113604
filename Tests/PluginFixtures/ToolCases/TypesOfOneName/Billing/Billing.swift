@_exported import Core
import Knapsack

public final class Ledger: Sendable { public init() {} }
public final class Invoicer: Sendable { public init(_ l: Ledger) {} }
public typealias Stamp = Core.Stamp

extension Dependencies {
  /// Billing's `Ledger`, which the app registers as `Billing.Ledger`.
  public var invoicer: Key<Invoicer> { Key { r in Invoicer(try r.resolve(type: Ledger.self)) } }
}
