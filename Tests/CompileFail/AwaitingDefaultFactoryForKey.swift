// expected-error: a Key's factory cannot await: declare the key as AsyncKey<Value>
import Knapsack

extension Dependencies {
  var awaitingStore: Key<Store> { Key { r in try await r.resolve(\.database) } }
}
