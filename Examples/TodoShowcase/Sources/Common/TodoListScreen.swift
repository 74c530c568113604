/// The to-do list screen: a style, a view model, and the HTML that shows them.
///
/// Every feature module's factory makes one of these; only the wiring behind the view model differs.
public struct TodoListScreen: Sendable {
  public let style: DIStyle
  public let viewModel: any TodoListViewModel

  public init(style: DIStyle, viewModel: any TodoListViewModel) {
    self.style = style
    self.viewModel = viewModel
  }

  /// Reads the items from storage.
  public func load() throws {
    try viewModel.load()
  }

  /// The screen as an HTML fragment (a `<section>`), with the items as of the last load or change.
  ///
  /// - Parameters:
  ///   - returnTo: The path the forms go back to after a change; the style's own page if `nil`.
  ///   - error: A message to show above the list, such as why an add was refused.
  public func render(returnTo: String? = nil, error: String? = nil) -> String {
    TodoListView(
      style: style,
      items: viewModel.items,
      returnTo: returnTo ?? "/styles/\(style.id)",
      error: error
    ).html
  }
}
