import Keys
import Knapsack

struct MemoryStore: Store {}

let container = Container()
container.register(type: Store.self) { MemoryStore() }
container.register(type: Swift.Int.self) { 3 }
container.register(type: Array<String>.self) { ["a"] }
container.register(type: Optional<Int>.self) { 3 }
container.register(type: Dictionary<String, String>.self) { [:] }
