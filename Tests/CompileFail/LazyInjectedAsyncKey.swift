// expected-error: a property wrapper cannot await: resolve an AsyncKey with `try await container.resolve(\.key)`
import Knapsack

final class NeedsDatabaseLater {
  @LazyInjected(\.database) var database: Store
}
