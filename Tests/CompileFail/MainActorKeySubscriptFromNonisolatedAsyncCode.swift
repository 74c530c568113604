// expected-error: main actor-isolated subscript 'subscript(_:fileID:line:)' cannot be accessed from outside of the actor
import Knapsack

// Outside the main actor, a main-actor key is resolved with `try await container.resolve(\.key)`.
func mainActorKeySubscriptFromNonisolatedAsyncCode(_ container: Container) async throws {
  let _: ScreenModel = try container[\.screenModel]
}
