// expected-error: 'shared' has been renamed to 'weak': Knapsack calls this scope .weak
// Factory's name for the scope. Without the unavailable member, the compiler said only that
// type 'Scope' has no member 'shared'.
import Knapsack

extension Dependencies {
  var sharedStore: Key<Store> { Key { Store() }.scope(.shared) }
}
