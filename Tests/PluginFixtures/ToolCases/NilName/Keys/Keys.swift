import Knapsack

public final class Ledger: Sendable { public init() {} }
public final class Invoicer: Sendable { public init(_ l: Ledger) {} }

extension Dependencies {
  public var invoicer: Key<Invoicer> { Key { r in Invoicer(try r.resolve(type: Ledger.self)) } }
}
