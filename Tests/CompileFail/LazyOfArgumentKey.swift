// expected-error: a Lazy resolves its key without an argument, and this key takes one
import Knapsack

func lazyOfArgumentKey(_ container: Container) throws {
  let _: Store = try container.lazy(\.profile).value
}
