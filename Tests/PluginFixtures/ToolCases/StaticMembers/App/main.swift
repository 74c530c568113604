import Keys
import Knapsack

let container = Container()
print(try container[\.count])
