public import Common

/// The to-do list wired by hand: each object gets what it needs through its initializer.
///
/// No container, no registration, no lookup: the composition is the code below. It is the
/// baseline the other styles are measured against.
public enum ManualDIToDoListFactory {
  public static let style = DIStyle(
    id: "manual",
    name: "Manual DI",
    summary:
      "Plain constructor injection: the factory builds the view model with the app's storage and hands it to the screen. No container at all.",
    gives: "Every dependency is visible in the initializer; the compiler checks the whole graph.",
    costs: "Every new dependency is threaded by hand through each layer between the root and its user.",
    pickWhen: "Small apps and modules, or wherever a reader should see the whole graph in one function."
  )

  // showcase:begin Composition root and the whole chain: each initializer called by hand
  /// Makes the list screen on `storage`.
  public static func make(storage: any LocalStorage) -> TodoListScreen {
    let viewModel = LiveTodoListViewModel(storage: storage)
    return TodoListScreen(style: style, viewModel: viewModel)
  }
  // showcase:end
}
