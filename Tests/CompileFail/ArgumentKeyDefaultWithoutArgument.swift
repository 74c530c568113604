// expected-error: this key takes an argument: its factory receives it too
import Knapsack

extension Dependencies {
  var profileWithoutArgument: ArgumentKey<Int, Store> { ArgumentKey { _ in Store() } }
  var profileWithNothing: ArgumentKey<Int, Store> { ArgumentKey { Store() } }
}
