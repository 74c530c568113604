import Foundation
import Knapsack
import Testing

extension Dependencies {
  var childNumber: Key<Int> { Key { 0 } }
  var childSession: Key<Token> { .required() }
  var childShared: Key<Token> { Key { Token("root singleton") }.scope(.singleton) }
  var childCached: Key<Token> { Key { Token("root cached") }.scope(.cached) }
  var childRepository: Key<Repository> { Key { r in Repository(storage: try r[\.storage]) } }
  var childSessionCache: Key<Token> {
    Key { r in Token("cache of " + (try r[\.childSession]).label) }.scope(.singleton)
  }
  /// A graph-scoped unit of work, a parent's singleton that reads it, and a child's key that asks
  /// for both: registered by the test.
  var childUnit: Key<Token> { .required() }
  var childUnitReader: Key<Token> { .required() }
  var childUnitUser: Key<[Token]> { .required() }
  /// A weak-scoped struct that reads the session: registered by the test.
  var childWeakSessionLabel: Key<String> { .required() }
  var childAsyncSessionCache: AsyncKey<Token> {
    AsyncKey { r in Token("cache of " + (try r[\.childSession]).label) }.scope(.singleton)
  }
}

@Suite struct ChildContainerTests {
  /// A graph-scoped instance is one per resolution in each container that makes it: the child's
  /// factories share the child's, and a parent's singleton made during the child's resolution
  /// gets the parent's, made with the parent's registrations (as documented in
  /// ContainersAndChildScopes.md).
  @Test func aGraphScopedKeyIsOnePerResolutionInEachContainerThatMakesIt() throws {
    let parent = Container()
    let made = Counter()
    parent.register(\.childUnit, scope: .graph) { Token("unit \(made.increment())") }
    parent.register(\.childUnitReader, scope: .singleton) { r in Token("reads " + (try r[\.childUnit]).label) }
    let child = parent.makeChild()
    child.register(\.childUnitUser) { r in [try r[\.childUnit], try r[\.childUnitReader], try r[\.childUnit]] }
    let tokens = try child[\.childUnitUser]
    #expect(tokens[0] === tokens[2], "the child's factories share one instance")
    #expect(made.count == 2)
    #expect(tokens[0].label == "unit 1" && tokens[1].label == "reads unit 2", "\(tokens.map(\.label))")
    // Resolved in the parent alone, its factories share the parent's instance as usual.
    parent.register(\.childUnitUser) { r in [try r[\.childUnit], try r[\.childUnit]] }
    let own = try parent[\.childUnitUser]
    #expect(own[0] === own[1])
  }

  @Test func aFiveThousandDeepNestingOfChildrenWorksOnASmallStack() async throws {
    // Each walk up the hierarchy (registrations, decorators, contributions, disposal, observers,
    // plans to invalidate, an override scope's copies) is a loop, not a call per level.
    let root = Container()
    root.register(\.childShared, scope: .singleton) { Token("root's") }
    root.decorate(\.childNumber) { _, number in number + 1 }
    var innermost = root
    for _ in 1..<5_000 { innermost = innermost.makeChild() }
    innermost.register(\.childSession) { Token("innermost's") }
    let deepest = innermost
    // A handle made in the override scope keeps the scope, and its copy of each container, alive
    // after the thread: releasing 5,000 copies, each holding its parent, takes a call per level.
    let keepsTheScope = Locked<Lazy<Key<Token>>?>(nil)
    let outcome = await onThread(stackSize: 512 * 1024) { () -> Result<[String], any Error> in
      Result {
        var seen = [
          try deepest[\.childShared].label, "\(try deepest[\.childNumber])", try deepest[\.childSession].label,
          "\(deepest.isDisposed)",
        ]
        // Registering in the root invalidates the plans of every descendant.
        root.register(\.childNumber) { 10 }
        seen.append("\(try deepest[\.childNumber])")
        seen.append(
          try withOverrides {
            $0.register(\.childSession) { Token("overridden") }
          } operation: {
            keepsTheScope.withLock { $0 = deepest.lazy(\.childSession) }
            return try deepest[\.childSession].label + " " + (try deepest[\.childShared].label)
          })
        return seen
      }
    }
    #expect(try outcome.get() == ["root's", "1", "innermost's", "false", "11", "overridden root's"])
    #expect(try keepsTheScope.withLock { $0 }?.value.label == "overridden")
    let report = await deepest.validate()
    #expect(report.isValid, "\(report)")
  }

  @Test func childSeesItsParentsRegistrations() async throws {
    let parent = Container()
    parent.register(\.childNumber) { 1 }
    parent.register(type: NamedService.self, name: "parent") { NamedService("parent") }
    let child = parent.makeChild()
    #expect(try child[\.childNumber] == 1)
    #expect(try child.resolve(type: NamedService.self, name: "parent").name == "parent")
    #expect(child.isRegistered(\.childNumber))
  }

  @Test func childSeesRegistrationsTheParentMakesLater() async throws {
    let parent = Container()
    let child = parent.makeChild()
    #expect(try child[\.childNumber] == 0)
    parent.register(\.childNumber) { 5 }
    #expect(try child[\.childNumber] == 5)
  }

  @Test func grandchildSeesEveryAncestor() async throws {
    let root = Container()
    root.register(\.childNumber) { 1 }
    let grandchild = root.makeChild().makeChild()
    #expect(try grandchild[\.childNumber] == 1)
  }

  @Test func childOverridesDoNotLeakToTheParent() async throws {
    let parent = Container()
    parent.register(\.childNumber) { 1 }
    let child = parent.makeChild()
    child.register(\.childNumber) { 2 }
    child.register(\.childSession) { Token("session") }
    child.register(type: NamedService.self) { NamedService("child") }
    #expect(try child[\.childNumber] == 2)
    #expect(try child[\.childSession].label == "session")
    #expect(try parent[\.childNumber] == 1)
    #expect(throws: ResolutionError.self) { try parent[\.childSession] }
    #expect(throws: ResolutionError.self) { try parent.resolve(type: NamedService.self) }
    #expect(!parent.isRegistered(\.childSession))
    #expect(!parent.isRegistered(type: NamedService.self))
  }

  @Test func siblingsDoNotSeeEachOther() async throws {
    let parent = Container()
    let alice = parent.makeChild()
    let bob = parent.makeChild()
    alice.register(\.childSession) { Token("alice") }
    bob.register(\.childSession) { Token("bob") }
    #expect(try alice[\.childSession].label == "alice")
    #expect(try bob[\.childSession].label == "bob")
  }

  @Test func parentSingletonsAreSharedWithChildren() async throws {
    let parent = Container()
    let child = parent.makeChild()
    // A key's default singleton and a registered one both live in the container that owns them.
    #expect(try child[\.childShared] === parent[\.childShared])
    parent.register(\.scopeToken, scope: .singleton) { Token("registered") }
    let fromChild = try child[\.scopeToken]
    #expect(try parent[\.scopeToken] === fromChild)
    #expect(try parent.makeChild()[\.scopeToken] === fromChild)
  }

  @Test func thousandChildrenResolvingTheirParentsSingletonAtOnceShareOneInstance() async throws {
    let parent = Container()
    let counter = Counter()
    let arrivals = Counter()
    parent.register(\.childShared, scope: .singleton) { () -> Token in
      counter.increment()
      // Blocks its thread of the pool, bounded (see `holdUntil`): the creation stays under way
      // while the other tasks arrive, which a synchronous factory cannot do by suspending.
      holdUntil(arrivals)
      return Token("parent singleton")
    }
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<1_000 {
        group.addTask {
          let child = parent.makeChild()
          arrivals.increment()
          return ObjectIdentifier(try child[\.childShared])
        }
      }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(counter.count == 1)
    #expect(identities == [ObjectIdentifier(try parent[\.childShared])])
  }

  @Test func childSingletonOverrideIsTheChildsOwn() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.childShared, scope: .singleton) { Token("child singleton") }
    let childValue = try child[\.childShared]
    #expect(childValue.label == "child singleton")
    #expect(try child[\.childShared] === childValue)
    #expect(try parent[\.childShared].label == "root singleton")
  }

  @Test func uniqueDependentsResolvedThroughTheChildSeeTheChildsRegistrations() async throws {
    let parent = Container()
    parent.register(\.storage) { InMemoryStorage(name: "parent") }
    parent.register(\.childRepository) { r in Repository(storage: try r[\.storage]) }
    let child = parent.makeChild()
    child.register(\.storage) { InMemoryStorage(name: "child") }
    #expect(try child[\.childRepository].storage.name == "child")
    #expect(try parent[\.childRepository].storage.name == "parent")
  }

  @Test func sharedDependentsOfTheParentAreMadeInTheParent() async throws {
    // Documented: shared instances of a parent registration live in the parent, so they see the
    // parent's registrations, not the child's.
    let parent = Container()
    parent.register(\.storage, scope: .singleton) { InMemoryStorage(name: "parent") }
    parent.register(\.childRepository, scope: .singleton) { r in Repository(storage: try r[\.storage]) }
    let child = parent.makeChild()
    child.register(\.storage, scope: .singleton) { InMemoryStorage(name: "child") }
    let repository = try child[\.childRepository]
    #expect(repository.storage.name == "parent")
    #expect(try parent[\.childRepository] === repository)
  }

  @Test func resettingTheParentResetsWhatChildrenSee() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let first = try child[\.childCached]
    #expect(try parent[\.childCached] === first)
    parent.resetCached()
    #expect(try child[\.childCached] !== first)
  }

  @Test func sessionSingletonIsReleasedWithItsChild() async throws {
    let parent = Container()
    weak var probe: Token?
    do {
      let session = parent.makeChild()
      session.register(\.childSession, scope: .singleton) { Token("session") }
      let token = try session[\.childSession]
      #expect(try session[\.childSession] === token)
      probe = token
    }
    #expect(await freedSoon { probe == nil }, "dropping a session container must release its singletons")
    #expect(throws: ResolutionError.self) { try parent[\.childSession] }
  }

  @Test func disposingAChildLeavesTheParentWorking() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let log = Collected<String>()
    child.register(\.containerResource, scope: .singleton) { Resource("session", log: log) }
    _ = try child[\.containerResource]
    try await child.dispose()
    #expect(log.all == ["session"])
    let error = #expect(throws: ResolutionError.self) { try child[\.childNumber] }
    #expect(error?.kind == .containerDisposed)
    #expect(try parent[\.childNumber] == 0)
    #expect(!parent.isDisposed)
  }

  @Test func disposingTheParentDisposesLiveChildrenFirst() async throws {
    let parent = Container()
    let log = Collected<String>()
    parent.register(\.containerResource, scope: .singleton) { Resource("parent", log: log) }
    _ = try parent[\.containerResource]
    let child = parent.makeChild()
    child.register(\.containerOtherResource, scope: .singleton) { Resource("child", log: log) }
    _ = try child[\.containerOtherResource]
    try await parent.dispose()
    #expect(log.all == ["child", "parent"])
    #expect(child.isDisposed)
    let error = #expect(throws: ResolutionError.self) { try child[\.childNumber] }
    #expect(error?.kind == .containerDisposed)
  }

  @Test func childFactoryCanWrapItsParentsValueOfTheSameKey() async throws {
    // Not a cycle: the child's factory asks the *parent* container (captured) for the same key, to
    // decorate what the parent provides. Only the same key in the same container would loop.
    let parent = Container()
    parent.register(\.childNumber) { 20 }
    let child = parent.makeChild()
    child.register(\.childNumber) { _ in try parent[\.childNumber] + 1 }
    #expect(try child[\.childNumber] == 21)
  }

  @Test func factoryCanResolveTheSameKeyFromAnotherContainer() async throws {
    let inner = Container()
    inner.register(\.childNumber) { 5 }
    let outer = Container()
    outer.register(\.childNumber) { _ in try inner[\.childNumber] * 2 }
    #expect(try outer[\.childNumber] == 10)
  }

  // MARK: What a child provides and its parent's shared instance needs

  @Test func aParentSingletonNeedingWhatOnlyTheChildRegistersSaysSo() throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.childSession) { Token("child's") }
    let error = try #require(throws: ResolutionError.self) { try child[\.childSessionCache] }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.pathDescription == "\\.childSessionCache → \\.childSession")
    let firstLine = try #require(error.description.split(separator: "\n").first)
    #expect(
      firstLine.hasPrefix(
        "Knapsack: required key \\.childSession (Token) is not provided where it is needed: \\.childSessionCache is kept"
          + " by a parent container (singleton) and made there from its registrations, and \\.childSession is"
          + " registered only in a child container below it (at KnapsackTests/ChildContainerTests.swift:"))
    #expect(error.description.contains("fix: register \\.childSession also where the shared dependency is registered"))
    // The parent itself was never given one: its own error says only that.
    let own = try #require(throws: ResolutionError.self) { try parent[\.childSessionCache] }
    #expect(own.underlying == nil)
    #expect(own.description.hasPrefix("Knapsack: required key \\.childSession (Token) was never provided."))
    // Registered in the child too, the singleton is the child's own, and it is made.
    child.register(\.childSessionCache, scope: .singleton) { r in Token("own " + (try r[\.childSession]).label) }
    #expect(try child[\.childSessionCache].label == "own child's")
  }

  @Test func anAsyncParentSingletonSaysSoThroughAGrandchild() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.childSession) { Token("child's") }
    let grandchild = child.makeChild()
    let error = try await #require(throws: ResolutionError.self) {
      try await grandchild.resolve(\.childAsyncSessionCache)
    }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(
      error.underlying?.hasPrefix(
        "\\.childAsyncSessionCache is kept by a parent container (singleton) and made there from its registrations")
        == true)
  }

  @Test func aParentCachedTypeNeedingWhatOnlyTheChildRegistersSaysSo() throws {
    let parent = Container()
    parent.register(type: Token.self, name: "cache", scope: .cached) { r in
      Token(try r.resolve(type: NamedService.self).name)
    }
    let child = parent.makeChild()
    child.register(type: NamedService.self) { NamedService("child's") }
    let error = try #require(throws: ResolutionError.self) { try child.resolve(type: Token.self, name: "cache") }
    #expect(error.kind == .notRegistered)
    #expect(
      error.description.hasPrefix(
        "Knapsack: NamedService is not registered where it is needed: Token (name: \"cache\") is kept by a parent"
          + " container (cached)"))
  }

  @Test func aGrandchildsParentRegisteringWhatTheSingletonNeedsIsNamedToo() throws {
    let parent = Container()
    let middle = parent.makeChild()
    middle.register(\.childSession) { Token("middle's") }
    let error = try #require(throws: ResolutionError.self) { try middle.makeChild()[\.childSessionCache] }
    #expect(error.underlying?.contains("\\.childSession is registered only in a child container below it") == true)
  }

  @Test func aFailureInAContainerTheFactoryCapturedIsNotBlamedOnTheParent() throws {
    let other = Container()
    let parent = Container()
    parent.register(\.childSessionCache, scope: .singleton) { Token(try other[\.childSession].label) }
    let child = parent.makeChild()
    child.register(\.childSession) { Token("child's") }
    let error = try #require(throws: ResolutionError.self) { try child[\.childSessionCache] }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.underlying == nil, "registering it in the parent would not help: \(error)")
  }

  @Test func aParentSingletonMissingWhatNobodyRegistersSaysOnlyThat() throws {
    let parent = Container()
    let child = parent.makeChild()
    let error = try #require(throws: ResolutionError.self) { try child[\.childSessionCache] }
    #expect(error.underlying == nil)
    #expect(error.description.hasPrefix("Knapsack: required key \\.childSession (Token) was never provided."))
  }

  /// A weak-scoped value that is not an object cannot be held, and is made anew on every
  /// resolution; like every shared scope, it is made by the container that registers it, with
  /// that container's registrations (Scopes.md, ContainersAndChildScopes.md).
  @Test func aParentsWeakScopedStructIsMadeAnewByTheParentWithItsOwnRegistrations() throws {
    let parent = Container()
    let made = Counter()
    parent.register(\.childSession) { Token("parent's") }
    parent.register(\.childWeakSessionLabel, scope: .weak) { r in
      "\(made.increment()) " + (try r[\.childSession]).label
    }
    let child = parent.makeChild()
    child.register(\.childSession) { Token("child's") }
    #expect(try child[\.childWeakSessionLabel] == "1 parent's")
    #expect(try child[\.childWeakSessionLabel] == "2 parent's", "nothing holds a struct: made again")
    // A key only the child registers is missing where the value is made, and the error says
    // where to register it.
    let bare = Container()
    bare.register(\.childWeakSessionLabel, scope: .weak) { r in (try r[\.childSession]).label }
    let session = bare.makeChild()
    session.register(\.childSession) { Token("child's") }
    let error = try #require(throws: ResolutionError.self) { try session[\.childWeakSessionLabel] }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.underlying?.contains("registered only in a child container below it") == true, "\(error)")
    // Registered in the child too, it is made by the child.
    session.register(\.childWeakSessionLabel, scope: .weak) { r in (try r[\.childSession]).label }
    #expect(try session[\.childWeakSessionLabel] == "child's")
  }
}
