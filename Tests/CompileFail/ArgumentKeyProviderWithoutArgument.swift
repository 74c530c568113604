// expected-error: 'get()' is unavailable: this key takes an argument: pass it, `provider.get(argument)`
import Knapsack

func argumentKeyProviderWithoutArgument(_ container: Container) throws {
  let _: Store = try container.provider(\.profile).get()
}
