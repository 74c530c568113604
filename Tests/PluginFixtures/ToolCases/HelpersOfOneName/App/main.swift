import AFeature
import Core
import Knapsack

/// The app's helper of the same name registers a singleton; the call below passes `in:`, which only
/// this one takes, so the clock is a singleton and the repository (a singleton) holds no shorter-
/// lived instance.
func provide<V: Sendable>(
  _ key: KeyPath<Dependencies, Key<V>>, in container: Container, _ make: @escaping @Sendable (Resolver) throws -> V
) {
  container.register(key, scope: .singleton, make)
}

let container = Container()
provide(\.clock, in: container) { _ in Clock() }
