import Knapsack
import Testing

/// What the subscript-key tests make: a class, so that the captive check can see whether a
/// holder kept it.
final class SubThing: Sendable {
  let parts: [SubThing]
  init(_ parts: [SubThing] = []) { self.parts = parts }
}

extension Dependencies {
  /// A chain of one declaration: level `n` resolves level `n - 1`.
  subscript(subChain level: Int) -> Key<SubThing> {
    Key { r in SubThing(level == 0 ? [] : [try r[\.[subChain: level - 1]]]) }
  }
  /// Level 0 is a singleton that holds level 1, a new instance each time.
  subscript(subHolder level: Int) -> Key<SubThing> {
    level == 0
      ? Key { r in SubThing([try r[\.[subHolder: 1]]]) }.scope(.singleton)
      : Key { SubThing() }
  }
  /// Required for every argument: each test registers the levels it wants.
  subscript(subRequired level: Int) -> Key<SubThing> { .required() }
  /// Two keys of one declaration that are not a subscript: each property returns what one
  /// helper makes, so both are declared on the helper's line.
  var subMadeByHelperA: Key<SubThing> { Self.subKeyHelper() }
  var subMadeByHelperB: Key<SubThing> { Self.subKeyHelper() }
  static func subKeyHelper() -> Key<SubThing> { .required() }
  /// A subscript that makes its key in two places (two declaration sites in one module).
  subscript(subTwoSites level: Int) -> Key<Int> {
    level == 0
      ? .required()
      : .required()
  }
  /// A subscript overloaded on its value type: one name, two types.
  subscript(subOverloaded level: Int) -> Key<Int> { Key { level } }
  subscript(subOverloaded level: Int) -> Key<String> { Key { "\(level)" } }
  /// A multibinding per argument.
  subscript(subPlugins group: Int) -> Multibinding<Int> { Multibinding() }
}

/// Keys of one declaration reached through different key paths (a subscript's arguments) are
/// different dependencies: errors, `validate()` and `graph()` tell them apart.
@Suite struct SubscriptKeyTests {
  @Test func eachArgumentOfASubscriptKeyIsItsOwnNodeInTheGraph() async throws {
    let container = Container()
    container.register(\.[subChain: 2]) { r in SubThing([try r[\.[subChain: 1]]]) }
    let graph = await container.graph()
    #expect(graph.report.isValid, "\(graph.report)")
    let names = Set(graph.nodes.map(\.dependency.name))
    #expect(names.count == 3, "\(names)")
    #expect(graph.edges.count == 2, "\(graph.edges)")
    #expect(!graph.edges.contains { $0.from == $0.to }, "a loop to itself: \(graph.edges)")
    // Every name is the declaration's, the later arguments numbered apart from the first.
    #expect(names.allSatisfy { $0.hasPrefix("\\.subscript(subChain:)") }, "\(names)")
  }

  @Test func aSingletonHoldingAUniqueOfTheSameDeclarationIsACaptiveDependency() async throws {
    let container = Container()
    container.register(\.[subHolder: 0], scope: .singleton) { r in SubThing([try r[\.[subHolder: 1]]]) }
    let report = await container.validate()
    let captives = report.problems(.captiveDependency)
    try #require(captives.count == 1, "\(report)")
    #expect(captives[0].path.count == 2)
    #expect(captives[0].path[0].name != captives[0].path[1].name, "\(captives[0])")
    #expect(captives[0].message.contains("(singleton) holds"), "\(captives[0].message)")
  }

  @Test func aMissingArgumentIsReportedAsMissingNotAsAChildsCaptive() async throws {
    let container = Container()
    // Level 0 is registered and needs level 1, which nobody registers.
    container.register(\.[subRequired: 0]) { r in SubThing([try r[\.[subRequired: 1]]]) }
    let report = await container.validate()
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.count == 2)
    #expect(missing[0].dependency.name == missing[0].path[1].name)
    #expect(missing[0].dependency.name != missing[0].path[0].name, "\(missing[0])")
  }

  @Test func aResolutionErrorNamesTheArgumentsApart() throws {
    let container = Container()
    container.register(\.[subRequired: 10]) { r in SubThing([try r[\.[subRequired: 11]]]) }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(\.[subRequired: 10]) }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.path.count == 2)
    #expect(error.path[0].name != error.path[1].name, "\(error)")
    #expect(error.path.allSatisfy { $0.name.hasPrefix("\\.subscript(subRequired:)") }, "\(error)")
  }

  @Test func twoPropertiesReturningOneHelpersKeyAreTwoDependencies() async throws {
    let container = Container()
    container.register(\.subMadeByHelperA) { r in SubThing([try r[\.subMadeByHelperB]]) }
    let report = await container.validate()
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.count == 2)
    #expect(missing[0].path[0].name != missing[0].path[1].name, "\(missing[0])")
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  @Test func everyArgumentHasANameOfItsOwnHoweverTheSubscriptMakesItsKeys() async throws {
    let container = Container()
    // Seen first: level 0 is made on one line, the others on another.
    for level in 0..<4 { _ = container.isRegistered(\.[subTwoSites: level]) }
    for level in 0..<3 {
      _ = container.isRegistered(\.[subOverloaded: level] as KeyPath<Dependencies, Key<Int>>)
      _ = container.isRegistered(\.[subOverloaded: level] as KeyPath<Dependencies, Key<String>>)
    }
    container.register(\.[subTwoSites: 2]) { r in try r[\.[subTwoSites: 3]] }
    container.register(\.[subOverloaded: 1]) { r in "\(try r[\.[subOverloaded: 2]] as Int)" }
    let graph = await container.graph(including: [\.[subTwoSites: 0], \.[subTwoSites: 1]])
    let names = graph.nodes.map(\.dependency.name)
    #expect(Set(names).count == names.count, "\(names)")
    #expect(!graph.edges.contains { $0.from == $0.to }, "a loop to itself: \(graph.edges)")
    // The missing level 3 is reported as missing, not as a child's captive.
    #expect(graph.report.problems(.captiveDependency).isEmpty, "\(graph.report)")
    let missing = graph.report.problems(.requiredKeyNotProvided).filter { $0.path.count == 2 }
    try #require(missing.count == 1, "\(graph.report)")
    #expect(missing[0].path[0].name != missing[0].path[1].name)
    // In one module, keys are numbered, not named by their module.
    #expect(!names.contains { $0.contains("(KnapsackTests") }, "\(names)")
  }

  @Test func multibindingsOfOneSubscriptAreSeparateSets() async throws {
    let container = Container()
    container.contribute(to: \.[subPlugins: 0]) { _ in 1 }
    container.contribute(to: \.[subPlugins: 1]) { _ in 2 }
    #expect(try container.resolve(\.[subPlugins: 0]) == [1])
    #expect(try container.resolve(\.[subPlugins: 1]) == [2])
    let graph = await container.graph(including: [\.[subPlugins: 0], \.[subPlugins: 1]])
    #expect(graph.report.isValid, "\(graph.report)")
    let keys = graph.nodes.map(\.dependency.name).filter { !$0.contains("contribution") }
    #expect(Set(keys).count == 2, "\(graph.nodes.map(\.dependency.name))")
  }
}
