// expected-error: this key takes an argument: pass it, `@LazyInjected(\.key, argument: value)`
import Knapsack

@MainActor final class NeedsProfileScreenLater {
  @LazyInjected(\.profileScreen) var profileScreen: ScreenModel
}
