// expected-error: this key takes an argument: pass it, `@Injected(\.key, argument: value)`
import Knapsack

final class NeedsProfile {
  @Injected(\.profile) var profile: Store
}
