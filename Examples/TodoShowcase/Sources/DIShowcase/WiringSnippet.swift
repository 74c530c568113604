/// A region of a feature module's source, marked `// showcase:begin CAPTION` … `// showcase:end`,
/// read at build time by the `WiringSnippetsPlugin` (the constants in ``all`` are generated, never
/// committed). A tab shows its style's snippets, so the code on the page is the code the tab runs.
public struct WiringSnippet: Sendable, Hashable {
  /// The module the region is in, such as `KnapsackToDoList`.
  public let module: String
  /// The file, relative to the package root, such as `Sources/KnapsackToDoList/TodoListAssembly.swift`.
  public let path: String
  /// The line of the region's first line of code (the line after the `begin` marker).
  public let line: Int
  /// The text after `// showcase:begin`.
  public let caption: String
  /// The lines between the markers, without their common indentation.
  public let code: String

  /// Creates a snippet; the generated file calls this.
  public init(module: String, path: String, line: Int, caption: String, code: String) {
    self.module = module
    self.path = path
    self.line = line
    self.caption = caption
    self.code = code
  }
}

extension Showcase {
  /// The module that wires each style, by style id.
  public static let moduleByStyleID: [String: String] = [
    ManualDIToDoListFactory.style.id: "ManualDIToDoList",
    DependencyProviderToDoListFactory.style.id: "DependencyProviderToDoList",
    KnapsackToDoListFactory.style.id: "KnapsackToDoList",
    ThirdPartyDIToDoListFactory.style.id: "ThirdPartyDIToDoList",
  ]

  /// The wiring a style's tab runs: the marked regions of its module, in file and line order.
  public static func wiring(styleID: String) -> [WiringSnippet] {
    guard let module = moduleByStyleID[styleID] else { return [] }
    return WiringSnippet.all.filter { $0.module == module }
  }
}
