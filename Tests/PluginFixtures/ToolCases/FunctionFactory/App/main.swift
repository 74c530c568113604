import Knapsack

let container = Container()
container.register(\.clock, scope: .singleton, SystemClock.init)
