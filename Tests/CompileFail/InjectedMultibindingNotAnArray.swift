// expected-error: a multibinding resolves to the array of its elements: declare the property as `[Element]`
import Knapsack

final class NeedsOnePlugin {
  @Injected(\.plugins) var plugin: Store
  @LazyInjected(\.plugins) var laterPlugin: Store
}
