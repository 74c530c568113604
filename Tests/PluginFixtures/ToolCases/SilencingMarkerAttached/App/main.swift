import Keys
import Knapsack

let container = Container()
