public import Common
public import Knapsack

/// The to-do list wired by Knapsack: typed keys, an assembly, an override scope, `@Injected`.
public enum KnapsackToDoListFactory {
  public static let style = DIStyle(
    id: "knapsack",
    name: "Knapsack",
    summary:
      "Typed keys on Dependencies, a TodoListAssembly for the app's storage, and @Injected in the screen model, all inside a task-local override scope: nothing global is changed.",
    gives:
      "Typed keys checked by the compiler, scopes, validate() and a graph before the first request, overrides without globals.",
    costs: "A library to learn, and a key to declare per dependency; resolution goes through a container.",
    pickWhen: "Many modules share dependencies, and you want the graph checked and tests that override one piece."
  )

  // showcase:begin Composition root: install the assembly in an override scope, resolve with @Injected
  /// Makes the list screen on `storage`.
  ///
  /// The storage is installed with ``TodoListAssembly`` into an override scope that only this
  /// call sees, and ``ScreenModel``'s `@Injected` property resolves from it. Concurrent calls
  /// with different storages (parallel requests, parallel tests) never see each other's.
  public static func make(storage: any LocalStorage) -> TodoListScreen {
    withOverrides {
      $0.install([TodoListAssembly(storage: storage)])
    } operation: {
      ScreenModel().screen
    }
  }

  /// What an app's screen holder looks like with property injection.
  struct ScreenModel {
    @Injected(\.todoListScreen) var screen: TodoListScreen
  }
  // showcase:end

  /// Makes the list screen from an app's container, which must provide `\.todoStorage`.
  ///
  /// - Throws: `ResolutionError` naming the missing key if it does not.
  public static func make(container: Container) throws -> TodoListScreen {
    try container[\.todoListScreen]
  }
}
