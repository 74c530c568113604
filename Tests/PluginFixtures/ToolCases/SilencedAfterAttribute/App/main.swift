import Knapsack

let container = Container()
