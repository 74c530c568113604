// expected-error: a key needs no name: its key path tells it apart
import Knapsack

func namedKeyRegistration(_ container: Container) {
  container.register(\.store, name: "main") { _ in Store() }
  container.register(\.store, name: "backup") { Store() }
}
