import Knapsack

public final class Store: Sendable {
  public init() {}
}

public final class Holder: Sendable {
  public init(_ store: Store) {}
}

extension Dependencies {
  public var store: Key<Store> { Key { Store() }.scope(.singleton) }
  public var freshStore: Key<Store> { Key { Store() } }

  /// Aliases: unique keys whose factories only hand out another key's instance.
  public var storeAlias: Key<Store> { Key { r in try r[\.store] } }
  public var freshAlias: Key<Store> { Key { r in try r[\.freshStore] } }
  public var registeredAlias: Key<Store> { .required() }
  /// Not an alias: it makes a store of its own.
  public var ownStore: Key<Store> {
    Key { r in
      _ = try r[\.store]
      return Store()
    }
  }

  /// Keeps the singleton behind the alias: nothing captive.
  public var storeHolder: Key<Holder> { Key { r in Holder(try r[\.storeAlias]) }.scope(.singleton) }
  /// Keeps the singleton behind the registered alias: nothing captive.
  public var registeredHolder: Key<Holder> { Key { r in Holder(try r[\.registeredAlias]) }.scope(.singleton) }
  /// Registered as a singleton that keeps the type registration's store: nothing captive.
  public var typeHolder: Key<Holder> { .required() }
  /// Keeps a unique store, through the alias: captive.
  public var freshHolder: Key<Holder> { Key { r in Holder(try r[\.freshAlias]) }.scope(.singleton) }
  /// Keeps a store of the non-alias's own making: captive.
  public var ownHolder: Key<Holder> { Key { r in Holder(try r[\.ownStore]) }.scope(.singleton) }
}
