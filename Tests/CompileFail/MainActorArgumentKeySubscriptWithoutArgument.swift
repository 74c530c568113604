// expected-error: this key takes an argument: resolve it with `resolve(\.key, argument: value)`
import Knapsack

@MainActor func mainActorArgumentKeySubscriptWithoutArgument(_ container: Container) throws {
  let _: ScreenModel = try container[\.profileScreen]
}
