import Keys
import Knapsack

let container = Container()
container.register(type: SQLStore.self, scope: .singleton) { SQLStore() }
container.register(type: (any Store).self) { r in try r.resolve(type: SQLStore.self) }
