import Knapsack

let container = Container()
container.register(\.header) { "Bearer" }
