// expected-error: a registered type takes no argument: declare a key that takes one
// Without the unavailable overload, the compiler found no exact match in the call to `resolve`.
import Knapsack

func typeResolvedWithArgument(_ container: Container) throws {
  let _: Store = try container.resolve(type: Store.self, argument: 7)
}
