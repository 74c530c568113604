// expected-error: a multibinding takes no argument: write `@Injected(\.key)`, and pass what an element needs to its key
// expected-error: a multibinding takes no argument: write `@LazyInjected(\.key)`, and pass what an element needs to its key
import Knapsack

final class NeedsPluginsForOneProfile {
  @Injected(\.plugins, argument: 1) var plugins: [Store]
  @LazyInjected(\.plugins, argument: 1) var laterPlugins: [Store]
}
