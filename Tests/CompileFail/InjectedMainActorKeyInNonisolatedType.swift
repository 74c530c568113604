// expected-error: main actor-isolated default value in a nonisolated context
import Knapsack

struct NonisolatedHolder {
  @Injected(\.screenModel) var screenModel: ScreenModel
}
