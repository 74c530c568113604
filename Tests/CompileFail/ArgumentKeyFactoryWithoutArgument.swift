// expected-error: this key takes an argument: its factory receives it too, `{ r, argument in ... }`
import Knapsack

func argumentKeyFactoryWithoutArgument(_ container: Container) {
  container.register(\.profile) { _ in Store() }
  container.register(\.profile) { Store() }
}
