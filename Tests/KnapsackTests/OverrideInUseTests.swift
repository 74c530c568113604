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
  var hoNeedsRequired: Key<HoRepo> { Key { r in HoRepo(store: try r[\.hoRequired]) }.scope(.singleton) }
}

/// Keeps the resolver its factory was given, to resolve with later.
final class HoKeeper: Sendable {
  let resolver: Resolver
  init(_ resolver: Resolver) { self.resolver = resolver }
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
