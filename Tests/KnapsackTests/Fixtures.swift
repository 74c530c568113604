import Knapsack
import Synchronization

protocol LocalStorage: AnyObject, Sendable {
  var name: String { get }
}

final class InMemoryStorage: LocalStorage {
  let name: String
  init(name: String = "memory") { self.name = name }
}

protocol AppClock: Sendable {
  var now: Int { get }
}

struct FixedClock: AppClock {
  let now: Int
}

final class Repository: Sendable {
  let storage: any LocalStorage
  init(storage: any LocalStorage) { self.storage = storage }
}

/// Counts how many times something was made; each test makes its own.
final class Counter: Sendable {
  private let value = Atomic<Int>(0)
  @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
  var count: Int { value.load(ordering: .relaxed) }
}

extension Dependencies {
  var storage: Key<any LocalStorage> { Key { InMemoryStorage() }.scope(.singleton) }
  var clock: Key<any AppClock> { .required() }
  var repository: Key<Repository> { Key { r in Repository(storage: try r[\.storage]) } }
  var greeting: Key<String> { Key { "hello" } }
}
