// expected-error: missing argument label 'type:' in call
import Knapsack

func typeWithoutLabel(_ container: Container) throws {
  let _ = try container.resolve(Store.self, name: "main")
}
