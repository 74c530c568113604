import DIShowcase
import Hummingbird

/// `GET /graph`: the Knapsack container's dependency graph and its validation report.
struct GraphRoute {
  let server: ShowcaseServer

  func add(to router: Router<BasicRequestContext>) {
    router.get("/graph") { _, _ in
      htmlResponse(
        Layout.page(
          title: "Dependency graph",
          section: .graph,
          storageLabel: server.storageLabel,
          body: body()
        )
      )
    }
  }

  private func body() -> String {
    // PENDING(graph tools): render `container.graph()` and `validate()` here once the core has them.
    """
    <section class="panel pending" id="graph">
      <h2>Dependency graph</h2>
      <p>The Knapsack container's graph and validation report appear here once the graph tools land.</p>
    </section>
    """
  }
}
