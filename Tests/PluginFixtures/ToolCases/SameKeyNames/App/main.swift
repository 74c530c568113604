import Billing
import Knapsack
import Profile

let container = Container()
registerBilling(in: container)
