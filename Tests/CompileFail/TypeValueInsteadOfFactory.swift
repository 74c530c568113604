// expected-error: pass a factory that makes the value, `container.register(type: T.self) { value }`
// Without the unavailable overload, the compiler found no exact match in the call to `register`.
import Knapsack

func typeValueInsteadOfFactory(_ container: Container) {
  container.register(type: Store.self, Store())
  container.register(type: Store.self, name: "main", scope: .singleton, Store())
}
