// expected-error: pass the argument with its label
import Knapsack

func asyncArgumentWithoutLabel(_ container: Container) async throws {
  let _: Store = try await container.resolve(\.remoteProfile, 1)
}
