// expected-error: a Key's factory cannot await: declare the key as AsyncKey<Value>
import Knapsack

func awaitingPlainFactoryForKey(_ container: Container) {
  container.register(\.store) { () async in Store() }
}
