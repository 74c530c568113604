// expected-error: value of type 'Dependencies' has no member 'stroe'
import Knapsack

func misspeltKeyInResolve(_ container: Container) throws {
  let _: Store = try container.resolve(\.stroe)
}
