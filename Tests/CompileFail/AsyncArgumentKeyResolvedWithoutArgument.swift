// expected-error: this key takes an argument: pass it, `resolve(\.key, argument: value)`
import Knapsack

func asyncArgumentKeyResolvedWithoutArgument(_ container: Container) async throws {
  let _: Store = try await container.resolve(\.remoteProfile)
}
