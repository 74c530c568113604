import Knapsack

/// Another `Ledger`, of this module: the app registers none.
public final class Ledger: Sendable { public init() {} }
public final class Courier: Sendable { public init(_ l: Ledger) {} }

extension Dependencies {
  public var courier: Key<Courier> { Key { r in Courier(try r.resolve(type: Ledger.self)) } }
}
