// expected-error: this key takes an argument: pass it when the handle is made, `lazy(\.key, argument: value)`
import Knapsack

func lazyOfArgumentKey(_ container: Container) throws {
  let _: Store = try container.lazy(\.profile).value
}
