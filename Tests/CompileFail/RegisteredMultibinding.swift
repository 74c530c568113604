// expected-error: a multibinding is not registered as a whole: contribute each element
import Knapsack

func registeredMultibinding(_ container: Container) {
  container.register(\.plugins) { _ in [Store()] }
}
