// expected-error: a Multibinding's contributions cannot await
import Knapsack

func awaitingContributionToMultibinding(_ container: Container) {
  container.contribute(to: \.plugins) { r in try await r.resolve(\.database) }
}
