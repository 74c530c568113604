// expected-error: 'decorate(_:fileID:line:_:)' is unavailable: a multibinding has no decorator: wrap each element in the contribution that makes it
import Knapsack

func decoratedMultibinding(_ container: Container) {
  container.decorate(\.plugins) { _, plugins in plugins }
}
