// expected-error: cannot be sent into main actor-isolated context in call to subscript 'subscript(_:fileID:line:)'
import Knapsack

// With `await`, the compiler names the key path that cannot go to the main actor. Outside the
// main actor, a main-actor key is resolved with `try await container.resolve(\.key)`.
func mainActorKeyAwaitedSubscriptFromNonisolatedAsyncCode(_ container: Container) async throws {
  let _: ScreenModel = try await container[\.screenModel]
}
