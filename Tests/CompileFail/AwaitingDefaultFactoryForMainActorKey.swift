// expected-error: a MainActorKey's factory runs synchronously on the main actor and cannot await
import Knapsack

extension Dependencies {
  var awaitingScreenModel: MainActorKey<ScreenModel> {
    MainActorKey { r in
      _ = try await r.resolve(\.database)
      return ScreenModel()
    }
  }
}
