import Base
import Derived
import Knapsack

let container = Container()
container.register(\.settings) { Base.Config() }
container.register(\.settings) { Derived.Config() }
