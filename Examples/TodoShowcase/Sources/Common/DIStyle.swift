/// One way of wiring the to-do list, as shown on its tab.
public struct DIStyle: Sendable, Hashable, Identifiable {
  /// The path component of the style's page, such as `manual` in `/styles/manual`.
  public let id: String
  /// The tab title, such as "Manual DI".
  public let name: String
  /// One or two sentences on how the style wires the screen.
  public let summary: String
  /// One line: what the style gives you.
  public let gives: String
  /// One line: what the style costs.
  public let costs: String
  /// One line: when to pick it.
  public let pickWhen: String

  /// Creates a style; each feature module's factory declares its own.
  public init(id: String, name: String, summary: String, gives: String, costs: String, pickWhen: String) {
    self.id = id
    self.name = name
    self.summary = summary
    self.gives = gives
    self.costs = costs
    self.pickWhen = pickWhen
  }
}
