import Keys
import Knapsack

let container = Container()
container.contribute(to: \.sinks, scope: .singleton) { _ in ConsoleSink() }
