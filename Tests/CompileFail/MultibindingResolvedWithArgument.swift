// expected-error: a multibinding takes no argument
import Knapsack

func multibindingResolvedWithArgument(_ container: Container) throws {
  let _: [Store] = try container.resolve(\.plugins, argument: 1)
}
