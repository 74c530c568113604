import BaseKeys
import DerivedKeys
import Knapsack

let container = Container()
container.register(\.settings) { BaseConfig() }
container.register(\.settings) { DerivedConfig() }
