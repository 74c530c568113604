// expected-error: value of type 'Dependencies' has no member 'databse'
import Knapsack

func misspeltAsyncKeyInResolve(_ container: Container) async throws {
  let _: Store = try await container.resolve(\.databse)
}
