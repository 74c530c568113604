import Keys
import Knapsack

let container = Container()
container.register(type: Settings.self, scope: .singleton) { Settings() }
/// A cached board made with `.init`, qualified by its module: captive too.
container.register(\.board, scope: .cached) { Keys.Dashboard.init() }
/// A factory given as the initializer: its properties are followed too.
container.register(\.pinnedBoard, scope: .singleton, Dashboard.init)
