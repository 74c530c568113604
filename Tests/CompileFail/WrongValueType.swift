// expected-error: cannot convert value of type 'Store' to specified type 'Int'
import Knapsack

func wrongValueType(_ container: Container) throws {
  let _: Int = try container.resolve(\.store)
}
