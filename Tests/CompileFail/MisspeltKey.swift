// expected-error: value of type 'Dependencies' has no member 'stroe'
import Knapsack

func misspeltKey(_ container: Container) throws {
  let _: Store = try container[\.stroe]
}
