// expected-error: pass the argument with its label
import Knapsack

@MainActor func mainActorArgumentWithoutLabel(_ container: Container) async throws {
  let _: ScreenModel = try await container.resolve(\.profileScreen, 1)
  let _: ScreenModel = try container.resolve(\.profileScreen, 2)
}
