import Knapsack

public protocol Store: Sendable {}
public final class SQLStore: Store { public init() {} }
public final class Holder: Sendable { public init(_ s: any Store) {} }

extension Dependencies {
  public var holder: Key<Holder> { Key { r in Holder(try r.resolve(type: (any Store).self)) }.scope(.singleton) }
}
