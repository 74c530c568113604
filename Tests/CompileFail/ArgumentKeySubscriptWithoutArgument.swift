// expected-error: this key takes an argument: resolve it with `resolve(\.key, argument: value)`
import Knapsack

func argumentKeySubscriptWithoutArgument(_ container: Container) throws {
  let _: Store = try container[\.profile]
}
