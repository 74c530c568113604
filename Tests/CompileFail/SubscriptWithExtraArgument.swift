// expected-error: missing argument label 'fileID:' in subscript
import Knapsack

// The subscript's call-site parameters are labelled: a stray argument is not taken as the file.
func subscriptWithExtraArgument(_ container: Container) throws {
  let _: Store = try container[\.store, "main"]
}
