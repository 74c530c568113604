import Knapsack

public final class ProfileConfig: Sendable {
  public init() {}
}

public final class Ledger: Sendable {
  public init() {}
}

public final class ProfileStore: Sendable {
  public init(_ config: ProfileConfig, _ ledger: Ledger) {}
}

/// Keys of the same names as Billing's: `\.config` is registered nowhere, and `\.ledger` is
/// unique, so the singleton store holds it captive. Billing's singletons hold nothing captive.
extension Dependencies {
  public var config: Key<ProfileConfig> { .required() }
  public var ledger: Key<Ledger> { Key { Ledger() } }
  public var profileStore: Key<ProfileStore> {
    Key { r in ProfileStore(try r[\.config], try r[\.ledger]) }.scope(.singleton)
  }
}
