// expected-error: call to main actor-isolated instance method 'resolve(_:fileID:line:)' in a synchronous nonisolated context
import Knapsack

func mainActorKeyFromNonisolatedCode(_ container: Container) throws {
  let _: ScreenModel = try container.resolve(\.screenModel)
}
