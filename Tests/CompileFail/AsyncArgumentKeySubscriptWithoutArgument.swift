// expected-error: this key takes an argument: resolve it with `try await resolve(\.key, argument: value)`
import Knapsack

func asyncArgumentKeySubscriptWithoutArgument(_ container: Container) async throws {
  let _: Store = try await container[\.remoteProfile]
}
