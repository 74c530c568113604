import Billing
import Knapsack

func registerStamps(in container: Container) {
  container.register(type: Stamp.self) { Stamp() }
}
