// expected-error: only a multibinding (Multibinding<Element>) takes contributions
import Knapsack

func contributionWithoutResolverToAKey(_ container: Container) {
  container.contribute(to: \.store) { Store() }
}
