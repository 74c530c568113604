import Keys
import Knapsack

let container = Container()
API.register(in: container)
