import Foundation
import Knapsack
import Testing

protocol MbPlugin: AnyObject, Sendable {
  var name: String { get }
}

final class MbNamedPlugin: MbPlugin {
  let name: String
  init(_ name: String) { self.name = name }
}

extension Dependencies {
  var mbPlugins: Multibinding<any MbPlugin> { Multibinding() }
  var mbNumbers: Multibinding<Int> { Multibinding() }
  var mbEmpty: Multibinding<String> { Multibinding() }
  var mbPrefix: Key<String> { Key { "plugin" } }
  var mbPluginCount: Key<Int> { Key { r in try r[\.mbPlugins].count } }
  var mbAsyncNumbers: AsyncMultibinding<Int> { AsyncMultibinding() }
  var mbAsyncBase: AsyncKey<Int> { AsyncKey { _ in 40 } }
  var mbAsyncNeeded: Key<Int> { .required() }
  var mbAsyncTotal: AsyncKey<Int> { AsyncKey { r in try await r.resolve(\.mbAsyncNumbers).reduce(0, +) } }
  var mbMainLabels: MainActorMultibinding<String> { MainActorMultibinding() }
}

/// Main-actor state a main-actor contribution reads.
@MainActor enum MbMainState {
  static var screenName = "home"
}

/// Contributes an analytics plug-in (singleton) and a logging plug-in (unique).
struct MbAnalyticsAssembly: Assembly {
  func assemble(into container: Container) {
    container.contribute(to: \.mbPlugins, scope: .singleton) { _ in MbNamedPlugin("analytics") }
    container.contribute(to: \.mbPlugins) { _ in MbNamedPlugin("logging") }
  }
}

/// Contributes a crash-reporting plug-in (unique) that uses another dependency.
struct MbCrashAssembly: Assembly {
  func assemble(into container: Container) {
    container.contribute(to: \.mbPlugins) { r in MbNamedPlugin("\(try r[\.mbPrefix])-crash") }
  }
}

@Suite struct MultibindingTests {
  @Test func contributionsFromTwoAssembliesComeInAssemblyOrder() async throws {
    let container = Container(assemblies: [MbAnalyticsAssembly(), MbCrashAssembly()])
    #expect(try container[\.mbPlugins].map(\.name) == ["analytics", "logging", "plugin-crash"])
    let reversed = Container(assemblies: [MbCrashAssembly(), MbAnalyticsAssembly()])
    #expect(try reversed[\.mbPlugins].map(\.name) == ["plugin-crash", "analytics", "logging"])
  }

  @Test func orderIsStableAcrossResolutions() async throws {
    let container = Container(assemblies: [MbAnalyticsAssembly(), MbCrashAssembly()])
    let first = try container[\.mbPlugins].map(\.name)
    for _ in 0..<20 { #expect(try container.resolve(\.mbPlugins).map(\.name) == first) }
  }

  @Test func eachContributionHasItsOwnScope() async throws {
    let container = Container(assemblies: [MbAnalyticsAssembly(), MbCrashAssembly()])
    let first = try container[\.mbPlugins]
    let second = try container[\.mbPlugins]
    try #require(first.count == 3 && second.count == 3)
    #expect(first[0] === second[0], "the singleton contribution is shared")
    #expect(first[1] !== second[1], "the unique contribution is made anew")
    #expect(first[2] !== second[2])
  }

  @Test func singletonContributionIsMadeOnce() async throws {
    let made = Counter()
    let container = Container()
    container.contribute(to: \.mbNumbers, scope: .singleton) { _ in made.increment() }
    container.contribute(to: \.mbNumbers) { _ in 100 }
    #expect(try container[\.mbNumbers] == [1, 100])
    #expect(try container[\.mbNumbers] == [1, 100])
    #expect(made.count == 1)
  }

  @Test func cachedContributionIsRemadeAfterResetCached() async throws {
    let made = Counter()
    let container = Container()
    container.contribute(to: \.mbNumbers, scope: .cached) { _ in made.increment() }
    #expect(try container[\.mbNumbers] == [1])
    #expect(try container[\.mbNumbers] == [1])
    container.resetCached()
    #expect(try container[\.mbNumbers] == [2])
    #expect(made.count == 2)
  }

  @Test func contributionsWithinOneContainerKeepTheirOrder() async throws {
    let container = Container()
    for number in [5, 3, 9, 1, 7] { container.contribute(to: \.mbNumbers) { _ in number } }
    #expect(try container[\.mbNumbers] == [5, 3, 9, 1, 7])
  }

  @Test func childContributionsComeAfterTheParents() async throws {
    let parent = Container(assemblies: [MbAnalyticsAssembly()])
    let child = parent.makeChild()
    child.contribute(to: \.mbPlugins) { _ in MbNamedPlugin("session") }
    // The parent contributes again after the child was made: still before the child's.
    parent.install([MbCrashAssembly()])
    #expect(try child[\.mbPlugins].map(\.name) == ["analytics", "logging", "plugin-crash", "session"])
    #expect(try parent[\.mbPlugins].map(\.name) == ["analytics", "logging", "plugin-crash"])
  }

  @Test func grandchildSeesEveryAncestorInOrder() async throws {
    let root = Container()
    root.contribute(to: \.mbNumbers) { _ in 1 }
    let child = root.makeChild()
    child.contribute(to: \.mbNumbers) { _ in 2 }
    let grandchild = child.makeChild()
    grandchild.contribute(to: \.mbNumbers) { _ in 3 }
    #expect(try grandchild[\.mbNumbers] == [1, 2, 3])
    #expect(try child[\.mbNumbers] == [1, 2])
    #expect(try root[\.mbNumbers] == [1])
  }

  @Test func parentSingletonContributionIsSharedWithChildren() async throws {
    let parent = Container(assemblies: [MbAnalyticsAssembly()])
    let child = parent.makeChild()
    let throughChild = try child[\.mbPlugins]
    let throughParent = try parent[\.mbPlugins]
    #expect(throughChild[0] === throughParent[0])
  }

  @Test func contributionFactoriesSeeTheResolvingContainersRegistrations() async throws {
    let parent = Container(assemblies: [MbCrashAssembly()])
    let child = parent.makeChild()
    child.register(\.mbPrefix) { "session" }
    #expect(try child[\.mbPlugins].map(\.name) == ["session-crash"])
    #expect(try parent[\.mbPlugins].map(\.name) == ["plugin-crash"])
  }

  @Test func siblingsDoNotSeeEachOthersContributions() async throws {
    let parent = Container()
    let alice = parent.makeChild()
    let bob = parent.makeChild()
    alice.contribute(to: \.mbNumbers) { _ in 1 }
    bob.contribute(to: \.mbNumbers) { _ in 2 }
    #expect(try alice[\.mbNumbers] == [1])
    #expect(try bob[\.mbNumbers] == [2])
    #expect(try parent[\.mbNumbers] == [])
  }

  @Test func nobodyContributingGivesAnEmptyCollection() async throws {
    #expect(try Container()[\.mbEmpty] == [])
  }

  @Test func factoriesCanResolveTheCollection() async throws {
    let container = Container(assemblies: [MbAnalyticsAssembly(), MbCrashAssembly()])
    #expect(try container[\.mbPluginCount] == 3)
  }

  @Test func aThrowingContributionFailsTheResolution() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { _ in 1 }
    let line = #line + 1
    container.contribute(to: \.mbNumbers) { _ throws -> Int in throw PlannedFailure("bad plugin") }
    let error = #expect(throws: ResolutionError.self) { try container[\.mbNumbers] }
    #expect(error?.kind == .factoryFailed)
    #expect(error?.underlying == "bad plugin")
    #expect(error?.path.first?.name == "\\.mbNumbers")
    // The contribution's site is where it was contributed, said as such, once.
    let description = error?.description ?? ""
    #expect(description.contains("registered at KnapsackTests/MultibindingTests.swift:\(line)"), "\(description)")
    #expect(!description.contains("declared at KnapsackTests/MultibindingTests.swift:\(line)"), "\(description)")
  }

  @Test func overrideScopeContributionsComeAfterTheContainers() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { _ in 1 }
    let inside = try await withOverrides {
      $0.contribute(to: \.mbNumbers) { _ in 2 }
    } operation: {
      try container[\.mbNumbers]
    }
    #expect(inside == [1, 2])
    #expect(try container[\.mbNumbers] == [1])
  }

  @Test func validationChecksEveryContribution() async throws {
    let container = Container()
    let line = #line + 1
    container.contribute(to: \.mbNumbers) { _ throws -> Int in throw PlannedFailure("bad plugin") }
    container.contribute(to: \.mbNumbers) { _ in 1 }
    let report = await container.validate()
    let failures = report.problems(.factoryFailed)
    try #require(failures.count == 1, "\(report)")
    #expect(failures[0].registeredAt == CodeLocation(fileID: "KnapsackTests/MultibindingTests.swift", line: line))
    #expect(failures[0].message.contains("bad plugin"))
  }

  @Test func validationNeverCallsASkippedContribution() async throws {
    let calls = Counter()
    let container = Container()
    container.contribute(to: \.mbNumbers, hasSideEffects: true) { _ in calls.increment() }
    container.contribute(to: \.mbNumbers) { _ in 100 }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.skipped.count == 1)
    #expect(calls.count == 0)
    #expect(try container[\.mbNumbers] == [1, 100])
  }

  @Test func contributionsRunInParallelSafely() async throws {
    let container = Container(assemblies: [MbAnalyticsAssembly(), MbCrashAssembly()])
    let singletons = Collected<ObjectIdentifier>()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<50 {
        group.addTask {
          let plugins = try container[\.mbPlugins]
          #expect(plugins.map(\.name) == ["analytics", "logging", "plugin-crash"])
          singletons.append(ObjectIdentifier(plugins[0]))
        }
      }
      try await group.waitForAll()
    }
    #expect(Set(singletons.all).count == 1)
  }

  // MARK: Handles and property wrappers

  @Test func aProviderResolvesEveryContributionAgainAndALazyOnce() async throws {
    let made = Counter()
    let container = Container()
    container.contribute(to: \.mbNumbers, scope: .singleton) { _ in 1 }
    container.contribute(to: \.mbNumbers) { _ in made.increment() + 10 }
    let provider = container.provider(\.mbNumbers)
    #expect(try provider.get() == [1, 11])
    #expect(try provider.get() == [1, 12])
    let lazy = container.lazy(\.mbNumbers)
    #expect(made.count == 2)
    #expect(try lazy.value == [1, 13])
    #expect(try lazy.value == [1, 13])
    // A contribution added later is seen by the provider's next get, not by the kept lazy value.
    container.contribute(to: \.mbNumbers) { _ in 100 }
    #expect(try provider.get() == [1, 14, 100])
    #expect(try lazy.value == [1, 13])
  }

  @Test func aFactoryTakesAHandleToAMultibindingAndResolvesItLater() async throws {
    let container = Container()
    container.contribute(to: \.mbAsyncNumbers) { r in try await r.resolve(\.mbAsyncBase) }
    container.contribute(to: \.mbAsyncNumbers) { _ in 2 }
    container.register(\.mbPluginSummary) { r in MbSummary(numbers: r.provider(\.mbAsyncNumbers)) }
    let summary = try container[\.mbPluginSummary]
    #expect(try await summary.numbers.get() == [40, 2])
    let lazy: Lazy<AsyncMultibinding<Int>> = container.lazy(\.mbAsyncNumbers)
    #expect(try await lazy.value == [40, 2])
    #expect(try await container[\.mbAsyncNumbers] == [40, 2], "the subscript of an asynchronous multibinding awaits")
  }

  @Test func aHandleResolvesInTheOverrideScopeItWasMadeIn() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { _ in 1 }
    let provider = await withOverrides {
      $0.contribute(to: \.mbNumbers) { _ in 2 }
    } operation: {
      container.provider(\.mbNumbers)
    }
    #expect(try provider.get() == [1, 2])
    #expect(try container.provider(\.mbNumbers).get() == [1])
  }

  @Test func validationFollowsAHandleToAMultibinding() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { r in try r[\.mbAsyncNeeded] }
    container.register(\.mbPluginCount) { r in
      _ = r.provider(\.mbNumbers)
      return 0
    }
    let graph = await container.graph()
    // The contribution is checked once, as a registration of its own.
    let missing = graph.report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(graph.report)")
    #expect(missing[0].path.last?.name == "\\.mbAsyncNeeded")
    #expect(graph.edges.contains(DependencyGraph.Edge(from: "\\.mbPluginCount", to: "\\.mbNumbers")))
  }

  /// A handle made from another container that a factory captured (the `DependencyProvider`
  /// style) resolves that container's contributions: validation checks them there.
  @Test func validationChecksTheContributionsOfAHandleToAnotherContainer() async throws {
    let plugins = Container()
    plugins.contribute(to: \.mbNumbers) { _ in 1 }
    plugins.contribute(to: \.mbNumbers) { r in try r[\.mbAsyncNeeded] }
    let app = Container()
    app.register(\.mbPluginCount) { _ in
      _ = plugins.provider(\.mbNumbers)
      return 0
    }
    let report = await app.validate()
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.first?.name == "\\.mbPluginCount")
    #expect(missing[0].path.last?.name == "\\.mbAsyncNeeded")
    // Supplied there, the report is clean.
    plugins.register(\.mbAsyncNeeded) { _ in 2 }
    #expect(await app.validate().isValid)
  }

  @Test func injectedResolvesEveryElement() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { _ in 1 }
    container.contribute(to: \.mbNumbers) { _ in 2 }
    let screen = await withContainer(container) { MbScreen() }
    #expect(screen.numbers == [1, 2])
    container.contribute(to: \.mbNumbers) { _ in 3 }
    // Resolved on first access, from the container current when it was made, and then kept.
    #expect(screen.later == [1, 2, 3])
    container.contribute(to: \.mbNumbers) { _ in 4 }
    #expect(screen.later == [1, 2, 3])
    #expect(await withContainer(container) { MbScreen().numbers } == [1, 2, 3, 4])
  }

  @MainActor @Test func injectedResolvesAMainActorMultibindingOnTheMainActor() async throws {
    let container = Container()
    container.contribute(to: \.mbMainLabels) { _ in MbMainState.screenName }
    let screen = await withContainer(container) { MbMainScreen() }
    #expect(screen.labels == ["home"])
    #expect(screen.later == ["home"])
    let provider = container.provider(\.mbMainLabels)
    #expect(try await provider.get() == ["home"])
    let fromElsewhere = try await Task.detached { try await provider.get() }.value
    #expect(fromElsewhere == ["home"])
  }

  // MARK: Kinds

  @Test func asyncContributionsMayAwaitAndComeInOrder() async throws {
    let container = Container()
    container.contribute(to: \.mbAsyncNumbers) { r in try await r.resolve(\.mbAsyncBase) + 2 }
    container.contribute(to: \.mbAsyncNumbers) { _ in 1 }
    let child = container.makeChild()
    child.contribute(to: \.mbAsyncNumbers, scope: .singleton) { _ in 7 }
    #expect(try await container.resolve(\.mbAsyncNumbers) == [42, 1])
    #expect(try await child.resolve(\.mbAsyncNumbers) == [42, 1, 7])
    #expect(try await child.resolve(\.mbAsyncTotal) == 50)
  }

  @Test func validationRunsAsyncContributionsAndFindsWhatTheyMiss() async throws {
    let container = Container()
    container.contribute(to: \.mbAsyncNumbers) { r in try r[\.mbAsyncNeeded] }
    let report = await container.validate()
    let missing = report.problems(.requiredKeyNotProvided)
    try #require(missing.count == 1, "\(report)")
    #expect(missing[0].path.last?.name == "\\.mbAsyncNeeded")
  }

  @MainActor @Test func mainActorContributionsRunOnTheMainActor() async throws {
    let container = Container()
    container.contribute(to: \.mbMainLabels) { _ in MbMainState.screenName }
    container.contribute(to: \.mbMainLabels, scope: .singleton) { _ in "settings" }
    #expect(try container[\.mbMainLabels] == ["home", "settings"])
    let fromElsewhere = try await Task.detached { try await container.resolve(\.mbMainLabels) }.value
    #expect(fromElsewhere == ["home", "settings"])
  }

  @Test func aDisposedContainerRefusesAMultibindingWithNoContributions() async throws {
    let container = Container()
    container.contribute(to: \.mbNumbers) { _ in 1 }
    let child = container.makeChild()
    #expect(try container[\.mbEmpty].isEmpty)
    try await container.dispose()
    for resolving in [container, child] {
      // With a contribution, its step refuses.
      let contributed = #expect(throws: ResolutionError.self) { try resolving[\.mbNumbers] }
      #expect(contributed?.kind == .containerDisposed)
      let sync = #expect(throws: ResolutionError.self) { try resolving[\.mbEmpty] }
      #expect(sync?.kind == .containerDisposed)
      #expect(sync?.path.map(\.name) == ["\\.mbEmpty"])
      let async = await #expect(throws: ResolutionError.self) { try await resolving.resolve(\.mbAsyncNumbers) }
      #expect(async?.kind == .containerDisposed)
      let main = await #expect(throws: ResolutionError.self) { try await resolving.resolve(\.mbMainLabels) }
      #expect(main?.kind == .containerDisposed)
    }
  }
}

/// Holds a provider of a multibinding, resolved when asked.
struct MbSummary: Sendable {
  let numbers: Provider<AsyncMultibinding<Int>>
}

extension Dependencies {
  var mbPluginSummary: Key<MbSummary> { .required() }
}

/// A type that cannot take its dependencies through its initializer.
final class MbScreen {
  @Injected(\.mbNumbers) var numbers: [Int]
  @LazyInjected(\.mbNumbers) var later: [Int]
}

@MainActor final class MbMainScreen {
  @Injected(\.mbMainLabels) var labels: [String]
  @LazyInjected(\.mbMainLabels) var later: [String]
}

/// A contribution whose factory resolves nothing takes a closure with no resolver, as a
/// registration does, for every kind of multibinding.
@Suite struct ContributionWithoutResolverTests {
  @Test func aSynchronousContributionNeedsNoResolver() throws {
    let container = Container()
    let made = Counter()
    container.contribute(to: \.mbNumbers, scope: .singleton) { made.increment() }
    container.contribute(to: \.mbNumbers) { 100 }
    #expect(try container.resolve(\.mbNumbers) == [1, 100])
    #expect(try container.resolve(\.mbNumbers) == [1, 100])
    #expect(made.count == 1)
  }

  @Test func anAsynchronousContributionNeedsNoResolver() async throws {
    let container = Container()
    container.contribute(to: \.mbAsyncNumbers) { () async throws -> Int in
      await Task.yield()
      return 2
    }
    container.contribute(to: \.mbAsyncNumbers) { 3 }
    #expect(try await container.resolve(\.mbAsyncNumbers) == [2, 3])
  }

  @MainActor
  @Test func aMainActorContributionNeedsNoResolver() throws {
    let container = Container()
    container.contribute(to: \.mbMainLabels) { MbMainState.screenName }
    #expect(try container.resolve(\.mbMainLabels) == ["home"])
  }

  @Test func validationRunsThemAndDisposalClosesThem() async throws {
    let container = Container()
    let disposed = Counter()
    container.contribute(to: \.mbNumbers, scope: .singleton, dispose: { _ in disposed.increment() }) { 7 }
    container.contribute(to: \.mbAsyncNumbers) { throw MbContributionFailure() }
    let report = await container.validate(including: [\.mbNumbers, \.mbAsyncNumbers])
    #expect(report.problems.map(\.kind) == [.factoryFailed], "\(report)")
    #expect(try container.resolve(\.mbNumbers) == [7])
    try await container.dispose()
    #expect(disposed.count == 1)
  }

  /// A contribution is declared where it is registered: its problem says that line once.
  @Test func aThrowingContributionsProblemNamesItsLineOnce() async throws {
    let container = Container()
    let line = #line + 1
    container.contribute(to: \.mbNumbers) { throw MbContributionFailure() }
    let problem = try #require(await container.validate().problems(.factoryFailed).first)
    let site = "KnapsackTests/MultibindingTests.swift:\(line)"
    #expect(problem.description.contains("    registered at \(site)"), "\(problem)")
    #expect(!problem.description.contains("declared at \(site)"), "\(problem)")
  }
}

struct MbContributionFailure: Error {}
