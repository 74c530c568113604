import Keys
import Knapsack

let container = Container()
container.register(\.settings) { SettingsScreen() }
