// expected-error: this key takes an argument: its factory receives it too, `{ r, argument in ... }`
// An asynchronous or main-actor key that takes an argument, like an ArgumentKey: without the
// unavailable overloads, the compiler found no exact match in the call to `register`.
import Knapsack

func asyncAndMainActorArgumentKeyFactoryWithoutArgument(_ container: Container) {
  container.register(\.remoteProfile) { _ in Store() }
  container.register(\.remoteProfile) { Store() }
  container.register(\.profileScreen) { _ in ScreenModel() }
  container.register(\.profileScreen) { ScreenModel() }
}
