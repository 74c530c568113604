import DIShowcase
import Hummingbird

/// `GET /graph`: the app container's dependency graph (drawn as SVG, with its Mermaid and DOT
/// sources), a legend, its `validate()` report, the same graph broken on purpose, and what the
/// other styles register, so the four can be compared.
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
    let report = await server.showcase.validation()
    let broken = await Showcase.brokenOnPurpose()
    return """
      <section class="panel" id="graph">
        <h2>Dependency graph</h2>
        <p class="summary">The app's Knapsack container (<code>Container(assemblies: [TodoListAssembly(storage:)])</code>), \
      from <code>await container.graph(including: [\\.todoListScreen])</code>: a dry run that makes no instance.</p>
        <div class="graph-frame" tabindex="0" role="group" aria-label="Graph; scrolls sideways on a narrow screen">
      \(GraphSVG(graph: graph).svg)  </div>
        <details><summary>Mermaid</summary><pre id="graph-mermaid">\(HTML.escape(graph.mermaid))</pre></details>
        <details><summary>Graphviz DOT</summary><pre id="graph-dot">\(HTML.escape(graph.dot))</pre></details>
      </section>
      \(Self.legend)
      <section class="panel" id="validation">
        <h2>Validation</h2>
        <p class="summary">What <code>await container.validate(including: [\\.todoListScreen])</code> reports for the \
      live container: every registration and the root key resolved in a throw-away copy.</p>
        <p class="\(report.isValid ? "valid" : "error")">\(report.isValid ? "✓ Valid" : "✗ Problems found")</p>
        <pre id="validation-report">\(HTML.escape(report.description))</pre>
      </section>
      <section class="panel" id="broken">
        <h2>Broken on purpose: the storage registration removed</h2>
        <p class="summary">A second container, <code>Container(assemblies: [])</code>: the same keys without \
      <code>TodoListAssembly</code>, so nothing registers <code>\\.todoStorage</code>. The live container above is \
      not touched. <code>validate()</code> finds the hole before the first request, and names the key, where it \
      is declared and the path that needs it.</p>
        <p class="summary">Drawn by <code>await broken.graph(including: [\\.todoListScreen, \\.todoClock])</code>. A dry \
      run stops a factory at the first dependency that fails: <code>\\.todoListViewModel</code> asks for \
      <code>\\.todoStorage</code> before <code>\\.todoClock</code>, so the clock is named in <code>including:</code> \
      to show the same keys as the live graph, and no arrow leads to it here.</p>
        <div class="graph-frame" tabindex="0" role="group" aria-label="Graph; scrolls sideways on a narrow screen">
      \(GraphSVG(graph: broken.graph, markerID: "arrow-broken").svg)  </div>
        <p class="\(broken.report.isValid ? "valid" : "error")">\(broken.report.isValid ? "✓ Valid" : "✗ Problems found")</p>
        <pre id="broken-report">\(HTML.escape(broken.report.description))</pre>
      </section>
      \(await compared())
      """
  }

  /// What the four styles register, side by side.
  private func compared() async -> String {
    let providerGraph = await server.showcase.providerGraph()
    var providerItems = ""
    for node in providerGraph.nodes {
      let scope = node.scope?.description ?? "not provided"
      providerItems += "      <li>\(HTML.escape(node.dependency.name)) · \(HTML.escape(scope))</li>\n"
    }
    var swinjectItems = ""
    for line in server.showcase.swinjectRegistrations() {
      swinjectItems += "      <li>\(HTML.escape(line))</li>\n"
    }
    return """
      <section class="panel" id="styles-compared">
        <h2>The four styles compared</h2>
        <h3 id="compare-manual">Manual DI</h3>
        <p>No container and nothing registered: the graph is the code of \
      <code>ManualDIToDoListFactory.make(storage:)</code> (<a href="/?tab=manual">see the Manual DI tab</a>). \
      The compiler checks it; there is nothing to validate at run time.</p>
        <h3 id="compare-provider">DependencyProvider</h3>
        <p>A Knapsack <code>Container</code> behind the seed app's <code>DependencyProvider</code> protocol, \
      registered by type; <code>await container.graph()</code> lists:</p>
        <div class="graph-frame" tabindex="0" role="group" aria-label="Graph; scrolls sideways on a narrow screen">
      \(GraphSVG(graph: providerGraph, markerID: "arrow-provider").svg)  </div>
        <ul class="registrations" id="provider-registrations">
      \(providerItems)    </ul>
        <h3 id="compare-knapsack">Knapsack</h3>
        <p>Typed keys on <code>Dependencies</code> and one assembly: the graph at the top of this page.</p>
        <h3 id="compare-swinject">Swinject</h3>
        <p>Swinject has no graph or validation; its <code>Container</code> describes what is registered:</p>
        <ul class="registrations" id="swinject-registrations">
      \(swinjectItems)    </ul>
      </section>

      """
  }

  /// What the boxes, labels and arrows mean.
  static let legend = """
    <section class="panel" id="legend">
      <h2>Legend</h2>
      <h3>Boxes and arrows</h3>
      <dl class="legend">
        <dt><svg class="legend-swatch" width="44" height="20" viewBox="0 0 44 20" aria-hidden="true">\
    <rect x="1" y="1" width="42" height="18" rx="4" fill="#eef2ff" stroke="#3b5bdb" stroke-width="1.5"/></svg></dt>
        <dd>A dependency: its key (such as <code>\\.todoStorage</code>) or, for a registration by type, its type; \
    under it the type and the scope that serves it.</dd>
        <dt><svg class="legend-swatch" width="44" height="20" viewBox="0 0 44 20" aria-hidden="true">\
    <rect x="1" y="1" width="42" height="18" rx="4" fill="#fef3f2" stroke="#d92d20" stroke-width="1.5" \
    stroke-dasharray="5 4"/></svg></dt>
        <dd>Not provided: something asks for it and nothing registers it (a <code>.required()</code> key with no \
    registration). <code>validate()</code> reports it.</dd>
        <dt>A → B</dt>
        <dd>A's factory resolves B: B is made (or taken from its scope) while A is made. Columns read left to right, \
    from the root the app resolves to the leaves.</dd>
      </dl>
      <h3>Scopes</h3>
      <dl class="legend">
        <dt>unique</dt><dd>A new instance on every resolution (the default).</dd>
        <dt>graph</dt><dd>Shared within one top-level resolution, then dropped.</dd>
        <dt>weak</dt><dd>Shared while something else holds it, then released (class instances only).</dd>
        <dt>cached</dt><dd>One per container until <code>resetCached()</code> clears it.</dd>
        <dt>singleton</dt><dd>One per container, made on first use, exactly once.</dd>
      </dl>
      <h3>Kinds of key</h3>
      <dl class="legend">
        <dt>Key&lt;T&gt;</dt><dd>A synchronous factory: <code>Key { r in T(y: try r[\\.y]) }</code>.</dd>
        <dt>.required()</dt><dd>A key with no default: the app must register it (here <code>\\.todoStorage</code>).</dd>
        <dt>AsyncKey&lt;T&gt;</dt><dd>A factory that awaits; resolved with <code>await</code>.</dd>
        <dt>MainActorKey&lt;T&gt;</dt><dd>A factory that runs on the main actor.</dd>
        <dt>ArgumentKey&lt;A, T&gt;</dt><dd>A factory that takes an argument at resolution.</dd>
        <dt>Multibinding&lt;E&gt;</dt><dd>Many contributions collected into one list.</dd>
        <dt>register(type:)</dt><dd>A registration by type (the DependencyProvider tab): named after its type.</dd>
      </dl>
    </section>
    """
}
