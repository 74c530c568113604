// expected-error: 'resolve(_:name:)' has been renamed to 'resolve(type:name:)'
import Knapsack

func typeWithoutLabel(_ container: Container) throws {
  let _ = try container.resolve(Store.self, name: "main")
}
