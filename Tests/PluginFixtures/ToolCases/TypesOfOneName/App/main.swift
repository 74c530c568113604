import Billing
import Knapsack
import Shipping

let container = Container()
container.register(type: Billing.Ledger.self, scope: .singleton) { Billing.Ledger() }
container.register(type: Billing.Seal.self) { Seal() }
