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
      "A Swinject Container registers the storage, clock, view model and screen by type and resolves the screen; each resolve returns an optional.",
    gives: "A mature, widely known container: registration by type, object scopes, assemblies.",
    costs: "Optional results to unwrap at every resolve, no compile-time or start-up check of the graph.",
    pickWhen: "An existing codebase already built on Swinject; not as the first choice for new Swift 6 code."
  )

  /// A clock, registered by type so the view model's initializer can resolve it.
  private struct Clock {
    let now: @Sendable () -> Date
  }

  // showcase:begin Composition root: a Swinject Container, registrations by type
  /// The container: the app's storage, a clock, the view model and the screen, by type.
  static func makeContainer(storage: any LocalStorage) -> Container {
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
    return container
  }
  // showcase:end

  // showcase:begin The chain: resolve the screen, which resolves (and unwraps) the rest
  /// Makes the list screen on `storage`.
  public static func make(storage: any LocalStorage) -> TodoListScreen {
    let container = makeContainer(storage: storage)
    guard let screen = container.resolve(TodoListScreen.self) else {
      preconditionFailure("Swinject could not resolve TodoListScreen: a registration is missing.")
    }
    return screen
  }
  // showcase:end

  /// What the container registers, one line per registration, as Swinject describes it
  /// (service type, factory and object scope).
  public static func registrations(storage: any LocalStorage) -> [String] {
    String(describing: makeContainer(storage: storage))
      .split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("{") }
      .map { line in
        var text = line.hasSuffix(",") ? String(line.dropLast()) : line
        text = text.hasPrefix("{ ") ? String(text.dropFirst(2)) : text
        return text.hasSuffix(" }") ? String(text.dropLast(2)) : text
      }
      .sorted()
  }
}
