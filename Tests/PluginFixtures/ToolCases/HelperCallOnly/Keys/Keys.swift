public import Knapsack

extension Dependencies {
  public var clock: Key<Int> { .required() }
  public var unprovided: Key<Int> { .required() }
}

extension Container {
  public func singleton<V>(_ key: KeyPath<Dependencies, Key<V>>, _ factory: @escaping @Sendable () -> V) {
    register(key, scope: .singleton, factory)
  }
}
