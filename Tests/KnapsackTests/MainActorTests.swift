import Foundation
import Knapsack
import Testing

/// A view model: made on the main actor, used there.
@MainActor
final class ScreenModel: Sendable {
  let title: String
  let storage: any LocalStorage
  let madeOnMainThread: Bool

  init(title: String, storage: any LocalStorage) {
    self.title = title
    self.storage = storage
    madeOnMainThread = MainQueueProbe.isOnMainQueue
  }
}

/// Two main-actor values made in one resolution.
final class MainPair: Sendable {
  let first: ScreenModel
  let second: ScreenModel
  init(first: ScreenModel, second: ScreenModel) {
    self.first = first
    self.second = second
  }
}

extension Dependencies {
  var mainPair: MainActorKey<MainPair> { .required() }
  /// A default factory that needs no other dependency, as a `Key`'s may.
  var mainPlain: MainActorKey<ScreenModel> { MainActorKey { ScreenModel(title: "plain", storage: InMemoryStorage()) } }
  var mainPlainRequired: MainActorKey<ScreenModel> { .required() }
}

/// Whether the caller runs on the main queue, where the main actor runs its jobs.
///
/// `Thread.isMainThread` cannot tell on Linux: there the main thread leaves its queue to a worker
/// thread. `MainActor.assertIsolated()` would crash the test run instead of failing one test.
enum MainQueueProbe {
  // The main queue gets the key once, before the first read.
  private static let key = DispatchSpecificKey<Bool>()
  private static let installed: Bool = {
    DispatchQueue.main.setSpecific(key: key, value: true)
    return true
  }()

  static var isOnMainQueue: Bool {
    _ = installed
    return DispatchQueue.getSpecific(key: key) == true
  }
}

// The compile-time half of the main-actor rule cannot be a run-time test: resolving a main-actor key from
// non-isolated code, such as
//
//   nonisolated func elsewhere(_ container: Container) throws {
//     _ = try container[\.mainScreen]   // error: call to main actor-isolated subscript in a nonisolated context
//   }
//
// does not compile, and neither does a `MainActorKey` factory that is not `@MainActor`. These tests
// check the run-time half: the factory runs on the main actor and the usual scopes apply.
extension Dependencies {
  @MainActor var mainScreen: MainActorKey<ScreenModel> {
    MainActorKey { r in ScreenModel(title: "default", storage: try r[\.storage]) }
  }
  @MainActor var mainSingletonScreen: MainActorKey<ScreenModel> {
    MainActorKey { r in ScreenModel(title: "singleton", storage: try r[\.storage]) }.scope(.singleton)
  }
  @MainActor var mainRequired: MainActorKey<ScreenModel> { .required() }
  @MainActor var mainNeedsClock: MainActorKey<ScreenModel> {
    MainActorKey { r in ScreenModel(title: "at \(try r[\.clock].now)", storage: try r[\.storage]) }
  }
}

@Suite struct MainActorTests {
  @MainActor @Test func mainActorKeyResolvesOnTheMainActor() async throws {
    let container = Container()
    #expect(MainQueueProbe.isOnMainQueue, "the probe itself must see the main actor")
    let model = try container[\.mainScreen]
    #expect(model.title == "default")
    #expect(model.madeOnMainThread)
    #expect(model.storage === (try container[\.storage]))
  }

  @Test func factoriesThatNeedNoOtherDependencyRunOnTheMainActor() async throws {
    let container = Container()
    let plain = try await container.resolve(\.mainPlain)
    #expect(plain.title == "plain")
    #expect(plain.madeOnMainThread)
    container.register(\.mainPlainRequired, scope: .singleton) {
      ScreenModel(title: "registered", storage: InMemoryStorage())
    }
    let registered = try await container.resolve(\.mainPlainRequired)
    #expect(registered.title == "registered")
    #expect(registered.madeOnMainThread)
    #expect(try await container.resolve(\.mainPlainRequired) === registered)
  }

  @Test func nonIsolatedCodeHopsToTheMainActorToResolve() async throws {
    let container = Container()
    #expect(!MainQueueProbe.isOnMainQueue, "the probe itself must see that this is not the main actor")
    let (title, onMain) = try await MainActor.run {
      let model = try container.resolve(\.mainScreen)
      return (model.title, model.madeOnMainThread)
    }
    #expect(title == "default")
    #expect(onMain)
  }

  @MainActor @Test func uniqueAndSingletonScopes() async throws {
    let container = Container()
    #expect(try container[\.mainScreen] !== container[\.mainScreen])
    #expect(try container[\.mainSingletonScreen] === container[\.mainSingletonScreen])
  }

  @MainActor @Test func registrationReplacesTheDefault() async throws {
    let container = Container()
    container.register(\.mainScreen) { _ in ScreenModel(title: "registered", storage: InMemoryStorage(name: "main")) }
    let model = try container[\.mainScreen]
    #expect(model.title == "registered")
    #expect(model.storage.name == "main")
    #expect(model.madeOnMainThread)
  }

  @MainActor @Test func requiredMainActorKeyThrowsUntilRegistered() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.mainRequired] }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.mainRequired")
    container.register(\.mainRequired, scope: .singleton) { _ in
      ScreenModel(title: "provided", storage: InMemoryStorage())
    }
    #expect(try container[\.mainRequired].title == "provided")
    #expect(try container[\.mainRequired] === container[\.mainRequired])
  }

  @MainActor @Test func missingDependencyOfAMainActorFactoryShowsThePath() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.mainNeedsClock] }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.path.map(\.name) == ["\\.mainNeedsClock", "\\.clock"])
  }

  @MainActor @Test func childAndOverridesApply() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.storage) { InMemoryStorage(name: "child") }
    #expect(try child[\.mainScreen].storage.name == "child")
    #expect(try parent[\.mainSingletonScreen] === child[\.mainSingletonScreen])
    try await withOverrides {
      $0.register(\.clock) { FixedClock(now: 3) }
    } operation: { () async throws in
      #expect(try parent[\.mainNeedsClock].title == "at 3")
    }
  }

  @MainActor @Test func mainActorKeyCanBeOverriddenInAScope() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.mainScreen) { _ in ScreenModel(title: "overridden", storage: InMemoryStorage()) }
    } operation: { () async throws in
      let model = try container[\.mainScreen]
      #expect(model.title == "overridden")
      #expect(model.madeOnMainThread)
    }
    #expect(try container[\.mainScreen].title == "default")
  }

  @MainActor @Test func mainActorKeysHonourEveryScope() async throws {
    let container = Container()
    container.register(\.mainScreen, scope: .cached) { _ in ScreenModel(title: "cached", storage: InMemoryStorage()) }
    let cached = try container[\.mainScreen]
    #expect(try container[\.mainScreen] === cached)
    container.resetCached()
    #expect(try container[\.mainScreen] !== cached)

    container.register(\.mainScreen, scope: .weak) { _ in ScreenModel(title: "weak", storage: InMemoryStorage()) }
    var held: ScreenModel? = try container[\.mainScreen]
    let heldID = held.map(ObjectIdentifier.init)
    #expect(try ObjectIdentifier(container[\.mainScreen]) == heldID, "shared while someone holds it")
    held = nil
    _ = held

    container.register(\.mainScreen, scope: .graph) { _ in ScreenModel(title: "graph", storage: InMemoryStorage()) }
    container.register(\.mainPair) { r in MainPair(first: try r[\.mainScreen], second: try r[\.mainScreen]) }
    let pair = try container[\.mainPair]
    #expect(pair.first === pair.second, "one instance per resolution graph")
    #expect(try container[\.mainPair].first !== pair.first)
  }
}
