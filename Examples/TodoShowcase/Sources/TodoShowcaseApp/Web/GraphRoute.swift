import DIShowcase
import Hummingbird

/// `GET /graph`: the app container's dependency graph (drawn as SVG, with its Mermaid and DOT
/// sources) and its `validate()` report.
struct GraphRoute {
  let server: ShowcaseServer

  func add(to router: Router<BasicRequestContext>) {
    router.get("/graph") { _, _ in
      let body = await body()
      return htmlResponse(
        Layout.page(
          title: "Dependency graph",
          section: .graph,
          storageLabel: server.storageLabel,
          body: body
        )
      )
    }
  }

  private func body() async -> String {
    let graph = await server.showcase.dependencyGraph()
    let withoutAssembly = await Showcase.validationWithoutAssembly()
    return """
      <section class="panel" id="graph">
        <h2>Dependency graph</h2>
        <p class="summary">The app's Knapsack container (<code>Container(assemblies: [TodoListAssembly(storage:)])</code>), \
      from <code>await container.graph(including: [\\.todoListScreen])</code>: a dry run that makes no instance.</p>
        <div class="graph-frame">
      \(GraphSVG(graph: graph).svg)  </div>
        <details><summary>Mermaid</summary><pre id="graph-mermaid">\(HTML.escape(graph.mermaid))</pre></details>
        <details><summary>Graphviz DOT</summary><pre id="graph-dot">\(HTML.escape(graph.dot))</pre></details>
      </section>
      <section class="panel" id="validation">
        <h2>Validation</h2>
        <p class="\(graph.report.isValid ? "valid" : "error")">\(graph.report.isValid ? "✓ Valid" : "✗ Problems found")</p>
        <pre id="validation-report">\(HTML.escape(graph.report.description))</pre>
      </section>
      <section class="panel" id="validation-missing">
        <h2>The same keys without the assembly</h2>
        <p class="summary">What <code>await Container().validate(including: [\\.todoListScreen])</code> reports \
      when an app forgets to install <code>TodoListAssembly</code>: found before the first request.</p>
        <pre id="validation-missing-report">\(HTML.escape(withoutAssembly.description))</pre>
      </section>

      """
  }
}
