import DIShowcase

/// Draws a ``DependencyGraph`` as an SVG, left to right: each dependency sits one column to the
/// right of the rightmost dependency that resolves it. Made on the server, so the page needs no
/// script and no network.
struct GraphSVG {
  let graph: DependencyGraph
  /// The id of the arrowhead marker; each SVG on a page needs its own.
  var markerID = "arrow"

  private static let boxWidth = 250
  private static let boxHeight = 58
  private static let columnGap = 64
  private static let rowGap = 26
  private static let margin = 16

  var svg: String {
    let columns = columnsByName()
    var rows: [Int: Int] = [:]
    var positions: [String: (x: Int, y: Int)] = [:]
    for node in graph.nodes {
      let column = columns[node.dependency.name] ?? 0
      let row = rows[column, default: 0]
      rows[column] = row + 1
      positions[node.dependency.name] = (
        Self.margin + column * (Self.boxWidth + Self.columnGap),
        Self.margin + row * (Self.boxHeight + Self.rowGap)
      )
    }
    let columnCount = (columns.values.max() ?? 0) + 1
    let rowCount = max(rows.values.max() ?? 1, 1)
    let width = 2 * Self.margin + columnCount * Self.boxWidth + (columnCount - 1) * Self.columnGap
    let height = 2 * Self.margin + rowCount * Self.boxHeight + (rowCount - 1) * Self.rowGap

    var svg = """
      <svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" aria-label="Dependency graph" \
      viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)">
        <defs><marker id="\(markerID)" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" \
      orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#667085"/></marker></defs>

      """
    for edge in graph.edges {
      guard let from = positions[edge.from], let to = positions[edge.to] else { continue }
      let startX = from.x + Self.boxWidth
      let startY = from.y + Self.boxHeight / 2
      let endY = to.y + Self.boxHeight / 2
      svg += """
          <path class="edge" d="M \(startX) \(startY) C \(startX + Self.columnGap / 2) \(startY), \
        \(to.x - Self.columnGap / 2) \(endY), \(to.x) \(endY)" fill="none" stroke="#667085" \
        stroke-width="1.5" marker-end="url(#\(markerID))"/>

        """
    }
    for node in graph.nodes {
      guard let position = positions[node.dependency.name] else { continue }
      let missing = node.scope == nil
      let detail = [Self.shortened(node.dependency.typeName), node.scope?.description ?? "not provided"]
        .joined(separator: " · ")
      svg += """
          <g class="node\(missing ? " missing" : "")" data-name="\(HTML.escape(node.dependency.name))">
            <rect x="\(position.x)" y="\(position.y)" width="\(Self.boxWidth)" height="\(Self.boxHeight)" rx="8" \
        fill="\(missing ? "#fef3f2" : "#eef2ff")" stroke="\(missing ? "#d92d20" : "#3b5bdb")" \
        stroke-width="1.5"\(missing ? #" stroke-dasharray="5 4""# : "")/>
            <text x="\(position.x + 12)" y="\(position.y + 24)" font-size="15" font-weight="600" \
        fill="#1d2433">\(HTML.escape(node.dependency.name))</text>
            <text x="\(position.x + 12)" y="\(position.y + 44)" font-size="12.5" \
        fill="#475467">\(HTML.escape(detail))</text>
          </g>

        """
    }
    return svg + "</svg>\n"
  }

  /// Each node's column: one more than the deepest node that resolves it.
  private func columnsByName() -> [String: Int] {
    var columns: [String: Int] = [:]
    for node in graph.nodes { columns[node.dependency.name] = 0 }
    // Longest-path layering; the bound stops a cycle (which validation reports) from looping.
    for _ in 0..<graph.nodes.count {
      var changed = false
      for edge in graph.edges {
        let next = (columns[edge.from] ?? 0) + 1
        if next > columns[edge.to] ?? 0 {
          columns[edge.to] = next
          changed = true
        }
      }
      if !changed { break }
    }
    return columns
  }

  private static func shortened(_ typeName: String) -> String {
    typeName.count <= 30 ? typeName : String(typeName.prefix(29)) + "…"
  }
}
