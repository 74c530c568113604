// expected-error: a MainActorKey's factory runs synchronously on the main actor and cannot await
import Knapsack

func awaitingFactoryForMainActorKey(_ container: Container) {
  container.register(\.screenModel) { r in
    _ = try await r.resolve(\.database)
    return ScreenModel()
  }
}
