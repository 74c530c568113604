import Keys
import Knapsack

let container = Container()
// The key path spelt with its module: still the key \.storage.
container.register(\Knapsack.Dependencies.storage) { "memory" }
