public import Common
import Foundation
import Swinject

/// The to-do list wired by Swinject 2.10, the long-standing third-party container, for comparison.
///
/// Registration is by type; `resolve` returns an optional that every call site has to unwrap,
/// and a missing registration is only found when the screen is made.
public enum ThirdPartyDIToDoListFactory {
  public static let style = DIStyle(
    id: "swinject",
    name: "Swinject",
    summary:
      "A Swinject Container registers the storage, clock, view model and screen by type and resolves the screen; each resolve returns an optional."
  )

  /// A clock, registered by type so the view model's initializer can resolve it.
  private struct Clock {
    let now: @Sendable () -> Date
  }

  /// Makes the list screen on `storage`.
  public static func make(storage: any LocalStorage) -> TodoListScreen {
    let container = Container()
    container.register((any LocalStorage).self) { _ in storage }
      .inObjectScope(.container)
    container.register(Clock.self) { _ in Clock(now: Date.init) }
    container.register((any TodoListViewModel).self) { resolver in
      LiveTodoListViewModel(
        storage: resolver.resolve((any LocalStorage).self)!,
        now: resolver.resolve(Clock.self)!.now
      )
    }
    container.register(TodoListScreen.self) { resolver in
      TodoListScreen(style: style, viewModel: resolver.resolve((any TodoListViewModel).self)!)
    }
    guard let screen = container.resolve(TodoListScreen.self) else {
      preconditionFailure("Swinject could not resolve TodoListScreen: a registration is missing.")
    }
    return screen
  }
}
