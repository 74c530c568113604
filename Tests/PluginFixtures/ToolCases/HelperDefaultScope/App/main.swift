import Keys
import Knapsack

extension Container {
  func shared<V: Sendable>(
    _ key: KeyPath<Dependencies, Key<V>>, scope: Scope = .singleton,
    _ make: @escaping @Sendable (Resolver) throws -> V
  ) {
    register(key, scope: scope, make)
  }
}

let container = Container()
// No scope passed: the helper's default, .singleton.
container.shared(\.session) { _ in Session() }
container.register(\.cache, scope: .singleton) { r in Cache(session: try r[\.session]) }
container.shared(\.scratchSession, scope: .unique) { _ in Session() }
container.shared(\.feed) { r in Feed(session: try r[\.scratchSession]) }
