import Core
import Knapsack

extension Container {
  /// Feature's helper registers a unique instance.
  public func provide<V: Sendable>(
    _ key: KeyPath<Dependencies, Key<V>>, _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: .unique, make)
  }
}
