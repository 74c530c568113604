// expected-error: a Key's factory cannot await: declare the key as AsyncKey<Value>
import Knapsack

extension Dependencies {
  var awaitingCount: Key<Int> {
    Key {
      try await Task.sleep(for: .milliseconds(1))
      return 1
    }
  }
}
