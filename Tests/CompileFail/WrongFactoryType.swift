// expected-error: cannot convert value of type 'Int' to closure result type 'Store'
import Knapsack

func wrongFactoryType(_ container: Container) {
  container.register(\.store) { 42 }
}
