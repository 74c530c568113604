// expected-error: only a multibinding (Multibinding<Element>) takes contributions
import Knapsack

func contributionToAKey(_ container: Container) {
  container.contribute(to: \.store) { _ in Store() }
}
