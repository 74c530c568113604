// expected-error: pass a factory that makes the value, `container.register(\.key) { value }`
// With a scope, the compiler found no exact match in the call to `register`.
import Knapsack

func valueWithScopeInsteadOfFactory(_ container: Container) {
  container.register(\.store, scope: .singleton, Store())
}
