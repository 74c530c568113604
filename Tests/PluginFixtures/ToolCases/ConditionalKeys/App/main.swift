import Knapsack

let container = Container()
container.register(\.token) { "t" }
