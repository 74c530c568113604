// expected-error: a required key has no default: register its factory where the app is put together
import Knapsack

extension Dependencies {
  var fallbackStore: Key<Store> { .required { Store() } }
}
