// expected-error: missing argument for parameter 'type' in call
import Knapsack

func namedTypeNotNamed(_ container: Container) throws {
  let _: Store = try container.resolve(name: "main")
}
