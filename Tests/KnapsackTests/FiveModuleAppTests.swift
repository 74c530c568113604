import Foundation
import Knapsack
import Testing

// What a new user meets in a five-module app: decoded errors that keep their path's arguments,
// multibindings named in the graph, the fix of a required subscript key, and disposal failures
// that name their instance's argument.

final class FieldNode: Sendable {
  let child: FieldNode?
  init(child: FieldNode?) { self.child = child }
}

struct FieldSink: Sendable { let name: String }
@MainActor final class FieldPanel: Sendable {}

struct FieldDiskFull: Error, CustomStringConvertible { var description: String { "disk full" } }
final class FieldClosing: Disposable {
  func dispose() async throws { throw FieldDiskFull() }
}

extension Dependencies {
  var fieldSinks: Multibinding<FieldSink> { Multibinding() }
  var fieldAsyncSinks: AsyncMultibinding<FieldSink> { AsyncMultibinding() }
  var fieldPanels: MainActorMultibinding<FieldPanel> { MainActorMultibinding() }
  var fieldNoSinks: Multibinding<FieldSink> { Multibinding() }
  var fieldSinkName: Key<String> { Key { "console" } }
  var fieldClosingPerUser: ArgumentKey<Int, FieldClosing> { ArgumentKey { _, _ in FieldClosing() }.scope(.singleton) }
  var fieldClosing: Key<FieldClosing> { Key { FieldClosing() }.scope(.singleton) }
  subscript(fieldPlugin id: Int) -> Key<FieldSink> { .required() }
  subscript(fieldPlugin id: Int, _ group: String) -> Key<FieldSink> { .required() }
  /// Walks down from its argument, then asks for 1 again: a cycle that starts mid-path.
  var fieldCountdown: ArgumentKey<Int, FieldNode> {
    ArgumentKey { r, n in FieldNode(child: try r.resolve(\.fieldCountdown, argument: n > 1 ? n - 1 : 1)) }
  }
  var fieldPing: ArgumentKey<Int, FieldNode> {
    ArgumentKey { r, n in FieldNode(child: try r.resolve(\.fieldPong, argument: n)) }
  }
  var fieldPong: ArgumentKey<Int, FieldNode> {
    ArgumentKey { r, n in FieldNode(child: try r.resolve(\.fieldPing, argument: n)) }
  }
}

@Suite struct FiveModuleAppTests {
  /// A decoded error says what the error said: the arguments its path's steps were made for
  /// included. Without them, `\.fieldCountdown(3) → \.fieldCountdown(2) → \.fieldCountdown(1) →
  /// \.fieldCountdown(1)` decoded as four equal steps, a loop from the first.
  @Test func aDecodedErrorKeepsTheArgumentsOfItsPath() throws {
    let container = Container()
    let countdown = try #require(throws: ResolutionError.self) { try container.resolve(\.fieldCountdown, argument: 3) }
    #expect(countdown.description.contains("\\.fieldCountdown(1) → \\.fieldCountdown(1) (reached from"), "\(countdown)")
    let pingPong = try #require(throws: ResolutionError.self) { try container.resolve(\.fieldPing, argument: 7) }
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
    container.contribute(to: \.fieldSinks) { r in FieldSink(name: try r[\.fieldSinkName]) }
    container.contribute(to: \.fieldSinks, scope: .singleton) { FieldSink(name: "file") }
    container.contribute(to: \.fieldAsyncSinks) { () async throws in FieldSink(name: "server") }
    container.contribute(to: \.fieldPanels) { FieldPanel() }
    let graph = await container.graph(including: [\.fieldSinks, \.fieldAsyncSinks, \.fieldPanels, \.fieldNoSinks])
    #expect(graph.report.isValid, "\(graph.report)")
    for name in ["\\.fieldSinks", "\\.fieldAsyncSinks", "\\.fieldPanels", "\\.fieldNoSinks"] {
      let node = try #require(graph.nodes.first { $0.dependency.name == name }, "\(graph.nodes)")
      #expect(node.scope == .unique, "\(name)")
      #expect(node.registeredAt == nil)
    }
    let contributionsOf = { (name: String) in graph.edges.filter { $0.from == name }.map(\.to) }
    #expect(contributionsOf("\\.fieldSinks").count == 2, "\(graph.edges)")
    #expect(contributionsOf("\\.fieldSinks").allSatisfy { $0.hasPrefix("\\.fieldSinks contribution (") })
    #expect(contributionsOf("\\.fieldAsyncSinks").count == 1)
    #expect(contributionsOf("\\.fieldPanels").count == 1)
    #expect(contributionsOf("\\.fieldNoSinks").isEmpty)
    #expect(!graph.mermaid.contains("missing"), "\(graph.mermaid)")
    #expect(!graph.dot.contains("not provided"), "\(graph.dot)")
    // What the multibinding's resolution records agrees: drawn the same when a key resolves it.
    let resolved = try container[\.fieldSinks]
    #expect(resolved.map(\.name) == ["console", "file"])
  }

  /// The fix of a required key declared as a subscript spells it as code does, `\.[label: ...]`:
  /// it read `container.register(\.subscript(fieldPlugin:)) { ... }`, which does not compile.
  @Test func aRequiredSubscriptKeysFixSpellsTheSubscript() async throws {
    let container = Container()
    let one = try #require(throws: ResolutionError.self) { try container[\.[fieldPlugin: 3]] }
    #expect(one.dependency.name.hasPrefix("\\.subscript(fieldPlugin:)"), "\(one)")
    #expect(
      one.description.contains(
        "fix: register it at the composition root, `container.register(\\.[fieldPlugin: ...]) { ... }`, or in a test,"
          + " `withOverrides { $0.register(\\.[fieldPlugin: ...]) { ... } } operation: { ... }`."), "\(one)")
    let two = try #require(throws: ResolutionError.self) { try container[\.[fieldPlugin: 4, "main"]] }
    #expect(two.dependency.name.hasPrefix("\\.subscript(fieldPlugin:_:)"), "\(two)")
    #expect(two.description.contains("`container.register(\\.[fieldPlugin: ..., ...]) { ... }`"), "\(two)")
    // A decoded error says the same.
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(two))
    #expect(decoded.description == two.description)
    // What it suggests compiles, with the argument in place of `...`.
    container.register(\.[fieldPlugin: 3]) { FieldSink(name: "three") }
    #expect(try container[\.[fieldPlugin: 3]].name == "three")
  }

  /// A disposal failure of an argument key's instance names its argument, as a path does: one
  /// key keeps an instance per argument, and two failures read `\.fieldClosingPerUser: disk full`
  /// twice, which could not be told apart.
  @Test func aDisposalFailureNamesTheArgumentOfItsInstance() async throws {
    let container = Container()
    _ = try container.resolve(\.fieldClosingPerUser, argument: 7)
    _ = try container.resolve(\.fieldClosingPerUser, argument: 8)
    _ = try container[\.fieldClosing]
    let error = try await #require(throws: DisposalError.self) { try await container.dispose() }
    #expect(
      error.failures.map(\.description) == [
        "\\.fieldClosing: disk full", "\\.fieldClosingPerUser(8): disk full", "\\.fieldClosingPerUser(7): disk full",
      ], "\(error)")
    #expect(error.failures.allSatisfy { $0.dependency.name.hasPrefix("\\.fieldClosing") })
  }
}
