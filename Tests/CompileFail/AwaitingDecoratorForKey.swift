// expected-error: a Key's decorator cannot await, as its factory cannot
import Knapsack

func awaitingDecoratorForKey(_ container: Container) {
  container.decorate(\.store) { r, store in
    _ = try await r.resolve(\.database)
    return store
  }
}
