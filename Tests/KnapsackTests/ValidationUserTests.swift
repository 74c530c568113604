import Knapsack
import KnapsackTesting
import Testing

// A small notes app wired the way the articles say, then broken the ways real apps break: each
// test checks what `validate()` reports, with the key, its sites and the path, and nothing else.

// MARK: The app's types

protocol VuStorage: Sendable { var path: String { get } }
final class VuSQLiteStorage: VuStorage {
  let path: String
  init(path: String) { self.path = path }
}

protocol VuClock: Sendable { var now: Int { get } }
struct VuFixedClock: VuClock { let now: Int }

final class VuRepository: Sendable {
  let storage: Lazy<AsyncKey<any VuStorage>>
  let clock: any VuClock
  init(storage: Lazy<AsyncKey<any VuStorage>>, clock: any VuClock) {
    self.storage = storage
    self.clock = clock
  }
}

final class VuLoggingRepository: Sendable {
  let wrapped: VuRepository
  let logger: VuLogger
  init(wrapping wrapped: VuRepository, logger: VuLogger) {
    self.wrapped = wrapped
    self.logger = logger
  }
}

final class VuLogger: Sendable {}
final class VuSession: Sendable {
  let user: String
  init(user: String) { self.user = user }
}

protocol VuPlugin: Sendable { var name: String { get } }
final class VuMarkdownPlugin: VuPlugin { let name = "markdown" }
final class VuSyncPlugin: VuPlugin {
  let name = "sync"
  let session: VuSession
  init(session: VuSession) { self.session = session }
}

protocol VuAnalytics: Sendable {}
final class VuRemoteAnalytics: VuAnalytics {}

@MainActor final class VuListModel {
  let repository: VuRepository
  let plugins: [any VuPlugin]
  init(repository: VuRepository, plugins: [any VuPlugin]) {
    self.repository = repository
    self.plugins = plugins
  }
}

@MainActor final class VuDetailModel {
  let id: Int
  let repository: VuRepository
  let session: VuSession
  init(id: Int, repository: VuRepository, session: VuSession) {
    self.id = id
    self.repository = repository
    self.session = session
  }
}

@MainActor final class VuSettingsScreen {
  @Injected(\.vuClock) var clock: any VuClock
  @LazyInjected(\.vuLogger) var logger: VuLogger
  init() {}
}

final class VuExporter: Sendable {
  let jobs: Provider<Key<VuLogger>>
  init(jobs: Provider<Key<VuLogger>>) { self.jobs = jobs }
}

extension Dependencies {
  // Storage module.
  var vuDatabasePath: Key<String> { .required() }
  var vuStorage: AsyncKey<any VuStorage> {
    AsyncKey { r in VuSQLiteStorage(path: try r[\.vuDatabasePath]) }.scope(.singleton)
  }
  // Core module.
  var vuClock: Key<any VuClock> { .required() }
  var vuLogger: Key<VuLogger> { Key { VuLogger() }.scope(.singleton) }
  var vuRepository: Key<VuRepository> {
    Key { r in VuRepository(storage: r.lazy(\.vuStorage), clock: try r[\.vuClock]) }.scope(.singleton)
  }
  var vuExporter: Key<VuExporter> { Key { r in VuExporter(jobs: r.provider(\.vuLogger)) }.scope(.singleton) }
  // Session module: registered in each session's child container.
  var vuSession: Key<VuSession> { .required() }
  // Plugins.
  var vuPlugins: Multibinding<any VuPlugin> { Multibinding() }
  // Screens.
  var vuListModel: MainActorKey<VuListModel> {
    MainActorKey { r in VuListModel(repository: try r[\.vuRepository], plugins: try r[\.vuPlugins]) }
  }
  var vuDetailModel: DependencyKey<MainActorKind, Int, VuDetailModel> {
    DependencyKey { r, id in
      VuDetailModel(id: id, repository: try r[\.vuRepository], session: try r[\.vuSession])
    }
  }
  var vuSettings: MainActorKey<VuSettingsScreen> { MainActorKey { VuSettingsScreen() } }
}

/// The app's composition root.
struct VuAppAssembly: Assembly {
  func assemble(into container: Container) {
    container.register(\.vuDatabasePath) { ":memory:" }
    container.register(\.vuClock) { VuFixedClock(now: 0) }
    container.contribute(to: \.vuPlugins, scope: .singleton) { VuMarkdownPlugin() }
    container.register(type: (any VuAnalytics).self, name: "remote", scope: .singleton) { VuRemoteAnalytics() }
  }
}

enum VuApp {
  static func make() -> Container { Container(assemblies: [VuAppAssembly()]) }
  /// A signed-in session's child container.
  static func session(of app: Container) -> Container {
    let session = app.makeChild()
    session.register(\.vuSession) { VuSession(user: "ada") }
    session.contribute(to: \.vuPlugins) { r in VuSyncPlugin(session: try r[\.vuSession]) }
    return session
  }
  static var roots: [PartialKeyPath<Dependencies>] { [\.vuListModel, \.vuSettings, \.vuExporter] }
}

// MARK: Probe keys
final class VuUnit: Sendable {}
final class VuHolder: Sendable {
  let parts: [any Sendable]
  init(_ parts: any Sendable...) { self.parts = parts }
}
@MainActor final class VuLazyScreen {
  @LazyInjected(\.vuUnique) var unit: VuUnit
  init() {}
}

extension Dependencies {
  var vuUnique: Key<VuUnit> { Key { VuUnit() } }
  var vuGraphUnit: Key<VuUnit> { Key { VuUnit() }.scope(.graph) }
  var vuCachedUnit: Key<VuUnit> { Key { VuUnit() }.scope(.cached) }
  var vuMissing: Key<VuUnit> { .required() }
  var vuHolder: Key<VuHolder> { .required().scope(.singleton) }
  var vuMainHolder: MainActorKey<VuHolder> { .required().scope(.singleton) }
  var vuAsyncHolder: AsyncKey<VuHolder> { .required().scope(.singleton) }
  var vuUnits: Multibinding<VuUnit> { Multibinding() }
  var vuLazyScreen: MainActorKey<VuLazyScreen> { MainActorKey { VuLazyScreen() }.scope(.singleton) }
  var vuNode: ArgumentKey<Int, VuUnit> { .required() }
  var vuAsyncA: AsyncKey<VuUnit> { .required() }
  var vuMainB: MainActorKey<VuUnit> { .required() }
  var vuSyncC: Key<VuUnit> { .required() }
}

@Suite struct ValidationScaleTests {
  /// 10 levels of 300 singletons, each resolving two of the level below (diamonds everywhere):
  /// the run calls each factory once, and a required key missing under one corner of the lowest
  /// level is one problem, with the one path that first reached it.
  @Test func aWideDeepGraphOfDiamondsCallsEachSharedFactoryOnce() async throws {
    let levels = 10
    let width = 300
    func lattice(missingAt corner: Bool, _ calls: Collected<Int>) -> Container {
      let container = Container()
      for level in 0..<levels {
        for j in 0..<width {
          let last = level == levels - 1
          container.register(type: VuUnit.self, name: "d\(level)-\(j)", scope: .singleton) { r in
            calls.append(1)
            if last { return corner && j == 0 ? try r[\.vuMissing] : VuUnit() }
            _ = try r.resolve(type: VuUnit.self, name: "d\(level + 1)-\(j)")
            _ = try r.resolve(type: VuUnit.self, name: "d\(level + 1)-\((j + 1) % width)")
            return VuUnit()
          }
        }
      }
      return container
    }
    let calls = Collected<Int>()
    let valid = await lattice(missingAt: false, calls).validate()
    #expect(valid.isValid)
    #expect(valid.checkedCount == levels * width)
    #expect(calls.all.count == levels * width)
    let missingCalls = Collected<Int>()
    let report = await lattice(missingAt: true, missingCalls).validate()
    #expect(missingCalls.all.count == levels * width)
    let problem = try #require(report.problems.first)
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.dependency.name == "\\.vuMissing")
    #expect(problem.path.count == levels + 1)
  }
}

/// What the captive check says of a `Lazy` or `Provider` that a longer-lived instance keeps.
@Suite struct LazyCaptiveValidationTests {
  private func report(_ configure: (Container) -> Void) async -> ValidationReport {
    let container = Container()
    configure(container)
    return await container.validate(including: [\.vuHolder])
  }

  /// A singleton that keeps a `Lazy` of a unique key keeps the first instance it reads for the
  /// container's life: the same as keeping the instance. Before, the run checked only what the
  /// `Lazy` would resolve, and reported nothing.
  @Test func aSingletonKeepingALazyOfAUniqueKeyHoldsItsFirstValue() async throws {
    var line = 0
    let report = await report { container in
      line = #line + 1
      container.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuUnique)) }
    }
    let problem = try #require(report.problems(.captiveDependency).first, "\(report)")
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.dependency.name == "\\.vuHolder")
    #expect(problem.path.map(\.name) == ["\\.vuHolder", "\\.vuUnique"])
    #expect(problem.registeredAt?.line == line)
    #expect(
      problem.message
        == "\\.vuHolder (singleton) holds \\.vuUnique (unique) through the Lazy made at "
        + "KnapsackTests/ValidationUserTests.swift:\(line), which keeps the first value it reads, but that "
        + "should not outlive one use: hold a Provider to resolve it anew each time")
    #expect(problem.description.contains("holds \\.vuUnique: declared at"), "\(problem)")
    #expect(
      problem.description.hasSuffix(
        "\n    fix: keep `r.provider(...)` instead of the `Lazy` and call `get()` where the value is needed, or give"
          + " \\.vuUnique a scope at least as long-lived as \\.vuHolder's (singleton)."), "\(problem)")
  }

  /// A `Lazy` of a graph-scoped key keeps its first value; one of a cached object holds it weakly
  /// (its container keeps it, and a reset lets it go), so it is no captive dependency.
  @Test func aLazyOfAGraphKeyIsCaptiveTooButOneOfACachedObjectIsNot() async throws {
    let graph = await report { $0.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuGraphUnit)) } }
    #expect(graph.problems(.captiveDependency).map { $0.path.map(\.name) } == [["\\.vuHolder", "\\.vuGraphUnit"]])
    let cached = await report { $0.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuCachedUnit)) } }
    #expect(cached.isValid, "\(cached)")
    // Held directly, a cached instance is dropped by `resetCached()` too, not after "one use".
    let direct = await report { $0.register(\.vuHolder) { r in VuHolder(try r[\.vuCachedUnit]) } }
    #expect(
      direct.problems(.captiveDependency).map(\.message) == [
        "\\.vuHolder (singleton) holds \\.vuCachedUnit (cached), which should not outlive resetCached()"
      ])
  }

  @Test func aLazyInjectedPropertyOfAMainActorSingletonHoldsItsFirstValue() async throws {
    let report = await Container().validate(including: [\.vuLazyScreen])
    let problem = try #require(report.problems(.captiveDependency).first, "\(report)")
    #expect(problem.path.map(\.name) == ["\\.vuLazyScreen", "\\.vuUnique"])
    // The line of the property.
    #expect(problem.message.contains("through the Lazy made at KnapsackTests/ValidationUserTests.swift:"), "\(problem)")
  }

  /// A unique key whose factory hands out a singleton's instance (an alias) gives that singleton:
  /// a `Lazy` of it keeps nothing shorter-lived. One that hands out a unique key's instance gives
  /// that one, through the alias. And a `Lazy` of an existential key whose instances are structs
  /// keeps a copy.
  @Test func aLazyOfAnAliasOrOfAValueIsJudgedByWhatItGives() async throws {
    let ofSingleton = await report { container in
      container.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuGraphUnit)) }
      container.register(\.vuGraphUnit, scope: .unique) { r in try r[\.vuCachedUnit] }
      container.register(\.vuCachedUnit, scope: .singleton) { VuUnit() }
    }
    #expect(ofSingleton.isValid, "\(ofSingleton)")
    let ofUnique = await report { container in
      container.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuGraphUnit)) }
      container.register(\.vuGraphUnit, scope: .unique) { r in try r[\.vuUnique] }
    }
    let problem = try #require(ofUnique.problems(.captiveDependency).first, "\(ofUnique)")
    #expect(ofUnique.problems.count == 1, "\(ofUnique)")
    #expect(problem.path.map(\.name) == ["\\.vuHolder", "\\.vuGraphUnit", "\\.vuUnique"])
    #expect(problem.message.hasPrefix("\\.vuHolder (singleton) holds \\.vuUnique (unique) through the Lazy made at "))
    #expect(problem.message.contains(" of \\.vuGraphUnit, which keeps the first value it reads"), "\(problem)")
    let structs = await report { container in
      container.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuClock)) }
      container.register(\.vuClock) { VuFixedClock(now: 1) }
    }
    #expect(structs.isValid, "\(structs)")
  }

  /// An asynchronous singleton and a main-actor one keep their `Lazy` as a synchronous one does,
  /// and so does a singleton whose decorator wraps it with one.
  @Test func aLazyKeptByAnAsyncOrMainActorSingletonOrADecoratorIsCaptive() async throws {
    let container = Container()
    container.register(\.vuAsyncHolder) { r in
      await Task.yield()
      return VuHolder(r.lazy(\.vuUnique))
    }
    container.register(\.vuMainHolder) { r in VuHolder(r.lazy(\.vuUnique)) }
    container.register(\.vuHolder) { VuHolder() }
    container.decorate(\.vuHolder) { r, holder in VuHolder(holder, r.lazy(\.vuGraphUnit)) }
    let report = await container.validate()
    #expect(
      Set(report.problems(.captiveDependency).map { $0.path.map(\.name) }) == [
        ["\\.vuAsyncHolder", "\\.vuUnique"], ["\\.vuMainHolder", "\\.vuUnique"],
        ["\\.vuHolder", "\\.vuGraphUnit"],
      ], "\(report)")
  }

  @Test func whatKeepsNoShorterLivedValueIsNotReported() async throws {
    // A `Provider` resolves anew on each `get`.
    #expect(await report { $0.register(\.vuHolder) { r in VuHolder(r.provider(\.vuUnique)) } }.isValid)
    // A `Lazy` of a singleton.
    #expect(await report { $0.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuLogger)) } }.isValid)
    // A `Lazy` read in the factory and dropped, or made and dropped.
    #expect(
      await report {
        $0.register(\.vuHolder) { r in
          _ = try r.lazy(\.vuUnique).value
          return VuHolder()
        }
      }.isValid)
    #expect(
      await report {
        $0.register(\.vuHolder) { r in
          _ = r.lazy(\.vuUnique)
          return VuHolder()
        }
      }.isValid)
    // A unique holder.
    #expect(await report { $0.register(\.vuHolder, scope: .unique) { r in VuHolder(r.lazy(\.vuUnique)) } }.isValid)
  }
}

/// The notes app above, valid, then broken the ways real apps break.
@Suite struct ValidationUserTests {
  @Test func theAppAndASessionAreValid() async throws {
    let app = VuApp.make()
    #expect(await app.validate(including: VuApp.roots).isValid)
    let session = VuApp.session(of: app)
    let report = await expectValidGraph(session, including: VuApp.roots, arguments: [\.vuDetailModel: 1])
    #expect(report.needsSampleArgument.isEmpty && report.skipped.isEmpty)
  }

  /// The clock is asked for by the repository (a singleton behind a main-actor view model) and by
  /// the settings screen's `@Injected` property: once for each.
  @Test func aMissingKeyIsReportedOnceForEachDependencyThatAsksForIt() async throws {
    let app = Container()
    app.register(\.vuDatabasePath) { ":memory:" }
    let report = await app.validate(including: VuApp.roots)
    #expect(
      report.problems.map { $0.path.map(\.name) } == [
        ["\\.vuListModel", "\\.vuRepository", "\\.vuClock"], ["\\.vuSettings", "\\.vuClock"],
      ], "\(report)")
    #expect(report.problems.allSatisfy { $0.dependency.location == Dependencies.declarationSite(of: \.vuClock) })
  }

  /// A key that only a decorator asks for: the path goes through the decorated key, whose own
  /// factory does not ask for it, so the problem names the decorator's line. Before, the report
  /// had no such line (a resolution error did), and named only the decorated key's declaration.
  @Test func aProblemNamesTheLineThatAskedForWhatIsMissing() async throws {
    let app = VuApp.make()
    let line = #line + 2
    app.decorate(\.vuRepository) { r, repository in
      _ = try r[\.vuMissing]
      return repository
    }
    let report = await app.validate(including: VuApp.roots)
    let problem = try #require(report.problems.first, "\(report)")
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.path.map(\.name) == ["\\.vuListModel", "\\.vuRepository", "\\.vuMissing"])
    #expect(problem.requestedAt == CodeLocation(fileID: "KnapsackTests/ValidationUserTests.swift", line: line))
    #expect(
      problem.description.contains("\n    asked for at KnapsackTests/ValidationUserTests.swift:\(line)\n"), "\(problem)"
    )
    // An `@Injected` property names its own line.
    let noClock = Container()
    let injected = try #require(await noClock.validate(including: [\.vuSettings]).problems.first)
    #expect(injected.path.map(\.name) == ["\\.vuSettings", "\\.vuClock"])
    #expect(injected.requestedAt?.fileID == "KnapsackTests/ValidationUserTests.swift")
    #expect(injected.requestedAt != Dependencies.declarationSite(of: \.vuSettings))
  }

  /// A parent's singleton that keeps a `Lazy` of the session, which only a session's child
  /// registers: validated from the child, the `Lazy` resolves in the parent, where the session is
  /// missing. Before, that read "required key \.vuSession is never provided", although the child
  /// provides it, with no line; it now reads as the same dependency asked for directly does, with
  /// the line that made the `Lazy`. From the parent, it is missing, asked for at that line.
  @Test func aParentsLazyOfAChildOnlyKeyIsReportedAsNeedingTheChildsScope() async throws {
    let app = Container()
    let line = #line + 1
    app.register(\.vuHolder) { r in VuHolder(r.lazy(\.vuSession)) }
    let session = VuApp.session(of: app)
    let report = await session.validate()
    let problem = try #require(report.problems.first, "\(report)")
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.kind == .captiveDependency)
    #expect(
      problem.message
        == "\\.vuHolder, shared by a parent container, depends on \\.vuSession, which only this child scope provides")
    #expect(problem.path.map(\.name) == ["\\.vuHolder", "\\.vuSession"])
    #expect(problem.requestedAt == CodeLocation(fileID: "KnapsackTests/ValidationUserTests.swift", line: line))
    let fromTheApp = try #require(await app.validate().problems.first)
    #expect(fromTheApp.kind == .requiredKeyNotProvided)
    #expect(fromTheApp.path.map(\.name) == ["\\.vuHolder", "\\.vuSession"])
    #expect(fromTheApp.requestedAt?.line == line)
  }

  /// A test's override scope provides what the app leaves to it.
  @Test func theOverridesOfTheScopeCountAsRegistrations() async throws {
    let app = Container()
    app.register(\.vuDatabasePath) { ":memory:" }
    #expect(await app.validate(including: VuApp.roots).problems.count == 2)
    let inside = await withOverrides {
      $0.register(\.vuClock) { VuFixedClock(now: 0) }
    } operation: {
      await app.validate(including: VuApp.roots)
    }
    #expect(inside.isValid, "\(inside)")
  }

  /// A singleton whose decorator keeps a unique instance: its factory does not ask for it, so the
  /// problem names the line that added the decorator. Before, it named only the registration.
  @Test func aCaptiveDependencyThatADecoratorKeepsNamesTheDecorator() async throws {
    let container = Container()
    container.register(\.vuHolder) { VuHolder() }
    let line = #line + 1
    container.decorate(\.vuHolder) { r, holder in VuHolder(holder, try r[\.vuUnique]) }
    let report = await container.validate()
    let problem = try #require(report.problems(.captiveDependency).first, "\(report)")
    #expect(report.problems.count == 1, "\(report)")
    #expect(problem.path.map(\.name) == ["\\.vuHolder", "\\.vuUnique"])
    #expect(problem.requestedAt == CodeLocation(fileID: "KnapsackTests/ValidationUserTests.swift", line: line))
    #expect(problem.description.contains("asked for at KnapsackTests/ValidationUserTests.swift:\(line)"), "\(problem)")
    // Asked for by the factory itself: no line.
    let direct = Container()
    direct.register(\.vuHolder) { r in VuHolder(try r[\.vuUnique]) }
    #expect(try #require(await direct.validate().problems.first).requestedAt == nil)
  }

  /// The database path is needed only by the asynchronous storage, which only the repository's
  /// `Lazy` resolves: the path starts at the repository.
  @Test func aKeyMissingBehindALazyOfAnAsyncKeyIsReportedFromTheHolder() async throws {
    let app = Container()
    app.register(\.vuClock) { VuFixedClock(now: 0) }
    let report = await app.validate(including: VuApp.roots)
    #expect(
      report.problems.map { $0.path.map(\.name) } == [["\\.vuRepository", "\\.vuStorage", "\\.vuDatabasePath"]],
      "\(report)")
  }

  /// The detail screen needs the session, which only a session's child container registers.
  @Test func anArgumentKeyIsListedWithoutASampleAndRunWithOne() async throws {
    let app = VuApp.make()
    let unsampled = await app.validate(including: [\.vuDetailModel])
    #expect(unsampled.isValid)
    #expect(unsampled.needsSampleArgument.map(\.name) == ["\\.vuDetailModel"])
    let sampled = await app.validate(arguments: [\.vuDetailModel: 7])
    let problem = try #require(sampled.problems.first, "\(sampled)")
    #expect(sampled.problems.count == 1)
    #expect(problem.kind == .requiredKeyNotProvided)
    #expect(problem.description.contains("path: \\.vuDetailModel(7) → \\.vuSession"), "\(problem)")
    #expect(await VuApp.session(of: app).validate(arguments: [\.vuDetailModel: 7]).isValid)
  }

  /// A plugin contributed to the app that needs the session: reported with the contribution's
  /// line, through the view model that resolves the plugins.
  @Test func aContributionNeedingAChildOnlyKeyIsReportedWithItsLine() async throws {
    let app = VuApp.make()
    let line = #line + 1
    app.contribute(to: \.vuPlugins) { r in VuSyncPlugin(session: try r[\.vuSession]) }
    let report = await app.validate(including: VuApp.roots)
    let contribution = "\\.vuPlugins contribution (KnapsackTests/ValidationUserTests.swift:\(line))"
    #expect(
      report.problems.map { $0.path.map(\.name) } == [
        ["\\.vuListModel", "\\.vuPlugins", contribution, "\\.vuSession"]
      ], "\(report)")
  }
}
