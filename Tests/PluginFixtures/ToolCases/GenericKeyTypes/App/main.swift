import Knapsack

let container = Container()
container.register(\.screen) { _, id in Profile(id: id) }
