// expected-error: this key takes no argument: call `provider.get()`
import Knapsack

func multibindingProviderWithArgument(_ container: Container) throws {
  let _: [Store] = try container.provider(\.plugins).get(1)
}
