// expected-error: a key needs no name: its key path tells it apart; resolve it with `resolve(\.key)`
// Without the unavailable overload, the compiler asked for the `type:` label of a type resolution.
import Knapsack

func namedKeyResolution(_ container: Container) throws {
  let _: Store = try container.resolve(\.store, name: "main")
  let _: [Store] = try container.resolve(\.plugins, name: "main")
}
