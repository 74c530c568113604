import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

extension Dependencies {
  var inUseStore: Key<Token> { Key { Token("default store") } }
  var inUseValue: Key<String> { Key { "default" } }
  var inUseKeeper: Key<InUseKeeper> { Key { r in InUseKeeper(r) }.scope(.singleton) }
  var inUseApp: Key<Token> { Key { Token("app singleton") }.scope(.singleton) }
  var inUseRepo: Key<InUseRepo> { Key { r in InUseRepo(store: try r[\.inUseStore]) }.scope(.singleton) }
  var inUseAsync: AsyncKey<Token> { AsyncKey { Token("async default") } }
  var inUseArg: ArgumentKey<Int, Token> { ArgumentKey { _, n in Token("arg \(n)") } }
  var inUsePlugins: Multibinding<Token> { Multibinding() }
  var inUseMain: MainActorKey<InUseScreen> { MainActorKey { InUseScreen("default") } }
  var inUseRequired: Key<Token> { .required() }
  var inUseHandleHolder: Key<InUseHandleHolder> { .required() }
  var inUseNeedsRequired: Key<InUseRepo> { Key { r in InUseRepo(store: try r[\.inUseRequired]) }.scope(.singleton) }
}

/// Keeps the resolver its factory was given, to resolve with later.
final class InUseKeeper: Sendable {
  let resolver: Resolver
  init(_ resolver: Resolver) { self.resolver = resolver }
}

final class InUseHandleHolder: Sendable {
  let session: Lazy<Key<Token>>
  init(session: Lazy<Key<Token>>) { self.session = session }
}

final class InUseRepo: Sendable {
  let store: Token
  init(store: Token) { self.store = store }
}

@MainActor final class InUseScreen {
  let title: String
  init(_ title: String) { self.title = title }
}

struct InUseInjectedUser {
  @Injected(\.inUseStore) var store: Token
  @Injected(\.inUseApp) var app: Token
  @LazyInjected(\.inUseStore) var lazyStore: Token
}

@Suite struct OverrideInUseTests {
  // MARK: Kept resolvers

  /// A resolver kept by an instance made in a scope is a fresh top-level resolution in the scope
  /// open where it is used: in a nested scope, it gets the enclosing scope's singleton, and the
  /// nested scope's app singletons, as the container does (not a second copy's).
  @Test func aResolverKeptInAnEnclosingScopeUsesItsSingletonInANestedScope() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { Token("suite fake") }
    } operation: { () async throws in
      let keeper = try container[\.inUseKeeper]
      let store = try container[\.inUseStore]
      #expect(try keeper.resolver[\.inUseStore] === store)
      try await withOverrides {
        $0.register(\.inUseValue) { "inner" }
      } operation: { () async throws in
        #expect(try container[\.inUseStore] === store)
        #expect(try keeper.resolver[\.inUseValue] == "inner")
        #expect(try keeper.resolver[\.inUseStore] === store)
        #expect(try keeper.resolver[\.inUseApp] === container[\.inUseApp])
      }
    }
  }

  /// The scope that made the resolver's container has ended and is freed: a later scope, which
  /// the allocator may place at its address, must not take that copy for its own and resolve
  /// with the ended scope's overrides.
  @Test func aResolverKeptFromAnEndedScopeResolvesInTheScopeOpenNow() async throws {
    let container = Container()
    let keeper = try await withOverrides {
      $0.register(\.inUseValue) { "ended" }
    } operation: { () async throws in
      try container[\.inUseKeeper]
    }
    for round in 0..<200 {
      try await withOverrides {
        $0.register(\.inUseValue) { "open \(round)" }
      } operation: { () async throws in
        #expect(try keeper.resolver[\.inUseValue] == "open \(round)")
      }
    }
  }

  // MARK: Every key kind, parallel scopes

  @Test(arguments: 0..<8) func everyKeyKindIsOverriddenPerScope(n: Int) async throws {
    let container = Container()
    container.contribute(to: \.inUsePlugins) { _ in Token("base plugin") }
    let store = Token("store \(n)")
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { store }
      $0.register(\.inUseAsync, scope: .singleton) { Token("async \(n)") }
      $0.register(\.inUseArg, scope: .singleton) { _, a in Token("arg \(n) \(a)") }
      $0.contribute(to: \.inUsePlugins, scope: .singleton) { _ in Token("plugin \(n)") }
      $0.register(\.inUseMain, scope: .singleton) { InUseScreen("main \(n)") }
    } operation: { () async throws in
      #expect(try container[\.inUseStore] === store)
      #expect(try await container.resolve(\.inUseAsync).label == "async \(n)")
      #expect(try container.resolve(\.inUseArg, argument: 3).label == "arg \(n) 3")
      #expect(try container.resolve(\.inUseArg, argument: 3) === container.resolve(\.inUseArg, argument: 3))
      let plugins = try container[\.inUsePlugins].map(\.label)
      #expect(plugins == ["base plugin", "plugin \(n)"])
      let title = try await container.resolve(\.inUseMain).title
      #expect(title == "main \(n)")
      let user = InUseInjectedUser()
      #expect(user.store === store)
      #expect(user.lazyStore === store)
      let viaContainer = try await withContainer(container) { () async throws in InUseInjectedUser() }
      #expect(viaContainer.store === store)
      #expect(try viaContainer.app === container[\.inUseApp])
    }
  }

  // MARK: withOverrides and withContainer combined

  @Test(arguments: 0..<4) func withOverridesAndWithContainerInBothOrders(n: Int) async throws {
    let container = Container()
    container.register(\.inUseStore, scope: .singleton) { Token("container's") }
    let fake = Token("fake \(n)")
    try await withContainer(container) { () async throws in
      try await withOverrides {
        $0.register(\.inUseStore, scope: .singleton) { fake }
      } operation: { () async throws in
        #expect(InUseInjectedUser().store === fake)
      }
    }
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { fake }
    } operation: { () async throws in
      try await withContainer(container) { () async throws in
        let user = InUseInjectedUser()
        #expect(user.store === fake)
        #expect(user.app === (try container[\.inUseApp]))
      }
    }
    #expect(try container[\.inUseStore].label == "container's")
  }

  // MARK: Overriding with another scope

  @Test func overridingWithAnotherScope() async throws {
    let container = Container()
    container.register(\.inUseStore, scope: .singleton) { Token("base") }
    let base = try container[\.inUseStore]
    try await withOverrides {
      $0.register(\.inUseStore, scope: .unique) { Token("unique") }
    } operation: { () async throws in
      #expect(try container[\.inUseStore] !== container[\.inUseStore])
    }
    try await withOverrides {
      $0.register(\.inUseStore, scope: .cached) { Token("cached") }
    } operation: { () async throws in
      let first = try container[\.inUseStore]
      #expect(try container[\.inUseStore] === first)
      container.resetCached()
      #expect(try container[\.inUseStore] !== first)
    }
    try await withOverrides {
      $0.register(\.inUseStore, scope: .weak) { Token("weak") }
    } operation: { () async throws in
      let held = try container[\.inUseStore]
      #expect(try container[\.inUseStore] === held)
    }
    #expect(try container[\.inUseStore] === base)
    // A unique base overridden with a singleton.
    let other = Container()
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { Token("singleton") }
    } operation: { () async throws in
      let child = other.makeChild()
      #expect(try other[\.inUseStore] === child[\.inUseStore])
    }
  }

  // MARK: Base singletons that depend on an override

  @Test func aBaseSingletonRemadeInAScopeDoesNotLeak() async throws {
    let container = Container()
    let outside = try container[\.inUseRepo]
    let (inside, fake) = try await withOverrides {
      $0.register(\.inUseStore) { Token("fake") }
    } operation: { () async throws in
      (try container[\.inUseRepo], try container[\.inUseStore])
    }
    #expect(inside !== outside)
    #expect(inside.store.label == "fake")
    #expect(fake.label == "fake")
    #expect(try container[\.inUseRepo] === outside)
    #expect(outside.store.label == "default store")
  }

  @Test func aRepoFirstMadeInAScopeDoesNotLeakOut() async throws {
    let container = Container()
    _ = try await withOverrides {
      $0.register(\.inUseStore) { Token("fake") }
    } operation: { () async throws in
      try container[\.inUseRepo]
    }
    #expect(try container[\.inUseRepo].store.label == "default store")
  }

  // MARK: Validation inside a scope

  @Test func validateInsideAScopeSeesItsOverrides() async throws {
    let container = Container()
    container.register(\.inUseNeedsRequired) { r in InUseRepo(store: try r[\.inUseRequired]) }
    #expect(await !container.validate().isValid)
    try await withOverrides {
      $0.register(\.inUseRequired, scope: .singleton) { Token("provided") }
    } operation: { () async throws in
      let report = await container.validate()
      #expect(report.isValid, "\(report)")
    }
  }

  @Test func validateInsideAScopeMakesNothingThatStays() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) {
        made.increment()
        return Token("fake")
      }
    } operation: { () async throws in
      let first = try container[\.inUseStore]
      _ = await container.validate(including: [\.inUseStore])
      #expect(try container[\.inUseStore] === first)
    }
  }

  // MARK: Handles

  @Test func aLazyMadeInAScopeResolvesThereWhenReadOutside() async throws {
    let container = Container()
    let lazy = await withOverrides {
      $0.register(\.inUseValue) { "inside" }
    } operation: { () async in
      container.lazy(\.inUseValue)
    }
    #expect(try lazy.value == "inside")
    let provider = container.provider(\.inUseValue)
    try await withOverrides {
      $0.register(\.inUseValue) { "scoped" }
    } operation: { () async throws in
      #expect(try provider.get() == "default")
    }
  }

  // MARK: Detached and unstructured tasks

  @Test func unstructuredTasksInheritAndDetachedOnesDoNot() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.inUseValue) { "inside" }
    } operation: { () async throws in
      #expect(try await Task { try container[\.inUseValue] }.value == "inside")
      #expect(try await Task.detached { try container[\.inUseValue] }.value == "default")
      let fromMain = try await Task { @MainActor in try container[\.inUseValue] }.value
      #expect(fromMain == "inside")
    }
  }
}

@Suite(.overrides { $0.register(\.inUseStore, scope: .singleton) { Token("suite") } })
struct OverrideInUseTraitTests {
  let container = Container()

  @Test(.container { $0.register(\.inUseValue) { "container trait" } }, arguments: 0..<6)
  func containerAndOverridesTraitsTogether(n: Int) async throws {
    let user = InUseInjectedUser()
    #expect(user.store.label == "suite")
    #expect(try Container.current[\.inUseValue] == "container trait")
    #expect(try Container.current[\.inUseStore] === user.store)
    #expect(try container[\.inUseStore] !== user.store)
  }

  @Test(.overrides { $0.register(\.inUseValue) { "test" } }, arguments: 0..<6)
  func nestedTraitUsesTheSuiteSingleton(n: Int) async throws {
    let keeper = try container[\.inUseKeeper]
    let store = try container[\.inUseStore]
    #expect(try keeper.resolver[\.inUseStore] === store)
    #expect(try keeper.resolver[\.inUseValue] == "test")
  }
}

@Suite struct NestedOverrideScopeTests {
  @Test func aNestedScopeGetsTheOuterMainActorSingletonFromTheBackground() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.inUseMain, scope: .singleton) { InUseScreen("outer") }
    } operation: { () async throws in
      let outer = try await container.resolve(\.inUseMain)
      try await withOverrides {
        $0.register(\.inUseValue) { "inner" }
      } operation: { () async throws in
        let inner = try await Task.detached {
          try await OverrideScopeCarrier.resolve(container)
        }.value
        #expect(inner.title == "default")
        let fromChild = try await withThrowingTaskGroup(of: InUseScreen.self) { group in
          group.addTask { try await container.resolve(\.inUseMain) }
          return try await group.next()!
        }
        #expect(fromChild === outer)
        let provider = container.provider(\.inUseMain)
        #expect(try await provider.get() === outer)
      }
      #expect(try await container.resolve(\.inUseMain) === outer)
    }
  }

  @Test func baseMultibindingSingletonsAreTheScopesOwn() async throws {
    let container = Container()
    container.contribute(to: \.inUsePlugins, scope: .singleton) { r in Token("needs \(try r[\.inUseValue])") }
    let outside = try container[\.inUsePlugins]
    let inside = try await withOverrides {
      $0.register(\.inUseValue) { "fake" }
    } operation: { () async throws in
      try container[\.inUsePlugins]
    }
    #expect(inside.map(\.label) == ["needs fake"])
    #expect(try container[\.inUsePlugins][0] === outside[0])
    #expect(outside.map(\.label) == ["needs default"])
  }

  @Test func aSynchronousScopeOnAThreadIsInheritedByATaskMadeThere() async throws {
    let container = Container()
    let result = Locked<Task<String, any Error>?>(nil)
    let thread = Thread {
      withOverrides {
        $0.register(\.inUseValue) { "thread scope" }
      } operation: {
        result.withLock { $0 = Task { try container[\.inUseValue] } }
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
      $0.register(\.inUseStore, scope: .graph) { Token("graph") }
      $0.register(\.inUseRepo, scope: .unique) { r in InUseRepo(store: try r[\.inUseStore]) }
      $0.register(\.inUseKeeper) { r in
        let a = try r[\.inUseRepo]
        let b = try r[\.inUseRepo]
        #expect(a.store === b.store)
        return InUseKeeper(r)
      }
    } operation: { () async throws in
      _ = try container[\.inUseKeeper]
      #expect(try container[\.inUseRepo].store !== container[\.inUseRepo].store)
    }
  }

  @Test func anInnerConfigureThatThrowsLeavesTheOuterScopeAsItWas() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { Token("outer") }
    } operation: { () async throws in
      let outer = try container[\.inUseStore]
      await #expect(throws: PlannedFailure.self) {
        try await withOverrides {
          $0.register(\.inUseStore, scope: .singleton) { Token("inner") }
          throw PlannedFailure()
        } operation: { () async throws in
          Issue.record("ran")
        }
      }
      try await withOverrides {
        $0.register(\.inUseStore, scope: .singleton) { Token("inner") }
      } operation: { () async throws in
        #expect(try container[\.inUseStore].label == "inner")
      }
      #expect(try container[\.inUseStore] === outer)
    }
  }

  @Test func concurrentFirstUsesInAScopeMakeOneSingleton() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) {
        made.increment()
        return Token("once")
      }
    } operation: { () async throws in
      let tokens = try await withThrowingTaskGroup(of: Token.self) { group in
        for _ in 0..<50 { group.addTask { try container[\.inUseStore] } }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1)
    }
    #expect(made.count == 1)
  }

  @Test func aScopesSingletonOnTheSharedContainerIsFreedWhenTheScopeEnds() async throws {
    weak var weakToken: Token?
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { Token("scoped on shared") }
    } operation: { () async throws in
      let token = try Container.shared[\.inUseStore]
      weakToken = token
      #expect(InUseInjectedUser().store === token)
    }
    #expect(await freedSoon { weakToken == nil })
  }
}

enum OverrideScopeCarrier {
  static func resolve(_ container: Container) async throws -> InUseScreen {
    try await container.resolve(\.inUseMain)
  }
}

@Suite(.container { $0.register(\.inUseRequired) { Token("from container trait") } })
struct OverrideInUseContainerTraitTests {
  @Test(.overrides { $0.register(\.inUseValue) { "overridden" } }, arguments: 0..<4)
  func validateInTheTestsContainerAndScope(n: Int) async throws {
    Container.current.register(\.inUseNeedsRequired, scope: .unique) { r in InUseRepo(store: try r[\.inUseRequired]) }
    let report = await Container.current.validate()
    #expect(report.isValid, "\(report)")
    #expect(try Container.current[\.inUseValue] == "overridden")
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

@MainActor final class InUseMainScreenUser {
  @Injected(\.inUseMain) var screen: InUseScreen
  @LazyInjected(\.inUseMain) var lazyScreen: InUseScreen
}

@Suite struct OverrideInUseMainActorTests {
  @MainActor
  @Test(.overrides { $0.register(\.inUseMain, scope: .singleton) { InUseScreen("trait") } }, arguments: 0..<3)
  func mainActorTestsUseTheirScope(n: Int) async throws {
    let container = Container()
    let screen = try container[\.inUseMain]
    #expect(screen.title == "trait")
    try await withOverrides {
      $0.register(\.inUseMain, scope: .singleton) { InUseScreen("block \(n)") }
    } operation: { () async throws in
      #expect(try container[\.inUseMain].title == "block \(n)")
      let user = try await withContainer(container) { () async throws in InUseMainScreenUser() }
      #expect(user.screen.title == "block \(n)")
      #expect(user.lazyScreen === user.screen)
    }
    #expect(try container[\.inUseMain] === screen)
    let fromBackground = try await Task.detached { try await container.resolve(\.inUseMain) }.value
    #expect(fromBackground.title == "default")
  }
}

@Suite struct OverrideInUseValidationTests {
  @Test func validateInANestedScopeFindsNothingWhereResolvingThereWorks() async throws {
    let container = Container()
    container.register(\.inUseRequired, scope: .singleton) { Token("app") }
    try await withOverrides {
      $0.register(\.inUseStore, scope: .singleton) { Token("outer") }
      $0.register(\.inUseRepo, scope: .singleton) { r in InUseRepo(store: try r[\.inUseStore]) }
      $0.register(\.inUseNeedsRequired, scope: .singleton) { r in InUseRepo(store: try r[\.inUseRequired]) }
    } operation: { () async throws in
      try await withOverrides {
        $0.register(\.inUseStore, scope: .singleton) { Token("inner") }
        $0.register(\.inUseRequired, scope: .singleton) { Token("inner") }
        $0.register(\.inUseKeeper, scope: .singleton) { r in
          _ = try r[\.inUseRepo]
          return InUseKeeper(r)
        }
      } operation: { () async throws in
        _ = try container[\.inUseKeeper]
        #expect(try container[\.inUseRepo].store.label == "outer")
        let report = await container.validate(including: [\.inUseRepo, \.inUseNeedsRequired])
        #expect(report.isValid, "\(report)")
      }
    }
  }

  @Test func validateInANestedScopeFollowsAHandleTheEnclosingScopesSingletonMade() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.inUseHandleHolder, scope: .singleton) { r in InUseHandleHolder(session: r.lazy(\.childSession)) }
    } operation: { () async throws in
      try await withOverrides {
        $0.register(\.childSession) { Token("inner") }
      } operation: { () async throws in
        #expect(throws: ResolutionError.self) { try container[\.inUseHandleHolder].session.value }
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
final class InUseSelfInjecting: Sendable {
  let store: Token
  init() {
    let injected = InUseInjectedUser()
    store = injected.store
  }
}

extension Dependencies {
  var inUseSelfInjecting: Key<InUseSelfInjecting> { Key { InUseSelfInjecting() }.scope(.singleton) }
}

@Suite struct OverrideInUseInjectedInFactoriesTests {
  @Test(arguments: 0..<6) func injectedInsideAFactoryUsesTheScope(n: Int) async throws {
    let container = Container()
    try await withContainer(container) { () async throws in
      try await withOverrides {
        $0.register(\.inUseStore, scope: .singleton) { Token("outer \(n)") }
        $0.register(\.inUseSelfInjecting, scope: .singleton) { InUseSelfInjecting() }
      } operation: { () async throws in
        let outerStore = try container[\.inUseStore]
        try await withOverrides {
          $0.register(\.inUseStore, scope: .singleton) { Token("inner \(n)") }
        } operation: { () async throws in
          // The enclosing scope's singleton is made there, with the enclosing scope's store.
          #expect(try container[\.inUseSelfInjecting].store === outerStore)
          #expect(try container[\.inUseStore].label == "inner \(n)")
        }
      }
    }
  }
}

extension Dependencies {
  var inUseResource: Key<Resource> { .required() }
}

@Suite struct OverrideInUseDisposalTests {
  /// One scope ends, and disposes its singleton, while another, on the same shared container,
  /// still uses its own.
  @Test func aScopeThatEndsDisposesItsOwnSingletonOnly() async throws {
    let log = Collected<String>()
    let (firstHasIt, firstResolved) = AsyncStream.makeStream(of: Void.self)
    let (firstEnded, endFirst) = AsyncStream.makeStream(of: Void.self)
    async let second: Resource = withOverrides {
      $0.register(\.inUseResource, scope: .singleton) { Resource("second", log: log) }
    } operation: { () async throws in
      let mine = try Container.shared[\.inUseResource]
      for await _ in firstHasIt { break }
      for await _ in firstEnded { break }
      #expect(mine.closeCount == 0)
      #expect(try Container.shared[\.inUseResource] === mine)
      return mine
    }
    let first = try await withOverrides {
      $0.register(\.inUseResource, scope: .singleton) { Resource("first", log: log) }
    } operation: { () async throws in
      let mine = try Container.shared[\.inUseResource]
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
