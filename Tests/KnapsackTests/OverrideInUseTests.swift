import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

extension Dependencies {
  var hoStore: Key<Token> { Key { Token("default store") } }
  var hoValue: Key<String> { Key { "default" } }
  var hoKeeper: Key<HoKeeper> { Key { r in HoKeeper(r) }.scope(.singleton) }
  var hoApp: Key<Token> { Key { Token("app singleton") }.scope(.singleton) }
  var hoRepo: Key<HoRepo> { Key { r in HoRepo(store: try r[\.hoStore]) }.scope(.singleton) }
  var hoAsync: AsyncKey<Token> { AsyncKey { Token("async default") } }
  var hoArg: ArgumentKey<Int, Token> { ArgumentKey { _, n in Token("arg \(n)") } }
  var hoPlugins: Multibinding<Token> { Multibinding() }
  var hoMain: MainActorKey<HoScreen> { MainActorKey { HoScreen("default") } }
  var hoRequired: Key<Token> { .required() }
  var hoHandleHolder: Key<HoHandleHolder> { .required() }
  var hoNeedsRequired: Key<HoRepo> { Key { r in HoRepo(store: try r[\.hoRequired]) }.scope(.singleton) }
}

/// Keeps the resolver its factory was given, to resolve with later.
final class HoKeeper: Sendable {
  let resolver: Resolver
  init(_ resolver: Resolver) { self.resolver = resolver }
}

final class HoHandleHolder: Sendable {
  let session: Lazy<Key<Token>>
  init(session: Lazy<Key<Token>>) { self.session = session }
}

final class HoRepo: Sendable {
  let store: Token
  init(store: Token) { self.store = store }
}

@MainActor final class HoScreen {
  let title: String
  init(_ title: String) { self.title = title }
}

struct HoInjectedUser {
  @Injected(\.hoStore) var store: Token
  @Injected(\.hoApp) var app: Token
  @LazyInjected(\.hoStore) var lazyStore: Token
}

@Suite struct OverrideInUseTests {
  // MARK: Kept resolvers

  /// A resolver kept by an instance made in a scope is a fresh top-level resolution in the scope
  /// open where it is used: in a nested scope, it gets the enclosing scope's singleton, and the
  /// nested scope's app singletons, as the container does (not a second copy's).
  @Test func aResolverKeptInAnEnclosingScopeUsesItsSingletonInANestedScope() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { Token("suite fake") }
    } operation: { () async throws in
      let keeper = try container[\.hoKeeper]
      let store = try container[\.hoStore]
      #expect(try keeper.resolver[\.hoStore] === store)
      try await withOverrides {
        $0.register(\.hoValue) { "inner" }
      } operation: { () async throws in
        #expect(try container[\.hoStore] === store)
        #expect(try keeper.resolver[\.hoValue] == "inner")
        #expect(try keeper.resolver[\.hoStore] === store)
        #expect(try keeper.resolver[\.hoApp] === container[\.hoApp])
      }
    }
  }

  /// The scope that made the resolver's container has ended and is freed: a later scope, which
  /// the allocator may place at its address, must not take that copy for its own and resolve
  /// with the ended scope's overrides.
  @Test func aResolverKeptFromAnEndedScopeResolvesInTheScopeOpenNow() async throws {
    let container = Container()
    let keeper = try await withOverrides {
      $0.register(\.hoValue) { "ended" }
    } operation: { () async throws in
      try container[\.hoKeeper]
    }
    for round in 0..<200 {
      try await withOverrides {
        $0.register(\.hoValue) { "open \(round)" }
      } operation: { () async throws in
        #expect(try keeper.resolver[\.hoValue] == "open \(round)")
      }
    }
  }

  // MARK: Every key kind, parallel scopes

  @Test(arguments: 0..<8) func everyKeyKindIsOverriddenPerScope(n: Int) async throws {
    let container = Container()
    container.contribute(to: \.hoPlugins) { _ in Token("base plugin") }
    let store = Token("store \(n)")
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { store }
      $0.register(\.hoAsync, scope: .singleton) { Token("async \(n)") }
      $0.register(\.hoArg, scope: .singleton) { _, a in Token("arg \(n) \(a)") }
      $0.contribute(to: \.hoPlugins, scope: .singleton) { _ in Token("plugin \(n)") }
      $0.register(\.hoMain, scope: .singleton) { HoScreen("main \(n)") }
    } operation: { () async throws in
      #expect(try container[\.hoStore] === store)
      #expect(try await container.resolve(\.hoAsync).label == "async \(n)")
      #expect(try container.resolve(\.hoArg, argument: 3).label == "arg \(n) 3")
      #expect(try container.resolve(\.hoArg, argument: 3) === container.resolve(\.hoArg, argument: 3))
      let plugins = try container[\.hoPlugins].map(\.label)
      #expect(plugins == ["base plugin", "plugin \(n)"])
      let title = try await container.resolve(\.hoMain).title
      #expect(title == "main \(n)")
      let user = HoInjectedUser()
      #expect(user.store === store)
      #expect(user.lazyStore === store)
      let viaContainer = try await withContainer(container) { () async throws in HoInjectedUser() }
      #expect(viaContainer.store === store)
      #expect(try viaContainer.app === container[\.hoApp])
    }
  }

  // MARK: withOverrides and withContainer combined

  @Test(arguments: 0..<4) func withOverridesAndWithContainerInBothOrders(n: Int) async throws {
    let container = Container()
    container.register(\.hoStore, scope: .singleton) { Token("container's") }
    let fake = Token("fake \(n)")
    try await withContainer(container) { () async throws in
      try await withOverrides {
        $0.register(\.hoStore, scope: .singleton) { fake }
      } operation: { () async throws in
        #expect(HoInjectedUser().store === fake)
      }
    }
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { fake }
    } operation: { () async throws in
      try await withContainer(container) { () async throws in
        let user = HoInjectedUser()
        #expect(user.store === fake)
        #expect(user.app === (try container[\.hoApp]))
      }
    }
    #expect(try container[\.hoStore].label == "container's")
  }

  // MARK: Overriding with another scope

  @Test func overridingWithAnotherScope() async throws {
    let container = Container()
    container.register(\.hoStore, scope: .singleton) { Token("base") }
    let base = try container[\.hoStore]
    try await withOverrides {
      $0.register(\.hoStore, scope: .unique) { Token("unique") }
    } operation: { () async throws in
      #expect(try container[\.hoStore] !== container[\.hoStore])
    }
    try await withOverrides {
      $0.register(\.hoStore, scope: .cached) { Token("cached") }
    } operation: { () async throws in
      let first = try container[\.hoStore]
      #expect(try container[\.hoStore] === first)
      container.resetCached()
      #expect(try container[\.hoStore] !== first)
    }
    try await withOverrides {
      $0.register(\.hoStore, scope: .weak) { Token("weak") }
    } operation: { () async throws in
      let held = try container[\.hoStore]
      #expect(try container[\.hoStore] === held)
    }
    #expect(try container[\.hoStore] === base)
    // A unique base overridden with a singleton.
    let other = Container()
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { Token("singleton") }
    } operation: { () async throws in
      let child = other.makeChild()
      #expect(try other[\.hoStore] === child[\.hoStore])
    }
  }

  // MARK: Base singletons that depend on an override

  @Test func aBaseSingletonRemadeInAScopeDoesNotLeak() async throws {
    let container = Container()
    let outside = try container[\.hoRepo]
    let (inside, fake) = try await withOverrides {
      $0.register(\.hoStore) { Token("fake") }
    } operation: { () async throws in
      (try container[\.hoRepo], try container[\.hoStore])
    }
    #expect(inside !== outside)
    #expect(inside.store.label == "fake")
    #expect(fake.label == "fake")
    #expect(try container[\.hoRepo] === outside)
    #expect(outside.store.label == "default store")
  }

  @Test func aRepoFirstMadeInAScopeDoesNotLeakOut() async throws {
    let container = Container()
    _ = try await withOverrides {
      $0.register(\.hoStore) { Token("fake") }
    } operation: { () async throws in
      try container[\.hoRepo]
    }
    #expect(try container[\.hoRepo].store.label == "default store")
  }

  // MARK: Validation inside a scope

  @Test func validateInsideAScopeSeesItsOverrides() async throws {
    let container = Container()
    container.register(\.hoNeedsRequired) { r in HoRepo(store: try r[\.hoRequired]) }
    #expect(await !container.validate().isValid)
    try await withOverrides {
      $0.register(\.hoRequired, scope: .singleton) { Token("provided") }
    } operation: { () async throws in
      let report = await container.validate()
      #expect(report.isValid, "\(report)")
    }
  }

  @Test func validateInsideAScopeMakesNothingThatStays() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) {
        made.increment()
        return Token("fake")
      }
    } operation: { () async throws in
      let first = try container[\.hoStore]
      _ = await container.validate(including: [\.hoStore])
      #expect(try container[\.hoStore] === first)
    }
  }

  // MARK: Handles

  @Test func aLazyMadeInAScopeResolvesThereWhenReadOutside() async throws {
    let container = Container()
    let lazy = await withOverrides {
      $0.register(\.hoValue) { "inside" }
    } operation: { () async in
      container.lazy(\.hoValue)
    }
    #expect(try lazy.value == "inside")
    let provider = container.provider(\.hoValue)
    try await withOverrides {
      $0.register(\.hoValue) { "scoped" }
    } operation: { () async throws in
      #expect(try provider.get() == "default")
    }
  }

  // MARK: Detached and unstructured tasks

  @Test func unstructuredTasksInheritAndDetachedOnesDoNot() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoValue) { "inside" }
    } operation: { () async throws in
      #expect(try await Task { try container[\.hoValue] }.value == "inside")
      #expect(try await Task.detached { try container[\.hoValue] }.value == "default")
      let fromMain = try await Task { @MainActor in try container[\.hoValue] }.value
      #expect(fromMain == "inside")
    }
  }
}

@Suite(.overrides { $0.register(\.hoStore, scope: .singleton) { Token("suite") } })
struct OverrideInUseTraitTests {
  let container = Container()

  @Test(.container { $0.register(\.hoValue) { "container trait" } }, arguments: 0..<6)
  func containerAndOverridesTraitsTogether(n: Int) async throws {
    let user = HoInjectedUser()
    #expect(user.store.label == "suite")
    #expect(try Container.current[\.hoValue] == "container trait")
    #expect(try Container.current[\.hoStore] === user.store)
    #expect(try container[\.hoStore] !== user.store)
  }

  @Test(.overrides { $0.register(\.hoValue) { "test" } }, arguments: 0..<6)
  func nestedTraitUsesTheSuiteSingleton(n: Int) async throws {
    let keeper = try container[\.hoKeeper]
    let store = try container[\.hoStore]
    #expect(try keeper.resolver[\.hoStore] === store)
    #expect(try keeper.resolver[\.hoValue] == "test")
  }
}

@Suite struct OverrideInUseProbeTwoTests {
  @Test func aNestedScopeGetsTheOuterMainActorSingletonFromTheBackground() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoMain, scope: .singleton) { HoScreen("outer") }
    } operation: { () async throws in
      let outer = try await container.resolve(\.hoMain)
      try await withOverrides {
        $0.register(\.hoValue) { "inner" }
      } operation: { () async throws in
        let inner = try await Task.detached {
          try await OverrideScopeCarrier.resolve(container)
        }.value
        #expect(inner.title == "default")
        let fromChild = try await withThrowingTaskGroup(of: HoScreen.self) { group in
          group.addTask { try await container.resolve(\.hoMain) }
          return try await group.next()!
        }
        #expect(fromChild === outer)
        let provider = container.provider(\.hoMain)
        #expect(try await provider.get() === outer)
      }
      #expect(try await container.resolve(\.hoMain) === outer)
    }
  }

  @Test func baseMultibindingSingletonsAreTheScopesOwn() async throws {
    let container = Container()
    container.contribute(to: \.hoPlugins, scope: .singleton) { r in Token("needs \(try r[\.hoValue])") }
    let outside = try container[\.hoPlugins]
    let inside = try await withOverrides {
      $0.register(\.hoValue) { "fake" }
    } operation: { () async throws in
      try container[\.hoPlugins]
    }
    #expect(inside.map(\.label) == ["needs fake"])
    #expect(try container[\.hoPlugins][0] === outside[0])
    #expect(outside.map(\.label) == ["needs default"])
  }

  @Test func aSynchronousScopeOnAThreadIsInheritedByATaskMadeThere() async throws {
    let container = Container()
    let result = Locked<Task<String, any Error>?>(nil)
    let thread = Thread {
      withOverrides {
        $0.register(\.hoValue) { "thread scope" }
      } operation: {
        result.withLock { $0 = Task { try container[\.hoValue] } }
      }
    }
    thread.start()
    #expect(await waitUntil(timeout: hangBound) { result.withLock { $0 != nil } })
    let task = try #require(result.withLock { $0 })
    #expect(try await task.value == "thread scope")
  }

  @Test func graphScopedOverrideIsSharedWithinOneResolution() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoStore, scope: .graph) { Token("graph") }
      $0.register(\.hoRepo, scope: .unique) { r in HoRepo(store: try r[\.hoStore]) }
      $0.register(\.hoKeeper) { r in
        let a = try r[\.hoRepo]
        let b = try r[\.hoRepo]
        #expect(a.store === b.store)
        return HoKeeper(r)
      }
    } operation: { () async throws in
      _ = try container[\.hoKeeper]
      #expect(try container[\.hoRepo].store !== container[\.hoRepo].store)
    }
  }

  @Test func anInnerConfigureThatThrowsLeavesTheOuterScopeAsItWas() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { Token("outer") }
    } operation: { () async throws in
      let outer = try container[\.hoStore]
      await #expect(throws: PlannedFailure.self) {
        try await withOverrides {
          $0.register(\.hoStore, scope: .singleton) { Token("inner") }
          throw PlannedFailure()
        } operation: { () async throws in
          Issue.record("ran")
        }
      }
      try await withOverrides {
        $0.register(\.hoStore, scope: .singleton) { Token("inner") }
      } operation: { () async throws in
        #expect(try container[\.hoStore].label == "inner")
      }
      #expect(try container[\.hoStore] === outer)
    }
  }

  @Test func concurrentFirstUsesInAScopeMakeOneSingleton() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) {
        made.increment()
        return Token("once")
      }
    } operation: { () async throws in
      let tokens = try await withThrowingTaskGroup(of: Token.self) { group in
        for _ in 0..<50 { group.addTask { try container[\.hoStore] } }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1)
    }
    #expect(made.count == 1)
  }

  @Test func aScopesSingletonOnTheSharedContainerIsFreedWhenTheScopeEnds() async throws {
    weak var weakToken: Token?
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { Token("scoped on shared") }
    } operation: { () async throws in
      let token = try Container.shared[\.hoStore]
      weakToken = token
      #expect(HoInjectedUser().store === token)
    }
    #expect(await freedSoon { weakToken == nil })
  }
}

enum OverrideScopeCarrier {
  static func resolve(_ container: Container) async throws -> HoScreen {
    try await container.resolve(\.hoMain)
  }
}

@Suite(.container { $0.register(\.hoRequired) { Token("from container trait") } })
struct OverrideInUseContainerTraitTests {
  @Test(.overrides { $0.register(\.hoValue) { "overridden" } }, arguments: 0..<4)
  func validateInTheTestsContainerAndScope(n: Int) async throws {
    Container.current.register(\.hoNeedsRequired, scope: .unique) { r in HoRepo(store: try r[\.hoRequired]) }
    let report = await Container.current.validate()
    #expect(report.isValid, "\(report)")
    #expect(try Container.current[\.hoValue] == "overridden")
  }
}

@Suite struct OverrideInUseMatrixTests {
  static let scopes: [Scope] = [.unique, .graph, .weak, .cached, .singleton]

  @Test(arguments: KindUnderTest.all, scopes)
  func parallelScopesOverrideEveryKindWithEveryScope(kind: KindUnderTest, scope: Scope) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "app", nil)
    let app = try await kind.resolve(container)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for scopeNumber in 0..<4 {
        group.addTask {
          try await withOverrides {
            kind.register($0, scope, Counter(), "s\(scopeNumber)", nil)
          } operation: { () async throws in
            let first = try await kind.resolve(container)
            let second = try await kind.resolve(container)
            #expect(first.label.hasPrefix("s\(scopeNumber)"))
            #expect(second.label.hasPrefix("s\(scopeNumber)"))
            let shared = scope == .weak || scope == .cached || scope == .singleton
            #expect((first === second) == shared, "\(scope)")
            try await withOverrides {
              kind.register($0, scope, Counter(), "inner\(scopeNumber)", nil)
            } operation: { () async throws in
              #expect(try await kind.resolve(container).label.hasPrefix("inner\(scopeNumber)"))
            }
            let after = try await kind.resolve(container)
            #expect(after.label.hasPrefix("s\(scopeNumber)"))
            #expect((after === first) == shared, "\(scope)")
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try await kind.resolve(container) === app)
  }
}

@MainActor final class HoMainScreenUser {
  @Injected(\.hoMain) var screen: HoScreen
  @LazyInjected(\.hoMain) var lazyScreen: HoScreen
}

@Suite struct OverrideInUseMainActorTests {
  @MainActor @Test(.overrides { $0.register(\.hoMain, scope: .singleton) { HoScreen("trait") } }, arguments: 0..<3)
  func mainActorTestsUseTheirScope(n: Int) async throws {
    let container = Container()
    let screen = try container[\.hoMain]
    #expect(screen.title == "trait")
    try await withOverrides {
      $0.register(\.hoMain, scope: .singleton) { HoScreen("block \(n)") }
    } operation: { () async throws in
      #expect(try container[\.hoMain].title == "block \(n)")
      let user = try await withContainer(container) { () async throws in HoMainScreenUser() }
      #expect(user.screen.title == "block \(n)")
      #expect(user.lazyScreen === user.screen)
    }
    #expect(try container[\.hoMain] === screen)
    let fromBackground = try await Task.detached { try await container.resolve(\.hoMain) }.value
    #expect(fromBackground.title == "default")
  }
}

@Suite struct OverrideInUseValidationTests {
  @Test func validateInANestedScopeFindsNothingWhereResolvingThereWorks() async throws {
    let container = Container()
    container.register(\.hoRequired, scope: .singleton) { Token("app") }
    try await withOverrides {
      $0.register(\.hoStore, scope: .singleton) { Token("outer") }
      $0.register(\.hoRepo, scope: .singleton) { r in HoRepo(store: try r[\.hoStore]) }
      $0.register(\.hoNeedsRequired, scope: .singleton) { r in HoRepo(store: try r[\.hoRequired]) }
    } operation: { () async throws in
      try await withOverrides {
        $0.register(\.hoStore, scope: .singleton) { Token("inner") }
        $0.register(\.hoRequired, scope: .singleton) { Token("inner") }
        $0.register(\.hoKeeper, scope: .singleton) { r in
          _ = try r[\.hoRepo]
          return HoKeeper(r)
        }
      } operation: { () async throws in
        _ = try container[\.hoKeeper]
        #expect(try container[\.hoRepo].store.label == "outer")
        let report = await container.validate(including: [\.hoRepo, \.hoNeedsRequired])
        #expect(report.isValid, "\(report)")
      }
    }
  }

  @Test func validateInANestedScopeFollowsAHandleTheEnclosingScopesSingletonMade() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.hoHandleHolder, scope: .singleton) { r in HoHandleHolder(session: r.lazy(\.childSession)) }
    } operation: { () async throws in
      try await withOverrides {
        $0.register(\.childSession) { Token("inner") }
      } operation: { () async throws in
        #expect(throws: ResolutionError.self) { try container[\.hoHandleHolder].session.value }
        let report = await container.validate()
        #expect(report.problems.contains { $0.dependency.name == "\\.childSession" }, "\(report)")
      }
    }
  }

  /// An enclosing scope's singleton override is made in the enclosing scope's copy, which does
  /// not see what the inner scope registers: resolving it in the inner scope throws, and
  /// `validate()` there, which validates the container as the scope sees it, must say so.
  @Test func validateInANestedScopeReportsWhatResolvingThereThrows() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.childSessionCache, scope: .singleton) { r in Token(try r[\.childSession].label) }
    } operation: { () async throws in
      try await withOverrides {
        $0.register(\.childSession) { Token("inner") }
      } operation: { () async throws in
        #expect(throws: ResolutionError.self) { try container[\.childSessionCache] }
        let report = await container.validate()
        let problem = try #require(report.problems.first, "\(report)")
        #expect(problem.path.map(\.name) == ["\\.childSessionCache", "\\.childSession"])
      }
    }
  }
}

@Suite struct OverrideInUseMultibindingMatrixTests {
  @Test(arguments: MultibindingKindUnderTest.all, OverrideInUseMatrixTests.scopes)
  func parallelScopesContributeWithEveryScope(kind: MultibindingKindUnderTest, scope: Scope) async throws {
    let container = Container()
    kind.contribute(container, .singleton, "app")
    let app = try await kind.resolve(container)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for scopeNumber in 0..<4 {
        group.addTask {
          try await withOverrides {
            kind.contribute($0, scope, "s\(scopeNumber)")
          } operation: { () async throws in
            let first = try await kind.resolve(container)
            let second = try await kind.resolve(container)
            #expect(first.map(\.label) == ["app", "s\(scopeNumber)"])
            let shared = scope == .weak || scope == .cached || scope == .singleton
            #expect((first[1] === second[1]) == shared, "\(scope)")
            #expect(first[0] === second[0])
          }
        }
      }
      try await group.waitForAll()
    }
    let after = try await kind.resolve(container)
    #expect(after.count == 1 && after[0] === app[0])
  }
}

/// Made by a factory; injects its store itself, from `Container.current`.
final class HoSelfInjecting: Sendable {
  let store: Token
  init() {
    let injected = HoInjectedUser()
    store = injected.store
  }
}

extension Dependencies {
  var hoSelfInjecting: Key<HoSelfInjecting> { Key { HoSelfInjecting() }.scope(.singleton) }
}

@Suite struct OverrideInUseInjectedInFactoriesTests {
  @Test(arguments: 0..<6) func injectedInsideAFactoryUsesTheScope(n: Int) async throws {
    let container = Container()
    try await withContainer(container) { () async throws in
      try await withOverrides {
        $0.register(\.hoStore, scope: .singleton) { Token("outer \(n)") }
        $0.register(\.hoSelfInjecting, scope: .singleton) { HoSelfInjecting() }
      } operation: { () async throws in
        let outerStore = try container[\.hoStore]
        try await withOverrides {
          $0.register(\.hoStore, scope: .singleton) { Token("inner \(n)") }
        } operation: { () async throws in
          // The enclosing scope's singleton is made there, with the enclosing scope's store.
          #expect(try container[\.hoSelfInjecting].store === outerStore)
          #expect(try container[\.hoStore].label == "inner \(n)")
        }
      }
    }
  }
}

extension Dependencies {
  var hoResource: Key<Resource> { .required() }
}

@Suite struct OverrideInUseDisposalTests {
  /// One scope ends, and disposes its singleton, while another, on the same shared container,
  /// still uses its own.
  @Test func aScopeThatEndsDisposesItsOwnSingletonOnly() async throws {
    let log = Collected<String>()
    let (firstHasIt, firstResolved) = AsyncStream.makeStream(of: Void.self)
    let (firstEnded, endFirst) = AsyncStream.makeStream(of: Void.self)
    async let second: Resource = withOverrides {
      $0.register(\.hoResource, scope: .singleton) { Resource("second", log: log) }
    } operation: { () async throws in
      let mine = try Container.shared[\.hoResource]
      for await _ in firstHasIt { break }
      for await _ in firstEnded { break }
      #expect(mine.closeCount == 0)
      #expect(try Container.shared[\.hoResource] === mine)
      return mine
    }
    let first = try await withOverrides {
      $0.register(\.hoResource, scope: .singleton) { Resource("first", log: log) }
    } operation: { () async throws in
      let mine = try Container.shared[\.hoResource]
      firstResolved.yield()
      return mine
    }
    #expect(first.closeCount == 1)
    endFirst.yield()
    let secondResource = try await second
    #expect(secondResource.closeCount == 1)
    #expect(log.all == ["first", "second"])
  }
}
