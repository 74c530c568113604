import Feature
import Keys
import Knapsack

struct DiskStorage: LocalStorage {}

let container = Container()
container.register(\.storage, scope: .singleton) { DiskStorage() }
container.register(type: Clock.self, name: "wall", scope: .singleton) { Clock() }
API.register(in: container)
/// A singleton screen that keeps a singleton logger: nothing captive.
container.register(\.todoScreen, scope: .singleton) { Feature.TodoScreen.init() }
