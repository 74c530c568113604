// expected-error: a MainActorKey's factory runs synchronously on the main actor and cannot await
import Knapsack

extension Dependencies {
  var awaitingBadge: MainActorKey<Int> {
    MainActorKey {
      try await Task.sleep(for: .milliseconds(1))
      return 1
    }
  }
}
