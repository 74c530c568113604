// expected-error: a multibinding takes no argument: make its handle with `lazy(\.key)`, and pass what an element needs to its key
// Without the unavailable overload, the compiler failed to produce a diagnostic for the call.
import Knapsack

func lazyOfMultibindingWithArgument(_ container: Container) throws {
  let _: [Store] = try container.lazy(\.plugins, argument: 1).value
}
