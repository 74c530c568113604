import Keys
import Knapsack

extension Container {
  func register<V: Sendable>(
    singleton key: KeyPath<Dependencies, Key<V>>, _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: .singleton, make)
  }
}

let container = Container()
container.register(singleton: \.clock) { _ in SystemClock() }
container.register(\.session) { Session() }
container.register(singleton: \.cache) { r in Cache(session: try r[\.session]) }
