import Keys
import Knapsack

func registerSingleton<V: Sendable>(
  _ container: Container, _ key: KeyPath<Dependencies, Key<V>>, _ make: @escaping @Sendable () -> V
) {
  container.register(key, scope: .singleton) { make() }
}

extension Container {
  func add<V: Sendable>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope = .unique,
    _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: scope, make)
  }

  // Nobody calls it with a key path: it stays a registration the check cannot follow.
  func replace<V: Sendable>(_ key: KeyPath<Dependencies, Key<V>>, with make: @escaping @Sendable () -> V) {
    register(key) { make() }
  }
}

let container = Container()
registerSingleton(container, \.clock) { SystemClock() }
container.add(\.session) { _ in Session() }
container.add(\.cache, scope: .singleton) { r in Cache(session: try r[\.session]) }
let backup: KeyPath<Dependencies, Key<any AppClock>> = \.backupClock
container.add(backup) { _ in SystemClock() }
