// expected-error: expression is 'async' but is not marked with 'await'
import Knapsack

func asyncKeyWithoutAwait(_ container: Container) async throws {
  let _: Store = try container.resolve(\.database)
}
