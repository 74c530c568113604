// expected-error: pass the argument with its label
import Knapsack

func argumentWithoutLabel(_ container: Container) throws {
  let _: Store = try container.resolve(\.profile, 1)
}
