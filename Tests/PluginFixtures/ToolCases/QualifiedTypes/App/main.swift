import Billing
import Knapsack

let container = Container()
container.register(type: Billing.Ledger.self, scope: .singleton) { Billing.Ledger() }
