// expected-error: this key takes an argument: its factory receives it too
// An asynchronous or main-actor key that takes an argument, like an ArgumentKey: without the
// unavailable initializers, the compiler found no exact match in the call to the initializer.
import Knapsack

extension Dependencies {
  var remoteProfileWithoutArgument: DependencyKey<AsyncKind, Int, Store> { DependencyKey { _ in Store() } }
  var remoteProfileWithNothing: DependencyKey<AsyncKind, Int, Store> { DependencyKey { Store() } }
  var profileScreenWithoutArgument: DependencyKey<MainActorKind, Int, ScreenModel> {
    DependencyKey { _ in ScreenModel() }
  }
  var profileScreenWithNothing: DependencyKey<MainActorKind, Int, ScreenModel> { DependencyKey { ScreenModel() } }
}
