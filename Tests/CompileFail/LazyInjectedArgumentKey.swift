// expected-error: a property wrapper has no argument to pass
import Knapsack

final class NeedsProfileLater {
  @LazyInjected(\.profile) var profile: Store
}
