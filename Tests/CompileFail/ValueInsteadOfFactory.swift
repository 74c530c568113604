// expected-error: pass a factory that makes the value, `container.register(\.key) { value }`
import Knapsack

func valueInsteadOfFactory(_ container: Container) {
  container.register(\.store, Store())
}
