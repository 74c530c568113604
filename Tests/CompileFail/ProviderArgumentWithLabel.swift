// expected-error: a provider takes its argument without a label: `provider.get(value)`
import Knapsack

func providerArgumentWithLabel(_ container: Container) throws {
  let _: Store = try container.provider(\.profile).get(argument: 3)
}
