// expected-error: a property wrapper has no argument to pass
import Knapsack

final class NeedsProfile {
  @Injected(\.profile) var profile: Store
}
