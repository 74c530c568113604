// expected-error: a multibinding is never missing: it resolves to what was contributed
import Knapsack

func isRegisteredMultibinding(_ container: Container) -> Bool {
  container.isRegistered(\.plugins)
}
