// expected-error: a property wrapper cannot await: resolve an AsyncKey with `try await container.resolve(\.key)`
import Knapsack

final class NeedsRemoteProfileLater {
  @LazyInjected(\.remoteProfile, argument: 3) var profile: Store
}
