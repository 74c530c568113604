import Foundation
import Knapsack
import Testing

// Found by using the library as a new user would, in a five-module app outside the repository.

final class H1Node: Sendable {
  let child: H1Node?
  init(child: H1Node?) { self.child = child }
}

struct H1Sink: Sendable { let name: String }
@MainActor final class H1Panel: Sendable {}

struct H1DiskFull: Error, CustomStringConvertible { var description: String { "disk full" } }
final class H1Closing: Disposable {
  func dispose() async throws { throw H1DiskFull() }
}

extension Dependencies {
  var h1Sinks: Multibinding<H1Sink> { Multibinding() }
  var h1AsyncSinks: AsyncMultibinding<H1Sink> { AsyncMultibinding() }
  var h1Panels: MainActorMultibinding<H1Panel> { MainActorMultibinding() }
  var h1NoSinks: Multibinding<H1Sink> { Multibinding() }
  var h1SinkName: Key<String> { Key { "console" } }
  var h1ClosingPerUser: ArgumentKey<Int, H1Closing> { ArgumentKey { _, _ in H1Closing() }.scope(.singleton) }
  var h1Closing: Key<H1Closing> { Key { H1Closing() }.scope(.singleton) }
  subscript(h1Plugin id: Int) -> Key<H1Sink> { .required() }
  subscript(h1Plugin id: Int, _ group: String) -> Key<H1Sink> { .required() }
  /// Walks down from its argument, then asks for 1 again: a cycle that starts mid-path.
  var h1Countdown: ArgumentKey<Int, H1Node> {
    ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Countdown, argument: n > 1 ? n - 1 : 1)) }
  }
  var h1Ping: ArgumentKey<Int, H1Node> { ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Pong, argument: n)) } }
  var h1Pong: ArgumentKey<Int, H1Node> { ArgumentKey { r, n in H1Node(child: try r.resolve(\.h1Ping, argument: n)) } }
}

@Suite struct HuntH1Tests {
  /// A decoded error says what the error said: the arguments its path's steps were made for
  /// included. Without them, `\.h1Countdown(3) → \.h1Countdown(2) → \.h1Countdown(1) →
  /// \.h1Countdown(1)` decoded as four equal steps, a loop from the first.
  @Test func aDecodedErrorKeepsTheArgumentsOfItsPath() throws {
    let container = Container()
    let countdown = try #require(throws: ResolutionError.self) { try container.resolve(\.h1Countdown, argument: 3) }
    #expect(countdown.description.contains("\\.h1Countdown(1) → \\.h1Countdown(1) (reached from"), "\(countdown)")
    let pingPong = try #require(throws: ResolutionError.self) { try container.resolve(\.h1Ping, argument: 7) }
    for error in [countdown, pingPong] {
      let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
      #expect(decoded == error)
      #expect(decoded.description == error.description)
      #expect(decoded.pathDescription == error.pathDescription)
      // Encoded again, it still says the same.
      let again = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(decoded))
      #expect(again.description == error.description)
    }
  }

  /// A multibinding named in `graph(including:)` is drawn as what it is, the array of its
  /// contributions, with an edge to each: it was drawn as "not provided" (dashed, red, the
  /// `missing` class) with no edge, in a graph whose report found no problem.
  @Test func aMultibindingNamedInTheGraphIsProvidedAndLeadsToItsContributions() async throws {
    let container = Container()
    container.contribute(to: \.h1Sinks) { r in H1Sink(name: try r[\.h1SinkName]) }
    container.contribute(to: \.h1Sinks, scope: .singleton) { H1Sink(name: "file") }
    container.contribute(to: \.h1AsyncSinks) { () async throws in H1Sink(name: "server") }
    container.contribute(to: \.h1Panels) { H1Panel() }
    let graph = await container.graph(including: [\.h1Sinks, \.h1AsyncSinks, \.h1Panels, \.h1NoSinks])
    #expect(graph.report.isValid, "\(graph.report)")
    for name in ["\\.h1Sinks", "\\.h1AsyncSinks", "\\.h1Panels", "\\.h1NoSinks"] {
      let node = try #require(graph.nodes.first { $0.dependency.name == name }, "\(graph.nodes)")
      #expect(node.scope == .unique, "\(name)")
      #expect(node.registeredAt == nil)
    }
    let contributionsOf = { (name: String) in graph.edges.filter { $0.from == name }.map(\.to) }
    #expect(contributionsOf("\\.h1Sinks").count == 2, "\(graph.edges)")
    #expect(contributionsOf("\\.h1Sinks").allSatisfy { $0.hasPrefix("\\.h1Sinks contribution (") })
    #expect(contributionsOf("\\.h1AsyncSinks").count == 1)
    #expect(contributionsOf("\\.h1Panels").count == 1)
    #expect(contributionsOf("\\.h1NoSinks").isEmpty)
    #expect(!graph.mermaid.contains("missing"), "\(graph.mermaid)")
    #expect(!graph.dot.contains("not provided"), "\(graph.dot)")
    // What the multibinding's resolution records agrees: drawn the same when a key resolves it.
    let resolved = try container[\.h1Sinks]
    #expect(resolved.map(\.name) == ["console", "file"])
  }

  /// The fix of a required key declared as a subscript spells it as code does, `\.[label: ...]`:
  /// it read `container.register(\.subscript(h1Plugin:)) { ... }`, which does not compile.
  @Test func aRequiredSubscriptKeysFixSpellsTheSubscript() async throws {
    let container = Container()
    let one = try #require(throws: ResolutionError.self) { try container[\.[h1Plugin: 3]] }
    #expect(one.dependency.name.hasPrefix("\\.subscript(h1Plugin:)"), "\(one)")
    #expect(
      one.description.contains(
        "fix: register it at the composition root, `container.register(\\.[h1Plugin: ...]) { ... }`, or in a test,"
          + " `withOverrides { $0.register(\\.[h1Plugin: ...]) { ... } } operation: { ... }`."), "\(one)")
    let two = try #require(throws: ResolutionError.self) { try container[\.[h1Plugin: 4, "main"]] }
    #expect(two.dependency.name.hasPrefix("\\.subscript(h1Plugin:_:)"), "\(two)")
    #expect(two.description.contains("`container.register(\\.[h1Plugin: ..., ...]) { ... }`"), "\(two)")
    // A decoded error says the same.
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(two))
    #expect(decoded.description == two.description)
    // What it suggests compiles, with the argument in place of `...`.
    container.register(\.[h1Plugin: 3]) { H1Sink(name: "three") }
    #expect(try container[\.[h1Plugin: 3]].name == "three")
  }

  /// A disposal failure of an argument key's instance names its argument, as a path does: one
  /// key keeps an instance per argument, and two failures read `\.h1ClosingPerUser: disk full`
  /// twice, which could not be told apart.
  @Test func aDisposalFailureNamesTheArgumentOfItsInstance() async throws {
    let container = Container()
    _ = try container.resolve(\.h1ClosingPerUser, argument: 7)
    _ = try container.resolve(\.h1ClosingPerUser, argument: 8)
    _ = try container[\.h1Closing]
    let error = try await #require(throws: DisposalError.self) { try await container.dispose() }
    #expect(
      error.failures.map(\.description) == [
        "\\.h1Closing: disk full", "\\.h1ClosingPerUser(8): disk full", "\\.h1ClosingPerUser(7): disk full",
      ], "\(error)")
    #expect(error.failures.allSatisfy { $0.dependency.name.hasPrefix("\\.h1Closing") })
  }
}
