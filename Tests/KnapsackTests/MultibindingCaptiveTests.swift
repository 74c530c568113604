import Knapsack
import Testing

/// A class contribution, and what keeps a list of them.
final class McSink: MbPlugin {
  let name = "sink"
}
final class McHub: Sendable {
  let sinks: [any MbPlugin]
  init(_ sinks: [any MbPlugin]) { self.sinks = sinks }
}

extension Dependencies {
  var mcSinks: Multibinding<any MbPlugin> { Multibinding() }
  var mcHub: Key<McHub> { Key { r in McHub(try r[\.mcSinks]) }.scope(.singleton) }
}

/// What `validate()` says of a singleton that keeps a multibinding's elements, which
/// knapsack-check reports the same way (Tests/PluginFixtures/ToolCases/Contributions).
@Suite struct MultibindingCaptiveTests {
  @Test func aSingletonKeepingAUniqueContributionHoldsItThroughTheMultibinding() async throws {
    let container = Container()
    container.contribute(to: \.mcSinks, scope: .singleton) { _ in McSink() }
    container.contribute(to: \.mcSinks) { _ in McSink() }
    let captives = await container.validate(including: [\.mcHub]).problems(.captiveDependency)
    try #require(captives.count == 1, "\(captives)")
    #expect(captives[0].dependency.name == "\\.mcHub")
    #expect(captives[0].path.map(\.name).dropFirst().first == "\\.mcSinks", "\(captives[0])")
    #expect(captives[0].message.contains("contribution"), "\(captives[0].message)")
  }

  @Test func aSingletonKeepingSingletonContributionsIsNotCaptive() async throws {
    let container = Container()
    container.contribute(to: \.mcSinks, scope: .singleton) { _ in McSink() }
    #expect(await container.validate(including: [\.mcHub]).problems(.captiveDependency).isEmpty)
  }
}
