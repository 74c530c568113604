import Feature
import Knapsack

let container = Container()
