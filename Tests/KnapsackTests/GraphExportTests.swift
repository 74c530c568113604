import Foundation
import Knapsack
import Testing

protocol GxStore: Sendable {}
final class GxMemoryStore: GxStore {}
final class GxLogger: Sendable {}
final class GxClock: Sendable {}
final class GxSink: Sendable {}
final class GxBox<Wrapped>: Sendable {}

final class GxRepository: Sendable {
  let store: any GxStore
  let logger: GxLogger
  init(store: any GxStore, logger: GxLogger) {
    self.store = store
    self.logger = logger
  }
}

final class GxApp: Sendable {
  let repository: GxRepository
  let clock: GxClock
  init(repository: GxRepository, clock: GxClock) {
    self.repository = repository
    self.clock = clock
  }
}

final class GxReporter: Sendable {
  let sink: GxSink
  init(sink: GxSink) { self.sink = sink }
}

extension Dependencies {
  var gxApp: Key<GxApp> { .required() }
  // The only dependency served by its key's default: the graph shows no registration site.
  var gxRepository: Key<GxRepository> {
    Key { r in GxRepository(store: try r[\.gxStore], logger: try r.resolve(type: GxLogger.self)) }.scope(.singleton)
  }
  var gxStore: Key<any GxStore> { .required() }
  var gxClock: Key<GxClock> { .required() }
  var gxReporter: Key<GxReporter> { .required() }
  var gxMissingSink: Key<GxSink> { .required() }
  var gxLabel: Key<String> { .required() }
  var gxPlugins: Multibinding<Int> { Multibinding() }
  var gxPluginUser: Key<String> { .required() }
}

private let file = "KnapsackTests/GraphExportTests.swift"

/// The lines where `knownGraph` registered each dependency.
private struct KnownGraph {
  let container: Container
  let lines: [String: Int]
}

/// app → repository (default, singleton) → store, logger; app → clock; reporter → a missing sink.
private func knownGraph(reversed: Bool = false) -> KnownGraph {
  let container = Container()
  var lines: [String: Int] = [:]
  var steps: [() -> Void] = [
    {
      lines["\\.gxApp"] = #line + 1
      container.register(\.gxApp) { r in GxApp(repository: try r[\.gxRepository], clock: try r[\.gxClock]) }
    },
    {
      lines["\\.gxStore"] = #line + 1
      container.register(\.gxStore, scope: .singleton) { GxMemoryStore() }
    },
    {
      lines["\\.gxClock"] = #line + 1
      container.register(\.gxClock) { GxClock() }
    },
    {
      lines["GxLogger"] = #line + 1
      container.register(type: GxLogger.self, scope: .singleton) { GxLogger() }
    },
    {
      lines["\\.gxReporter"] = #line + 1
      container.register(\.gxReporter) { r in GxReporter(sink: try r[\.gxMissingSink]) }
    },
  ]
  if reversed { steps.reverse() }
  for step in steps { step() }
  return KnownGraph(container: container, lines: lines)
}

private let expectedDOT = #"""
  digraph Knapsack {
    rankdir=LR;
    node [shape=box, fontname="Helvetica"];
    "GxLogger" [label="GxLogger\nsingleton"];
    "\\.gxApp" [label="\\.gxApp\nGxApp\nunique"];
    "\\.gxClock" [label="\\.gxClock\nGxClock\nunique"];
    "\\.gxMissingSink" [label="\\.gxMissingSink\nGxSink\nnot provided", style=dashed, color=red];
    "\\.gxReporter" [label="\\.gxReporter\nGxReporter\nunique"];
    "\\.gxRepository" [label="\\.gxRepository\nGxRepository\nsingleton"];
    "\\.gxStore" [label="\\.gxStore\nany GxStore\nsingleton"];
    "\\.gxApp" -> "\\.gxClock";
    "\\.gxApp" -> "\\.gxRepository";
    "\\.gxReporter" -> "\\.gxMissingSink";
    "\\.gxRepository" -> "GxLogger";
    "\\.gxRepository" -> "\\.gxStore";
  }

  """#

private let expectedMermaid = #"""
  graph LR
    n0["GxLogger<br/>singleton"]
    n1["\.gxApp<br/>GxApp · unique"]
    n2["\.gxClock<br/>GxClock · unique"]
    n3["\.gxMissingSink<br/>GxSink · not provided"]
    n4["\.gxReporter<br/>GxReporter · unique"]
    n5["\.gxRepository<br/>GxRepository · singleton"]
    n6["\.gxStore<br/>any GxStore · singleton"]
    n1 --> n2
    n1 --> n5
    n4 --> n3
    n5 --> n0
    n5 --> n6
    classDef missing stroke:#c00,stroke-dasharray:4 4
    class n3 missing

  """#

@Suite struct GraphExportTests {
  @Test func dotExportMatchesTheSnapshot() async {
    let dot = await knownGraph().container.graph().dot
    #expect(dot == expectedDOT, "\n\(dot)")
  }

  @Test func mermaidExportMatchesTheSnapshot() async {
    let mermaid = await knownGraph().container.graph().mermaid
    #expect(mermaid == expectedMermaid, "\n\(mermaid)")
  }

  @Test func nodesNameTheirScopeAndRegistrationSite() async throws {
    let known = knownGraph()
    let nodes = await known.container.graph().nodes
    #expect(
      nodes.map(\.dependency.name) == [
        "GxLogger", "\\.gxApp", "\\.gxClock", "\\.gxMissingSink", "\\.gxReporter", "\\.gxRepository", "\\.gxStore",
      ])
    for node in nodes {
      if let line = known.lines[node.dependency.name] {
        #expect(node.registeredAt == CodeLocation(fileID: file, line: line), "\(node.dependency.name)")
      } else {
        // The key default and the missing key have no registration.
        #expect(node.registeredAt == nil, "\(node.dependency.name)")
      }
    }
    let scopes = Dictionary(uniqueKeysWithValues: nodes.map { ($0.dependency.name, $0.scope) })
    #expect(scopes["\\.gxApp"] == .unique)
    #expect(scopes["\\.gxRepository"] == .singleton)
    #expect(scopes["\\.gxStore"] == .singleton)
    #expect(scopes["GxLogger"] == .singleton)
    #expect(scopes["\\.gxMissingSink"] == .some(nil))
    #expect(nodes.first { $0.dependency.name == "\\.gxStore" }?.dependency.typeName == "any GxStore")
  }

  @Test func edgesAreTheResolutionsTheDryRunMade() async {
    let edges = await knownGraph().container.graph().edges
    #expect(
      edges == [
        .init(from: "\\.gxApp", to: "\\.gxClock"),
        .init(from: "\\.gxApp", to: "\\.gxRepository"),
        .init(from: "\\.gxReporter", to: "\\.gxMissingSink"),
        .init(from: "\\.gxRepository", to: "GxLogger"),
        .init(from: "\\.gxRepository", to: "\\.gxStore"),
      ])
  }

  @Test func edgesFollowWhatFactoriesReallyResolve() async {
    let container = Container()
    // A factory that asks for the label only on one branch: the dry run records what it did.
    container.register(\.gxClock) { GxClock() }
    container.register(\.gxApp) { r in
      GxApp(repository: GxRepository(store: GxMemoryStore(), logger: GxLogger()), clock: try r[\.gxClock])
    }
    let graph = await container.graph()
    #expect(graph.edges == [.init(from: "\\.gxApp", to: "\\.gxClock")])
    #expect(!graph.nodes.contains { $0.dependency.name == "\\.gxRepository" })
  }

  @Test func graphCarriesTheValidationReport() async {
    let container = knownGraph().container
    let graph = await container.graph()
    #expect(await graph.report == container.validate())
    #expect(graph.report.problems.map(\.kind) == [.requiredKeyNotProvided])
    #expect(graph.report.problems.first?.dependency.name == "\\.gxMissingSink")
  }

  @Test func exportsAreDeterministic() async {
    let container = knownGraph().container
    let first = await container.graph()
    let second = await container.graph()
    #expect(first == second)
    #expect(first.dot == second.dot)
    #expect(first.mermaid == second.mermaid)
  }

  @Test func registrationOrderDoesNotChangeTheExports() async {
    let forward = await knownGraph().container.graph()
    let backward = await knownGraph(reversed: true).container.graph()
    #expect(forward.dot == backward.dot)
    #expect(forward.mermaid == backward.mermaid)
    #expect(forward.edges == backward.edges)
    #expect(forward.nodes.map(\.dependency) == backward.nodes.map(\.dependency))
  }

  @Test func graphRoundTripsThroughJSON() async throws {
    let graph = await knownGraph().container.graph()
    let decoded = try JSONDecoder().decode(DependencyGraph.self, from: JSONEncoder().encode(graph))
    #expect(decoded == graph)
    #expect(decoded.dot == graph.dot)
  }

  @Test func anEmptyContainerHasAnEmptyGraph() async {
    let graph = await Container().graph()
    #expect(graph.nodes.isEmpty)
    #expect(graph.edges.isEmpty)
    #expect(graph.dot == "digraph Knapsack {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n}\n")
    #expect(graph.mermaid == "graph LR\n")
  }

  @Test func namesAreEscapedInBothFormats() async {
    let container = Container()
    container.register(type: GxLogger.self, name: "say \"hi\"") { GxLogger() }
    container.register(type: GxBox<Int>.self) { GxBox<Int>() }
    let graph = await container.graph()
    #expect(
      graph.dot.contains(
        #""GxLogger (name: \"say \\\"hi\\\"\")" [label="GxLogger (name: \"say \\\"hi\\\"\")\nGxLogger\nunique"];"#))
    #expect(graph.dot.contains(#""GxBox<Int>" [label="GxBox<Int>\nunique"];"#))
    #expect(graph.mermaid.contains(##"["GxLogger (name: #quot;say \#quot;hi\#quot;#quot;)<br/>GxLogger · unique"]"##))
    #expect(graph.mermaid.contains(#"["GxBox#lt;Int#gt;<br/>unique"]"#))
    // A `<br/>` in a name is text, not a line break.
    let tagged = Container()
    tagged.register(type: GxLogger.self, name: "a<br/>b") { GxLogger() }
    #expect(await tagged.graph().mermaid.contains("a#lt;br/#gt;b"))
    // No raw quote is left inside a Mermaid label.
    for line in graph.mermaid.split(separator: "\n") where line.contains("[\"") {
      let label = line.drop { $0 != "[" }.dropFirst(2).dropLast(2)
      #expect(!label.contains("\""), "\(line)")
    }
  }

  @Test func multibindingKeysAreNodesBetweenTheirUsersAndContributions() async throws {
    let container = Container()
    let line = #line + 1
    container.contribute(to: \.gxPlugins) { _ in 1 }
    container.register(\.gxPluginUser) { r in "\(try r[\.gxPlugins])" }
    let graph = await container.graph()
    let contribution = "\\.gxPlugins contribution (\(file):\(line))"
    let names = graph.nodes.map(\.dependency.name)
    #expect(names.contains("\\.gxPlugins"), "\(names)")
    #expect(names.contains(contribution), "\(names)")
    #expect(graph.edges.contains(.init(from: "\\.gxPluginUser", to: "\\.gxPlugins")), "\(graph.edges)")
    #expect(graph.edges.contains(.init(from: "\\.gxPlugins", to: contribution)), "\(graph.edges)")
    // Every edge joins two nodes, so Mermaid, which needs both ends, drops none.
    for edge in graph.edges {
      #expect(names.contains(edge.from) && names.contains(edge.to), "\(edge)")
    }
    #expect(graph.mermaid.components(separatedBy: " --> ").count - 1 == graph.edges.count, "\n\(graph.mermaid)")
  }

  @Test func childGraphIncludesTheParentsRegistrations() async {
    let parent = Container()
    parent.register(\.gxClock, scope: .singleton) { GxClock() }
    let child = parent.makeChild()
    child.register(\.gxLabel) { "session" }
    let names = await child.graph().nodes.map(\.dependency.name)
    #expect(names == ["\\.gxClock", "\\.gxLabel"])
    #expect(await parent.graph().nodes.map(\.dependency.name) == ["\\.gxClock"])
  }

  @Test func aLineBreakInANameKeepsEachStatementOnItsLine() async throws {
    let container = Container()
    container.register(type: String.self, name: "two\nlines") { "text" }
    container.register(type: Int.self, name: "crlf\r\nname") { r in
      try r.resolve(type: String.self, name: "two\nlines").count
    }
    let graph = await container.graph()
    let dot = graph.dot
    // Every line of the DOT text is a whole statement. A name is spelt as a Swift string literal
    // (`"two\nlines"`, as in a message), whose backslash DOT's text escapes.
    #expect(dot.contains(#"two\\nlines"#), "\(dot)")
    #expect(dot.contains(#"crlf\\r\\nname"#), "\(dot)")
    #expect(!dot.split(separator: "\n").contains { $0.hasPrefix("lines") || $0.hasPrefix("name") }, "\(dot)")
    let mermaid = graph.mermaid
    #expect(mermaid.contains(#"two\nlines"#), "\(mermaid)")
    #expect(mermaid.contains(#"crlf\r\nname"#), "\(mermaid)")
    #expect(!mermaid.contains("two<br/>"), "\(mermaid)")
    #expect(!mermaid.split(separator: "\n").contains { $0.hasPrefix("lines") || $0.hasPrefix("name") }, "\(mermaid)")
  }
}
