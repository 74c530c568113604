// expected-error: a multibinding is not registered as a whole: contribute each element
import Knapsack

func registeredMultibindingWithoutResolver(_ container: Container) {
  container.register(\.plugins) { [Store()] }
}
