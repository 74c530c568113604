import Knapsack
import Testing

// validate() and registrations made with `hasSideEffects: true` that a property wrapper reaches,
// an argument key with side effects, and the wording of a few reports (found by a user-side
// hunt): a skipped registration reached through `@Injected` stopped the whole run, naming an
// internal type.

/// What a factory makes: it takes a side-effecting dependency through `@Injected`.
struct SideEffectScreen: Sendable {
  @Injected(\.sideEffectLog) var log: String
}

/// The same through a multibinding and an argument key.
struct SideEffectPluginsScreen: Sendable {
  @Injected(\.sideEffectPlugins) var plugins: [String]
  @Injected(\.sideEffectReport, argument: 3) var report: String
}

/// Through `@LazyInjected`, not read.
struct SideEffectLazyScreen: Sendable {
  @LazyInjected(\.sideEffectLog) var log: String
}

/// Reads its property in its initializer.
struct SideEffectEagerScreen: Sendable {
  @Injected(\.sideEffectLog) var log: String
  init() { _ = log }
}

/// Reads its lazy property in its initializer.
struct SideEffectLazyReader: Sendable {
  @LazyInjected(\.sideEffectLog) var log: String
  init() { _ = log }
}

struct SideEffectNamedThing: Sendable {}

extension Dependencies {
  var sideEffectLog: Key<String> { Key { "log" } }
  var sideEffectPlugins: Multibinding<String> { Multibinding() }
  var sideEffectReport: ArgumentKey<Int, String> { ArgumentKey { _, page in "page \(page)" } }
  var sideEffectScreen: Key<SideEffectScreen> { Key { SideEffectScreen() } }
  var sideEffectPluginsScreen: Key<SideEffectPluginsScreen> { Key { SideEffectPluginsScreen() } }
  var sideEffectLazyScreen: Key<SideEffectLazyScreen> { Key { SideEffectLazyScreen() } }
  var sideEffectEagerScreen: Key<SideEffectEagerScreen> { Key { SideEffectEagerScreen() } }
  var sideEffectLazyReader: Key<SideEffectLazyReader> { Key { SideEffectLazyReader() } }
  var sideEffectNamed: Key<String> {
    Key { r in
      _ = try r.resolve(type: SideEffectNamedThing.self, name: "we\"ird\\name\n2")
      return "named"
    }
  }
  var sideEffectDetail: ArgumentKey<Int, String> { ArgumentKey { _, id in "detail \(id)" } }
}

@Suite struct ValidationSideEffectsTests {
  @Test func anInjectedPropertyThatReachesASkippedRegistrationIsListedNotStopped() async throws {
    let container = Container()
    container.register(\.sideEffectLog, hasSideEffects: true) { "log" }
    let report = await container.validate(including: [\.sideEffectScreen])
    #expect(report.problems.isEmpty, "\(report)")
    #expect(Set(report.skipped.map(\.name)) == ["\\.sideEffectLog", "\\.sideEffectScreen"], "\(report)")
    #expect(report.description.contains("not run, or stopped at a registration with side effects"))
    #expect(!report.description.contains("ValidationSkipped"), "\(report)")
  }

  @Test func aMultibindingOrArgumentKeyReachedThroughInjectedIsListedToo() async throws {
    let plugins = Container()
    plugins.contribute(to: \.sideEffectPlugins, hasSideEffects: true) { "plugin" }
    plugins.register(\.sideEffectReport) { _, page in "page \(page)" }
    let first = await plugins.validate(including: [\.sideEffectPluginsScreen])
    #expect(first.problems.isEmpty, "\(first)")
    #expect(first.skipped.map(\.name).contains("\\.sideEffectPluginsScreen"), "\(first)")

    let report = Container()
    report.register(\.sideEffectReport, hasSideEffects: true) { _, page in "page \(page)" }
    let second = await report.validate(including: [\.sideEffectPluginsScreen])
    #expect(second.problems.isEmpty, "\(second)")
    #expect(
      Set(second.skipped.map(\.name)).isSuperset(of: ["\\.sideEffectReport", "\\.sideEffectPluginsScreen"]),
      "\(second)")
  }

  @Test func anUnreadLazyInjectedPropertyOfASkippedRegistrationPasses() async throws {
    let container = Container()
    container.register(\.sideEffectLog, hasSideEffects: true) { "log" }
    let report = await container.validate(including: [\.sideEffectLazyScreen])
    #expect(report.problems.isEmpty, "\(report)")
  }

  /// With no value to give the property, a read stops the run: the message says why and what to
  /// do, not "could not resolve" with an internal type.
  @Test func readingAnInjectedPropertyOfASkippedRegistrationSaysWhy() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = Container()
      container.register(\.sideEffectLog, hasSideEffects: true) { "log" }
      _ = await container.validate(including: [\.sideEffectEagerScreen])
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("@Injected at KnapsackTests/ValidationSideEffectsTests.swift:27"), "\(output)")
    #expect(output.contains("does not call the factory of \\.sideEffectLog (String)"), "\(output)")
    #expect(output.contains("hasSideEffects: true"), "\(output)")
    #expect(output.contains("Resolve it with the factory's resolver"), "\(output)")
    #expect(!output.contains("ValidationSkipped"), "\(output)")
  }

  @Test func readingALazyInjectedPropertyOfASkippedRegistrationSaysWhy() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let container = Container()
      container.register(\.sideEffectLog, hasSideEffects: true) { "log" }
      _ = await container.validate(including: [\.sideEffectLazyReader])
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("@LazyInjected at KnapsackTests/ValidationSideEffectsTests.swift:33"), "\(output)")
    #expect(output.contains("does not call the factory of \\.sideEffectLog (String)"), "\(output)")
    #expect(!output.contains("ValidationSkipped"), "\(output)")
  }

  /// A sample would not make it run: it is listed with what the run does not call, not as
  /// needing a sample.
  @Test func anArgumentKeyWithSideEffectsIsSkippedWithOrWithoutASample() async throws {
    let container = Container()
    container.register(\.sideEffectDetail, hasSideEffects: true) { _, id in "detail \(id)" }
    let withoutSample = await container.validate(including: [\.sideEffectDetail])
    #expect(withoutSample.needsSampleArgument.isEmpty, "\(withoutSample)")
    #expect(withoutSample.skipped.map(\.name) == ["\\.sideEffectDetail"], "\(withoutSample)")
    let withSample = await container.validate(including: [\.sideEffectDetail], arguments: [\.sideEffectDetail: 7])
    #expect(withSample.skipped.map(\.name) == ["\\.sideEffectDetail"], "\(withSample)")
    #expect(withSample.needsSampleArgument.isEmpty, "\(withSample)")
  }

  /// A registration's name is shown as a Swift string literal, so the fix compiles and a line
  /// break in it does not break the report's lines.
  @Test func aRegistrationNameIsEscapedInMessagesAndFixes() async throws {
    let error = try #require(throws: ResolutionError.self) { try Container().resolve(\.sideEffectNamed) }
    let literal = #""we\"ird\\name\n2""#
    #expect(error.dependency.name == "SideEffectNamedThing (name: \(literal))")
    #expect(
      error.description.contains("`container.register(type: SideEffectNamedThing.self, name: \(literal)) { r in"),
      "\(error)")
    let report = await Container().validate(including: [\.sideEffectNamed])
    let lines = report.description.split(separator: "\n")
    #expect(lines.allSatisfy { $0.hasPrefix("Knapsack validation") || $0.hasPrefix("  ") }, "\(report)")
  }

  @Test func aWrongSampleSaysWhichKeyAndHowToFixIt() async throws {
    let container = Container()
    container.register(\.sideEffectDetail) { _, id in "detail \(id)" }
    let report = await container.validate(including: [\.sideEffectDetail], arguments: [\.sideEffectDetail: "seven"])
    let problem = try #require(report.problems(.factoryMismatch).first, "\(report)")
    #expect(
      problem.message
        == "\\.sideEffectDetail: the sample argument given to validate() is String, but the key takes Int")
    #expect(
      problem.description.contains(
        "fix: give \\.sideEffectDetail a sample of the type it takes in `validate(arguments:)`, or none"),
      "\(problem)")

    let noArgument = await container.validate(including: [\.sideEffectLog], arguments: [\.sideEffectLog: 1])
    let extra = try #require(noArgument.problems(.factoryMismatch).first, "\(noArgument)")
    #expect(
      extra.description.contains("fix: leave \\.sideEffectLog out of `validate(arguments:)`"), "\(extra)")
  }

  @Test func countsInTheSummaryAreSingularForOne() async throws {
    let container = Container()
    let valid = await container.validate(including: [\.sideEffectLog])
    #expect(valid.description == "Knapsack validation: no problems in 1 dependency.", "\(valid)")
    let invalid = await container.validate(including: [\.sideEffectDetail], arguments: [\.sideEffectDetail: "seven"])
    #expect(invalid.description.hasPrefix("Knapsack validation: 1 problem in 1 dependency.\n"), "\(invalid)")
  }
}
