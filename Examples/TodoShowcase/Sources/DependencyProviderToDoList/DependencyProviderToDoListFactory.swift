public import Common
import Foundation
public import Knapsack

/// The to-do list in the provider style: the screen pulls its view model from a
/// ``DependencyProvider``, which is implemented on a Knapsack container.
public enum DependencyProviderToDoListFactory {
  public static let style = DIStyle(
    id: "provider",
    name: "DependencyProvider",
    summary:
      "The screen asks a hand-rolled DependencyProvider for its view model by type; the provider is a Knapsack Container with type-based registrations.",
    gives: "Screens stay decoupled from how things are built: one resolve<T>() call, no initializer plumbing.",
    costs: "The dependencies are hidden in the body; a missing registration is found when the screen is made.",
    pickWhen: "You already have a provider protocol (as in the seed app) and want scopes and clear errors behind it."
  )

  /// Makes the list screen on `storage`.
  ///
  /// - Throws: Knapsack's `ResolutionError` if a registration is missing.
  public static func make(storage: any LocalStorage) throws -> TodoListScreen {
    try make(provider: makeProvider(storage: storage))
  }

  /// The provider the composition root hands to the screen: a Knapsack container.
  static func makeProvider(storage: any LocalStorage) -> any DependencyProvider {
    makeContainer(storage: storage)
  }

  // showcase:begin Composition root: a Knapsack Container, registrations by type
  /// The composition root's side: the app's storage, a clock and the view model, registered by type.
  public static func makeContainer(storage: any LocalStorage) -> Container {
    let container = Container()
    container.register(type: (any LocalStorage).self, scope: .singleton) { storage }
    container.register(type: (@Sendable () -> Date).self) { { Date() } }
    container.register(type: (any TodoListViewModel).self) { resolver in
      LiveTodoListViewModel(
        storage: try resolver.resolve(),
        now: try resolver.resolve()
      )
    }
    return container
  }
  // showcase:end

  // showcase:begin The chain: the screen asks the provider for its view model by type
  /// The screen's side of the style: everything it needs comes from `provider`.
  static func make(provider: any DependencyProvider) throws -> TodoListScreen {
    TodoListScreen(style: style, viewModel: try provider.resolve() as any TodoListViewModel)
  }
  // showcase:end
}
