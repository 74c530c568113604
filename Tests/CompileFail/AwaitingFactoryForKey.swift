// expected-error: a Key's factory cannot await: declare the key as AsyncKey<Value> to register a factory that awaits
import Knapsack

func awaitingFactoryForKey(_ container: Container) {
  container.register(\.store) { r in try await r.resolve(\.database) }
}
