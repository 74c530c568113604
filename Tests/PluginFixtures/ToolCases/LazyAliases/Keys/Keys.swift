import Knapsack

public final class Store: Sendable { public init() {} }
public final class Holder: Sendable {
  let store: Lazy<Key<Store>>
  public init(store: Lazy<Key<Store>>) { self.store = store }
}

/// A `Lazy` keeps the first value it reads: a singleton that keeps one of a unique key keeps a
/// unique instance, a captive dependency, as `validate()` reports it. One of a unique key whose
/// factory hands out a singleton's instance (an alias) keeps that singleton: no finding. One of
/// an alias of a unique key keeps that key's instance, through the alias.
extension Dependencies {
  public var sharedStore: Key<Store> { Key { Store() }.scope(.singleton) }
  public var freshStore: Key<Store> { Key { Store() } }
  public var storeOfShared: Key<Store> { Key { r in try r[\.sharedStore] } }
  public var storeOfFresh: Key<Store> { Key { r in try r[\.freshStore] } }
  public var keepsFresh: Key<Holder> { Key { r in Holder(store: r.lazy(\.freshStore)) }.scope(.singleton) }
  public var keepsShared: Key<Holder> { Key { r in Holder(store: r.lazy(\.storeOfShared)) }.scope(.singleton) }
  public var keepsAliased: Key<Holder> { Key { r in Holder(store: r.lazy(\.storeOfFresh)) }.scope(.singleton) }
  public var getsFresh: Key<Holder> {
    Key { r in Holder(store: r.lazy(\.freshStore)) }.scope(.unique)
  }
}
