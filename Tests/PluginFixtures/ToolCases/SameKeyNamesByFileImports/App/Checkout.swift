import Knapsack
import Payments

func checkoutContainer() -> Container {
  Container()
}
