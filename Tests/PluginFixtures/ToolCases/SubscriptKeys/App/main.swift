import Keys
import Knapsack

let container = Container()
// A subscript key: the remark says so, not that the key path is computed at run time.
container.register(\.[store: "main"]) { SQLStore(name: "main") }
