import Keys
import Knapsack

let container = Container()
container.register(type: Ledger.self, name: nil, scope: .singleton) { Ledger() }
