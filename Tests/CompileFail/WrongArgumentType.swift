// expected-error: cannot convert value of type 'String' to expected argument type 'Int'
import Knapsack

func wrongArgumentType(_ container: Container) throws {
  let _: Store = try container.resolve(\.profile, argument: "seven")
}
