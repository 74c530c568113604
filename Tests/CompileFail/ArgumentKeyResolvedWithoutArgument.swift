// expected-error: this key takes an argument: pass it, `resolve(\.key, argument: value)`
import Knapsack

func argumentKeyResolvedWithoutArgument(_ container: Container) throws {
  let _: Store = try container.resolve(\.profile)
}
