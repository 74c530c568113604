// expected-error: a Multibinding's contributions cannot await
import Knapsack

func awaitingContributionWithoutResolver(_ container: Container) {
  container.contribute(to: \.plugins) { await makeStore() }
}

func makeStore() async -> Store { Store() }
