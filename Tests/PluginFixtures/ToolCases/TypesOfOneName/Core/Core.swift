import Knapsack

public final class Stamp: Sendable { public init() {} }
public final class Seal: Sendable { public init() {} }
public final class Notary: Sendable { public init(_ s: Stamp, _ t: Seal) {} }

extension Dependencies {
  /// The app registers both, spelled through Billing: `Stamp` (Billing's alias of it) and
  /// `Billing.Seal` (Billing re-exports this module).
  public var notary: Key<Notary> {
    Key { r in Notary(try r.resolve(type: Stamp.self), try r.resolve(type: Seal.self)) }
  }
}
