import DIShowcase
import Foundation
import HummingbirdTesting
import Testing

/// A region of a source file between `// showcase:begin CAPTION` and `// showcase:end`, read
/// here independently of the build-time extractor, straight from the file on disk.
private struct SourceRegion {
  var caption: String
  var code: String
}

/// The package root, found from this file's path.
private let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The marked regions of every Swift file of `module`, in path and line order.
private func sourceRegions(module: String) throws -> [SourceRegion] {
  let directory = packageRoot.appending(path: "Sources/\(module)")
  let files = try FileManager.default.contentsOfDirectory(atPath: directory.path())
    .filter { $0.hasSuffix(".swift") }.sorted()
  var regions: [SourceRegion] = []
  for file in files {
    let text = try String(contentsOf: directory.appending(path: file), encoding: .utf8)
    var current: (caption: String, lines: [String])?
    for line in text.components(separatedBy: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("// showcase:begin ") {
        current = (String(trimmed.dropFirst("// showcase:begin ".count)), [])
      } else if trimmed == "// showcase:end", let open = current {
        let indent =
          open.lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
          .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        let code = open.lines.map { String($0.dropFirst(indent)) }.joined(separator: "\n")
        regions.append(SourceRegion(caption: open.caption, code: code))
        current = nil
      } else if current != nil {
        current?.lines.append(line)
      }
    }
  }
  return regions
}

@Suite("Each tab teaches its style")
struct TeachingTests {
  static let modules = [
    "manual": "ManualDIToDoList", "provider": "DependencyProviderToDoList", "knapsack": "KnapsackToDoList",
    "swinject": "ThirdPartyDIToDoList",
  ]

  @Test("A tab shows exactly the wiring regions of its module's source", arguments: modules.keys.sorted())
  func wiringMatchesSource(id: String) async throws {
    let module = try #require(Self.modules[id])
    let regions = try sourceRegions(module: module)
    #expect(!regions.isEmpty, "\(module) marks no // showcase:begin region")
    try await withApp { client in
      for path in ["/?tab=\(id)", "/styles/\(id)"] {
        let page = try await client.send(.get, path).text
        let shown = page.components(separatedBy: #"<figure class="wiring""#).count - 1
        #expect(shown == regions.count, "\(path) shows \(shown) snippets, the source marks \(regions.count)")
        for region in regions {
          #expect(page.contains("<figcaption>\(HTML.escape(region.caption)) <span class=\"source\">Sources/\(module)/"))
          #expect(
            page.contains("<pre><code>\(HTML.escape(region.code))</code></pre>"),
            "\(path) does not show, escaped, the region “\(region.caption)” of \(module)")
        }
      }
    }
  }

  @Test("The DependencyProvider tab shows the seeds' protocol and its Knapsack-backed conformance")
  func providerIsKnapsackBacked() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/?tab=provider").text
      #expect(page.contains("public protocol DependencyProvider {"))
      #expect(page.contains("extension Container: DependencyProvider {}"))
      #expect(page.contains("Sources/DependencyProviderToDoList/KnapsackDependencyProvider.swift:"))
      #expect(page.contains("container.register(type: (any LocalStorage).self, scope: .singleton)"))
    }
  }

  @Test("Code is escaped: generic angle brackets never reach the page raw")
  func codeIsEscaped() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/?tab=knapsack").text
      #expect(page.contains("Key&lt;any LocalStorage&gt;"))
      #expect(!page.contains("Key<any LocalStorage>"))
    }
  }

  @Test("Each tab shows what its style gives, costs and when to pick it", arguments: Showcase.styles)
  func tradeOffs(style: DIStyle) async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/?tab=\(style.id)").text
      #expect(page.contains(#"<dd class="gives">\#(HTML.escape(style.gives))</dd>"#))
      #expect(page.contains(#"<dd class="costs">\#(HTML.escape(style.costs))</dd>"#))
      #expect(page.contains(#"<dd class="pick">\#(HTML.escape(style.pickWhen))</dd>"#))
      for line in [style.gives, style.costs, style.pickWhen] {
        #expect(!line.isEmpty && line.count <= 140, "“\(line)” is not one short line")
      }
    }
    #expect(Set(Showcase.styles.map(\.gives)).count == Showcase.styles.count)
  }

  @Test("Every list page has the shared-storage banner and loads the live-update script")
  func bannerAndScript() async throws {
    try await withApp { client in
      for (path, poll) in [
        ("/", "/?tab=manual"), ("/?tab=swinject", "/?tab=swinject"), ("/styles/provider", "/styles/provider"),
      ] {
        let page = try await client.send(.get, path).text
        #expect(page.contains(#"id="shared-banner""#))
        #expect(page.contains("All four tabs read and write the same <code>test</code> storage"))
        #expect(page.contains(#"<script src="/static/live.js" data-poll="\#(poll)" defer></script>"#))
        #expect(!page.contains("<script>"))
      }
      let script = try await client.send(.get, "/static/live.js")
      #expect(script.status == .ok)
      #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
      #expect(script.text.contains("DOMParser"))
      let css = try await client.send(.get, "/static/app.css").text
      #expect(css.contains("figure.wiring"))
    }
  }
}

@Suite("/graph explains itself")
struct GraphTeachingTests {
  @Test("The page has a legend of boxes, edges, scopes and kinds")
  func legend() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/graph").text
      let legend = try #require(page.components(separatedBy: #"<section class="panel" id="legend">"#).last)
      for term in ["A → B", "unique", "graph", "weak", "cached", "singleton", "Key&lt;T&gt;", ".required()"] {
        #expect(legend.contains("<dt>\(term)</dt>"), "the legend lacks \(term)")
      }
      #expect(legend.contains("Not provided"))
    }
  }

  @Test("The validation report is the live container's validate() result")
  func validation() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/graph").text
      let report = await Showcase(storage: InMemoryStorage()).validation()
      #expect(report.isValid)
      #expect(page.contains(#"<pre id="validation-report">\#(HTML.escape(report.description))</pre>"#))
    }
  }

  @Test("Broken on purpose: validate() names the missing storage, and the live container stays valid")
  func brokenOnPurpose() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/graph").text
      let broken = await Showcase.brokenOnPurpose()
      #expect(!broken.report.isValid)
      #expect(broken.report.problems.map(\.kind) == [.requiredKeyNotProvided])
      #expect(broken.report.problems.first?.dependency.name == #"\.todoStorage"#)
      #expect(page.contains(#"<pre id="broken-report">\#(HTML.escape(broken.report.description))</pre>"#))
      let section = try #require(page.components(separatedBy: #"id="broken">"#).last)
      #expect(section.contains(#"<g class="node missing" data-name="\.todoStorage">"#))
      // The same keys as the live graph, the clock included although the dry run stops before it.
      let live = await Showcase(storage: InMemoryStorage()).dependencyGraph()
      #expect(broken.graph.nodes.map(\.dependency.name) == live.nodes.map(\.dependency.name))
      #expect(broken.graph.nodes.count == 4)
      #expect(section.contains(#"<g class="node" data-name="\.todoClock">"#))
      #expect(section.contains("including: [\\.todoListScreen, \\.todoClock]"))
      // The live container was not changed by building the broken one.
      let again = try await client.send(.get, "/graph").text
      #expect(again.contains(#"<p class="valid">✓ Valid</p>"#))
      #expect(try await client.send(.get, "/?tab=knapsack").status == .ok)
    }
  }

  @Test("The other styles' registrations are listed: the provider's container and Swinject's")
  func registrationsCompared() async throws {
    try await withApp { client in
      let page = try await client.send(.get, "/graph").text
      let swinject = ThirdPartyDIToDoListFactory.registrations(storage: InMemoryStorage())
      #expect(swinject.count == 4)
      #expect(swinject.contains { $0.hasPrefix("Service: TodoListScreen") })
      for line in swinject {
        #expect(page.contains("<li>\(HTML.escape(line))</li>"))
      }
      let provider = try #require(page.components(separatedBy: #"id="provider-registrations">"#).last)
      #expect(provider.contains("LocalStorage"))
      #expect(provider.contains("TodoListViewModel"))
      for id in ["compare-manual", "compare-provider", "compare-knapsack", "compare-swinject"] {
        #expect(page.contains(#"id="\#(id)""#))
      }
    }
  }
}
