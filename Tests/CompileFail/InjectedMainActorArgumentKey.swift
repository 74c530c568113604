// expected-error: this key takes an argument: pass it, `@Injected(\.key, argument: value)`
import Knapsack

@MainActor final class NeedsProfileScreen {
  @Injected(\.profileScreen) var profileScreen: ScreenModel
}
