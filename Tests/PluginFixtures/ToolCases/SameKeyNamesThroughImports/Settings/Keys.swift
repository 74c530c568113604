import Billing
import Knapsack

public final class SettingsHolder: Sendable {
  public init(_ config: BillingConfig) {}
}

/// Settings' own `\.config` shadows Billing's, which it imports and whose type it has: the holder
/// resolves its own. (Keys of one name and different types do not shadow each other: Swift
/// chooses by the value's type; see the case SameNameOtherType.)
extension Dependencies {
  public var config: Key<BillingConfig> { Key { BillingConfig() } }
  public var settingsHolder: Key<SettingsHolder> { Key { r in SettingsHolder(try r[\.config]) }.scope(.singleton) }
}
