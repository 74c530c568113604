// expected-error: main actor-isolated default value in a nonisolated context
import Knapsack

final class NonisolatedLazyHolder {
  @LazyInjected(\.screenModel) var screenModel: ScreenModel
}
