import Knapsack

let container = Container()
container.register(\.default) { 1 }
container.register(\.`api token`) { "t" }
