import Billing
import Knapsack

public final class SettingsConfig: Sendable {
  public init() {}
}

public final class SettingsHolder: Sendable {
  public init(_ config: SettingsConfig) {}
}

/// Settings' own `\.config` shadows Billing's, which it imports: the holder resolves its own.
extension Dependencies {
  public var config: Key<SettingsConfig> { Key { SettingsConfig() } }
  public var settingsHolder: Key<SettingsHolder> { Key { r in SettingsHolder(try r[\.config]) }.scope(.singleton) }
}
