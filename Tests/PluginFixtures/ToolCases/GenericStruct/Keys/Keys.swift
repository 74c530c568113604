import Knapsack

public final class Store: Sendable { public init() {} }
public struct Box<T: Sendable>: Sendable {
  public let value: T
  public init(_ v: T) { value = v }
}
public final class Holder: Sendable { public init(_ b: Box<Store>) {} }
public final class FreshHolder: Sendable { public init(_ b: Box<Store>) {} }

extension Dependencies {
  public var store: Key<Store> { Key { Store() }.scope(.singleton) }
  public var boxedStore: Key<Box<Store>> { Key { r in Box(try r[\.store]) } }
  public var holder: Key<Holder> { Key { r in Holder(try r[\.boxedStore]) }.scope(.singleton) }
  /// The same box around a unique store: the store it holds is captive.
  public var freshStore: Key<Store> { Key { Store() } }
  public var freshBox: Key<Box<Store>> { Key { r in Box(try r[\.freshStore]) } }
  public var freshHolder: Key<FreshHolder> { Key { r in FreshHolder(try r[\.freshBox]) }.scope(.singleton) }
}
