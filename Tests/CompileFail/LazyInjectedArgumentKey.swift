// expected-error: this key takes an argument: pass it, `@LazyInjected(\.key, argument: value)`
import Knapsack

final class NeedsProfileLater {
  @LazyInjected(\.profile) var profile: Store
}
