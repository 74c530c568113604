public import Common
import Foundation
import Knapsack

/// The to-do list in the provider style: the screen pulls its view model from a
/// ``DependencyProvider``, which is implemented on a Knapsack container.
public enum DependencyProviderToDoListFactory {
  public static let style = DIStyle(
    id: "provider",
    name: "DependencyProvider",
    summary:
      "The screen asks a hand-rolled DependencyProvider for its view model by type; the provider is a Knapsack Container with type-based registrations."
  )

  /// Makes the list screen on `storage`.
  ///
  /// - Throws: Knapsack's `ResolutionError` if a registration is missing.
  public static func make(storage: any LocalStorage) throws -> TodoListScreen {
    try make(provider: makeProvider(storage: storage))
  }

  /// The screen's side of the style: everything it needs comes from `provider`.
  static func make(provider: any DependencyProvider) throws -> TodoListScreen {
    TodoListScreen(style: style, viewModel: try provider.resolve() as any TodoListViewModel)
  }

  /// The composition root's side: registrations by type.
  static func makeProvider(storage: any LocalStorage) -> any DependencyProvider {
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
}
