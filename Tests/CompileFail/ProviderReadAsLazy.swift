// expected-error: a Provider resolves its key each time: call `get()`
import Knapsack

func providerReadAsLazy(_ container: Container) throws {
  let _: Store = try container.provider(\.store).value
}
