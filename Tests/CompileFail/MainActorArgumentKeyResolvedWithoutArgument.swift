// expected-error: this key takes an argument: pass it, `resolve(\.key, argument: value)`
import Knapsack

@MainActor func mainActorArgumentKeyResolvedWithoutArgument(_ container: Container) throws {
  let _: ScreenModel = try container.resolve(\.profileScreen)
}
