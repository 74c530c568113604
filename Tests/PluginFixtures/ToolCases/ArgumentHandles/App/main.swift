import Keys
import Knapsack

let container = Container()
let handle = container.lazy(\.inbox, argument: 5)
