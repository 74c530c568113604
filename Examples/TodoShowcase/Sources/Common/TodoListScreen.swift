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

  /// One page of the list as an HTML fragment, with links to the first and the next page.
  ///
  /// - Parameters:
  ///   - page: The page, from ``TodoListViewModel/loadPage(after:limit:)``.
  ///   - isFirst: Whether this is the first page (no link back to it then).
  ///   - link: The address of the page after a cursor, or of the first page for `nil`.
  ///   - returnTo: The path the forms go back to after a change.
  ///   - error: A message to show above the list.
  ///   - typedTitle: The text to put back in the add field, such as a title that was refused.
  public func render(
    page: TodoPage,
    isFirst: Bool,
    link: (TodoCursor?) -> String,
    returnTo: String,
    error: String? = nil,
    typedTitle: String? = nil
  ) -> String {
    TodoListView(
      style: style,
      items: page.items,
      returnTo: returnTo,
      error: error,
      typedTitle: typedTitle,
      pager: .init(
        total: page.total,
        done: page.done,
        first: isFirst ? nil : link(nil),
        next: page.next.map { link($0) }
      )
    ).html
  }
}
