/// The dependency graph of a container, as a dry run saw it: see ``Container/graph(including:arguments:)``.
///
/// Nodes and edges are sorted, so the exports are deterministic and can be snapshot-tested.
public struct DependencyGraph: Sendable, Hashable, Codable {
  /// One dependency.
  public struct Node: Sendable, Hashable, Codable, Comparable {
    /// The dependency.
    public let dependency: DependencyReference
    /// The scope of the registration that serves it, or nil if nothing provides it.
    public let scope: Scope?
    /// Where it was registered, or nil for a key's default.
    public let registeredAt: CodeLocation?

    init(dependency: DependencyReference, scope: Scope?, registeredAt: CodeLocation?) {
      self.dependency = dependency
      self.scope = scope
      self.registeredAt = registeredAt
    }

    /// The type name, unless the dependency is named after its type (a type registration): what
    /// the exports print under the name.
    var typeLine: String? { dependency.typeName == dependency.name ? nil : dependency.typeName }

    /// Orders nodes by name.
    public static func < (lhs: Node, rhs: Node) -> Bool { lhs.dependency.name < rhs.dependency.name }
  }

  /// "`from` resolves `to`".
  public struct Edge: Sendable, Hashable, Codable, Comparable {
    /// The dependency whose factory asks.
    public let from: String
    /// The dependency it asks for.
    public let to: String

    /// Creates an edge between two dependency names.
    public init(from: String, to: String) {
      self.from = from
      self.to = to
    }

    /// Orders edges by their ends.
    public static func < (lhs: Edge, rhs: Edge) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
  }

  /// Every dependency, sorted by name.
  public let nodes: [Node]
  /// Every edge, sorted.
  public let edges: [Edge]
  /// The problems the dry run found (the same as ``Container/validate(including:arguments:)`` reports).
  public let report: ValidationReport

  init(nodes: [Node], edges: [Edge], report: ValidationReport) {
    self.nodes = nodes.sorted()
    self.edges = Array(Set(edges)).sorted()
    self.report = report
  }

  /// The graph of a dry run: its `roots` (each with the scope and site of what serves it, nil
  /// scope if nothing does), what its resolutions resolved (`events`), the paths of the report's
  /// problems, and the edges no resolution recorded (`handles`: who made a `Lazy` or `Provider`
  /// to what, and a multibinding's contributions).
  init(
    events: [ResolutionEvent], report: ValidationReport,
    roots: [(DependencyReference, scope: Scope?, registeredAt: CodeLocation?)],
    handles: [(from: DependencyReference, to: DependencyReference)] = []
  ) {
    let problems = report.problems
    var nodes: [String: Node] = [:]
    for (reference, scope, registeredAt) in roots {
      nodes[reference.name] = Node(dependency: reference, scope: scope, registeredAt: registeredAt)
    }
    var edges: [Edge] = []
    for event in events {
      nodes[event.dependency.name] = Node(
        dependency: event.dependency, scope: event.scope, registeredAt: event.registeredAt)
      if let requester = event.requestedBy { edges.append(Edge(from: requester.name, to: event.dependency.name)) }
    }
    for problem in problems {
      for reference in problem.path where nodes[reference.name] == nil {
        nodes[reference.name] = Node(dependency: reference, scope: nil, registeredAt: nil)
      }
      for (from, to) in zip(problem.path, problem.path.dropFirst()) { edges.append(Edge(from: from.name, to: to.name)) }
    }
    edges += handles.map { Edge(from: $0.from.name, to: $0.to.name) }
    self.init(nodes: Array(nodes.values), edges: edges, report: report)
  }

  /// The graph in Graphviz DOT: `dot -Tsvg graph.dot > graph.svg`. Dependencies nothing
  /// provides are dashed and red.
  public var dot: String {
    var lines = ["digraph Knapsack {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];"]
    for node in nodes {
      let label = [node.dependency.name, node.typeLine, node.scope?.description ?? "not provided"]
        .compactMap { $0 }.map(Self.dotEscaped).joined(separator: "\\n")
      let style = node.scope == nil ? ", style=dashed, color=red" : ""
      lines.append("  \"\(Self.dotEscaped(node.dependency.name))\" [label=\"\(label)\"\(style)];")
    }
    for edge in edges {
      lines.append("  \"\(Self.dotEscaped(edge.from))\" -> \"\(Self.dotEscaped(edge.to))\";")
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The graph as a Mermaid flowchart, for Markdown and web pages. Dependencies nothing
  /// provides use the class `missing`.
  public var mermaid: String {
    var ids: [String: String] = [:]
    for (offset, node) in nodes.enumerated() { ids[node.dependency.name] = "n\(offset)" }
    var lines = ["graph LR"]
    for node in nodes {
      let scope = node.scope?.description ?? "not provided"
      // Each line escaped on its own: a `<br/>` in a name is text, not a break.
      let label =
        Self.mermaidEscaped(node.dependency.name) + "<br/>"
        + Self.mermaidEscaped("\(node.typeLine.map { "\($0) · " } ?? "")\(scope)")
      lines.append("  \(ids[node.dependency.name] ?? "")[\"\(label)\"]")
    }
    for edge in edges {
      guard let from = ids[edge.from], let to = ids[edge.to] else { continue }
      lines.append("  \(from) --> \(to)")
    }
    let missing = nodes.filter { $0.scope == nil }.compactMap { ids[$0.dependency.name] }
    if !missing.isEmpty {
      lines.append("  classDef missing stroke:#c00,stroke-dasharray:4 4")
      lines.append("  class \(missing.joined(separator: ",")) missing")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Text inside a DOT string: a line break in a name (a registration's `name:` may hold one)
  /// becomes DOT's own `\n`, so that each statement stays on its line.
  private static func dotEscaped(_ text: String) -> String {
    text.replacingOccurrences("\\", with: "\\\\").replacingOccurrences("\"", with: "\\\"")
      .replacingOccurrences("\r\n", with: "\\n").replacingOccurrences("\n", with: "\\n")
      .replacingOccurrences("\r", with: "\\n")
  }

  /// Text inside a Mermaid label; a line break in a name becomes the label's `<br/>`.
  private static func mermaidEscaped(_ text: String) -> String {
    text.replacingOccurrences("\"", with: "#quot;").replacingOccurrences("<", with: "#lt;")
      .replacingOccurrences(">", with: "#gt;").replacingOccurrences("\r\n", with: "<br/>").replacingOccurrences(
        "\n", with: "<br/>"
      )
      .replacingOccurrences("\r", with: "<br/>")
  }
}
