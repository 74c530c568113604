// Shared by every compile-fail snippet: the keys they misuse. scripts/compile-fail.sh
// type-checks each snippet together with this file against the built Knapsack module.
import Knapsack

final class Store: Sendable {}
final class ScreenModel: Sendable {}

extension Dependencies {
  var store: Key<Store> { Key { Store() } }
  var screenModel: MainActorKey<ScreenModel> { MainActorKey { _ in ScreenModel() } }
  var database: AsyncKey<Store> { AsyncKey { _ in Store() } }
  var profile: ArgumentKey<Int, Store> { ArgumentKey { _, _ in Store() } }
  var plugins: Multibinding<Store> { Multibinding() }
  var remoteProfile: DependencyKey<AsyncKind, Int, Store> { DependencyKey { _, _ in Store() } }
  var profileScreen: DependencyKey<MainActorKind, Int, ScreenModel> { DependencyKey { _, _ in ScreenModel() } }
}
