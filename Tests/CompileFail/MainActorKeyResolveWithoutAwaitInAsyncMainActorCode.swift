// expected-error: expression is 'async' but is not marked with 'await'
import Knapsack

// In an async main-actor function, `resolve` picks the asynchronous form: write `await`, or use
// the subscript, which stays synchronous on the main actor.
@MainActor func mainActorKeyResolveWithoutAwait(_ container: Container) async throws {
  let _: ScreenModel = try container.resolve(\.screenModel)
}
