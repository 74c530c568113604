import Billing
import Knapsack

/// A `Config` of this module's own, which `Billing.Config` does not name.
public struct Config: Sendable { public init() {} }

/// Both keys shadow Billing's, which this module imports: their types are Billing's, qualified
/// by its module (`Billing.Config` is Billing's `Config`) and by the standard library's
/// (`Swift.Int` is `Int`).
extension Dependencies {
  public var config: Key<Billing.Config> { Key { Billing.Config() } }
  public var formatter: Key<@Sendable (Swift.Int) -> Swift.String> { Key { { String($0) } } }
}
