// expected-error: 'resolve()' is unavailable: say which type to resolve
import Knapsack

func typeNotNamed(_ container: Container) throws {
  let value = try container.resolve()
  print(value)
}
