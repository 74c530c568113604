import Feature
import Keys
import Knapsack

/// Makes a `Shell` in its initializer, in the app's module.
struct Root: Sendable {
  let shell: Shell
  init() { shell = Shell() }
}

extension Dependencies {
  /// `\.clock` resolves `\.shell`, which is fine; `\.root` makes a `Root` that makes a `Shell`:
  /// its cached instance keeps the header's unique session too.
  var root: Key<Root> { Key { Root() }.scope(.cached) }
}
