// expected-error: a property wrapper cannot await: resolve an AsyncMultibinding with `try await container.resolve(\.key)`
import Knapsack

extension Dependencies {
  var remotePlugins: AsyncMultibinding<Store> { AsyncMultibinding() }
}

final class NeedsRemotePlugins {
  @Injected(\.remotePlugins) var plugins: [Store]
  @LazyInjected(\.remotePlugins) var laterPlugins: [Store]
}
