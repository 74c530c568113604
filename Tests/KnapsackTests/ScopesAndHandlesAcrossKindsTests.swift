import Foundation
import Knapsack
import Testing

// More combinations of kind, scope and feature: graph-scoped keys of every kind shared by
// the child tasks of one asynchronous resolution, handles made in an override scope and used
// after it, per argument, a reset while a factory of each kind runs, decorators that fail, and
// multibinding contributions that fail or race.

extension Dependencies {
  var kindMainGraph: MainActorKey<Token> { MainActorKey { _ in Token("main graph") }.scope(.graph) }
  var kindSyncGraph: Key<Token> { Key { Token("sync graph") }.scope(.graph) }
  var kindAsyncArgGraph: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { _, n in
      try await Task.sleep(for: .milliseconds(5))
      return Token("async arg graph \(n)")
    }
    .scope(.graph)
  }
  var kindMainArgGraph: DependencyKey<MainActorKind, Int, Token> {
    DependencyKey { _, n in Token("main arg graph \(n)") }.scope(.graph)
  }
  /// Asks for each graph-scoped key twice, in child tasks running side by side.
  var kindSideBySide: AsyncKey<[Token]> {
    AsyncKey { r in
      async let mainA = r.resolve(\.kindMainGraph)
      async let mainB = r.resolve(\.kindMainGraph)
      async let argA = r.resolve(\.kindAsyncArgGraph, argument: 1)
      async let argB = r.resolve(\.kindAsyncArgGraph, argument: 1)
      async let mainArgA = r.resolve(\.kindMainArgGraph, argument: 2)
      async let mainArgB = r.resolve(\.kindMainArgGraph, argument: 2)
      async let syncA = Task { try r[\.kindSyncGraph] }.value
      let syncB = try r[\.kindSyncGraph]
      return try await [mainA, mainB, argA, argB, mainArgA, mainArgB, syncA, syncB]
    }
  }
  /// Asks, one after the other, for each graph-scoped key: the main-actor ones through `await`.
  var kindInSequence: AsyncKey<[Token]> {
    AsyncKey { r in
      [
        try await r.resolve(\.kindMainGraph), try await r.resolve(\.kindMainGraph),
        try await r.resolve(\.kindMainArgGraph, argument: 3), try await r.resolve(\.kindMainArgGraph, argument: 3),
        try await r.resolve(\.kindMainArgGraph, argument: 4),
      ]
    }
  }

  var kindAsyncElements: AsyncMultibinding<Token> { MultibindingKey() }
  var kindMainElements: MainActorMultibinding<Token> { MultibindingKey() }
  var kindSyncElements: Multibinding<Token> { MultibindingKey() }
}

@Suite struct ScopesAndHandlesAcrossKindsTests {
  // MARK: Graph scope across kinds

  @Test func graphScopedKeysOfEveryKindAreSharedByChildTasksOfOneResolution() async throws {
    let container = Container()
    for _ in 0..<5 {
      let tokens = try await container.resolve(\.kindSideBySide)
      #expect(tokens[0] === tokens[1], "main-actor graph key")
      #expect(tokens[2] === tokens[3], "async argument graph key")
      #expect(tokens[4] === tokens[5], "main-actor argument graph key")
      #expect(tokens[6] === tokens[7], "sync graph key")
    }
    let again = try await container.resolve(\.kindSideBySide)
    let first = try await container.resolve(\.kindSideBySide)
    #expect(again[0] !== first[0], "another resolution, another instance")
  }

  @Test func graphScopedMainActorKeysAwaitedInSequenceByAnAsyncFactoryAreShared() async throws {
    let container = Container()
    let tokens = try await container.resolve(\.kindInSequence)
    #expect(tokens[0] === tokens[1])
    #expect(tokens[2] === tokens[3])
    #expect(tokens[2] !== tokens[4], "another argument, another instance")
    #expect(tokens[4].label == "main arg graph 4")
  }

  // MARK: Handles made in an override scope, used after it

  @Test func aProviderUsedAfterItsScopeEndedIsRefusedPerArgumentForEveryArgumentKind() async throws {
    let container = Container()
    let closed = Collected<String>()
    let close: @Sendable (Token) async throws -> Void = { closed.append($0.label) }
    // A decorator that fails for argument 3: what the factory made for it is disposed with the
    // scope, but nobody received it, so argument 3 is made afterwards, not refused.
    let fail: @Sendable (Token) throws -> Token = { token in
      if token.label.hasSuffix(" 3") { throw PlannedFailure("decorator") }
      return token
    }
    let (mainArg, asyncArg, arg) = try await withOverrides {
      $0.register(\.kindMainArg, scope: .singleton, dispose: close) { _, n in Token("main \(n)") }
      $0.register(\.kindAsyncArg, scope: .singleton, dispose: close) { _, n in Token("async \(n)") }
      $0.register(\.kindArg, scope: .cached, dispose: close) { _, n in Token("sync \(n)") }
      $0.decorate(\.kindMainArg) { _, t in try fail(t) }
      $0.decorate(\.kindAsyncArg) { _, t in try fail(t) }
      $0.decorate(\.kindArg) { _, t in try fail(t) }
    } operation: { () async throws in
      let mainArg = container.provider(\.kindMainArg)
      let asyncArg = container.provider(\.kindAsyncArg)
      let arg = container.provider(\.kindArg)
      _ = try await mainArg.get(1)
      _ = try await asyncArg.get(1)
      _ = try arg.get(1)
      await #expect(throws: ResolutionError.self) { try await mainArg.get(3) }
      await #expect(throws: ResolutionError.self) { try await asyncArg.get(3) }
      #expect(throws: ResolutionError.self) { try arg.get(3) }
      return (mainArg, asyncArg, arg)
    }
    #expect(
      Set(closed.all) == ["main 1", "async 1", "sync 1", "main 3", "async 3", "sync 3"], "\(closed.all)")
    let refusals: [ResolutionError?] = [
      await #expect(throws: ResolutionError.self) { try await mainArg.get(1) },
      await #expect(throws: ResolutionError.self) { try await asyncArg.get(1) },
      #expect(throws: ResolutionError.self) { try arg.get(1) },
    ]
    #expect(refusals.map { $0?.kind } == [.containerDisposed, .containerDisposed, .containerDisposed])
    #expect(try await mainArg.get(2).label == "main 2", "an argument the scope never made is made")
    #expect(try await asyncArg.get(2).label == "async 2")
    #expect(try arg.get(2).label == "sync 2")
    // Argument 3's decorator still fails, with the decorator's error, not a refusal.
    let mainThree = await #expect(throws: ResolutionError.self) { try await mainArg.get(3) }
    let asyncThree = await #expect(throws: ResolutionError.self) { try await asyncArg.get(3) }
    let syncThree = #expect(throws: ResolutionError.self) { try arg.get(3) }
    #expect([mainThree?.kind, asyncThree?.kind, syncThree?.kind] == [.factoryFailed, .factoryFailed, .factoryFailed])
  }

  @Test func aProviderMadeBeforeAScopeDoesNotSeeItsOverridesForAnyKind() async throws {
    let container = Container()
    let get = KeyKindCase.all.map { $0.provider(container) }
    let labels = try await withOverrides {
      for kind in KeyKindCase.all { kind.register($0, .unique, Counter(), "scoped", nil) }
    } operation: {
      var labels: [String] = []
      for handle in get { labels.append(try await handle(1).label) }
      return labels
    }
    #expect(labels.allSatisfy { $0.contains("default") }, "\(labels)")
  }

  @Test func nestedScopesShareTheOuterScopesOverrideUntilTheyDecorateIt() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.kindMainArg, scope: .singleton) { _, n in Token("outer \(n)") }
      $0.register(\.kindAsyncArg, scope: .cached) { _, n in Token("outer \(n)") }
    } operation: {
      let main = try await container.resolve(\.kindMainArg, argument: 1)
      let async = try await container.resolve(\.kindAsyncArg, argument: 1)
      try await withOverrides { _ in
      } operation: { () async throws in
        #expect(try await container.resolve(\.kindMainArg, argument: 1) === main)
        #expect(try await container.resolve(\.kindAsyncArg, argument: 1) === async)
      }
      try await withOverrides {
        $0.decorate(\.kindMainArg) { _, t in Token(t.label + "+inner") }
        $0.decorate(\.kindAsyncArg) { _, t in Token(t.label + "+inner") }
      } operation: { () async throws in
        #expect(try await container.resolve(\.kindMainArg, argument: 1).label == "outer 1+inner")
        #expect(try await container.resolve(\.kindAsyncArg, argument: 1).label == "outer 1+inner")
      }
      #expect(try await container.resolve(\.kindMainArg, argument: 1) === main)
    }
  }

  // MARK: A reset while a factory runs

  @Test(.serialized, arguments: [KeyKindCase.async, .asyncArg, .main, .mainArg, .sync])
  func aCachedInstanceMadeAcrossAResetIsHandedOutButNotKept(kind: KeyKindCase) async throws {
    let container = Container()
    let hold = FactoryHold()
    defer { hold.letGo() }
    let made = Counter()
    let blocking: @Sendable () -> Token = { hold.blocking { Token("made \(made.increment())") } }
    let suspending: @Sendable () async -> Token = { await hold.suspending { Token("made \(made.increment())") } }
    switch kind.name {
    case "async": container.register(\.kindAsync, scope: .cached) { _ in await suspending() }
    case "async argument": container.register(\.kindAsyncArg, scope: .cached) { _, _ in await suspending() }
    case "main-actor": container.register(\.kindMain, scope: .cached) { _ in blocking() }
    case "main-actor argument": container.register(\.kindMainArg, scope: .cached) { _, _ in blocking() }
    default: container.register(\.kindSync, scope: .cached) { _ in blocking() }
    }
    // Resolve from a detached task, so that a main-actor factory blocking the main thread does
    // not block this test's own code.
    let first = resolveOffThePool(kind, container)
    #expect(await waitUntil(timeout: hangBound) { hold.entered.count == 1 })
    container.resetCached()
    hold.letGo()
    let handedOut = try await first.value
    #expect(handedOut.label == "made 1", "the resolution that asked gets it")
    let next = try await kind.resolve(container, 1)
    #expect(next !== handedOut, "not kept: it was made from what the reset replaced")
    #expect(try await kind.resolve(container, 1) === next)
  }

  // MARK: Decorators that fail

  @Test(arguments: KeyKindCase.all)
  func aDecoratorThatFailsOnceIsRetriedAndWhatTheFactoryMadeIsDisposed(kind: KeyKindCase) async throws {
    let container = Container()
    let closed = Collected<String>()
    let made = Counter()
    kind.register(container, .singleton, made, "made", { closed.append($0.label) })
    let calls = Counter()
    switch kind.name {
    case "sync":
      container.decorate(\.kindSync) { _, t in
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    case "async":
      container.decorate(\.kindAsync) { _, t in
        await Task.yield()
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    case "main-actor":
      container.decorate(\.kindMain) { _, t in
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    case "argument":
      container.decorate(\.kindArg) { _, t in
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    case "async argument":
      container.decorate(\.kindAsyncArg) { _, t in
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    default:
      container.decorate(\.kindMainArg) { _, t in
        if calls.increment() == 1 { throw PlannedFailure("decorator") }
        return Token(t.label + "+d")
      }
    }
    let error = await #expect(throws: ResolutionError.self) { try await kind.resolve(container, 1) }
    #expect(error?.kind == .factoryFailed)
    #expect(error?.description.contains("decorator") == true, "\(String(describing: error))")
    let value = try await kind.resolve(container, 1)
    #expect(value.label.hasSuffix("+d"))
    #expect(try await kind.resolve(container, 1) === value)
    #expect(made.count == 2)
    try await container.dispose()
    let undecorated = kind.takesArgument ? "made 1" : "made"
    #expect(closed.all.sorted() == [undecorated, value.label].sorted(), "\(closed.all)")
  }

  // MARK: Multibinding contributions

  @Test func contributionsOfEveryKindThatFailOnceAreNotKept() async throws {
    let container = Container()
    let calls = Counter()
    container.contribute(to: \.kindSyncElements, scope: .singleton) { _ in
      if calls.increment() == 1 { throw PlannedFailure("sync") }
      return Token("sync")
    }
    container.contribute(to: \.kindAsyncElements, scope: .cached) { _ in
      if calls.increment() == 3 { throw PlannedFailure("async") }
      return Token("async")
    }
    container.contribute(to: \.kindMainElements, scope: .weak) { _ in
      if calls.increment() == 5 { throw PlannedFailure("main") }
      return Token("main")
    }
    #expect(throws: ResolutionError.self) { try container[\.kindSyncElements] }
    let sync = try container[\.kindSyncElements]
    #expect(try container[\.kindSyncElements][0] === sync[0])
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindAsyncElements) }
    let async = try await container.resolve(\.kindAsyncElements)
    #expect(try await container.resolve(\.kindAsyncElements)[0] === async[0])
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindMainElements) }
    let main = try await container.resolve(\.kindMainElements)
    #expect(try await container.resolve(\.kindMainElements)[0] === main[0])
    #expect(calls.count == 6)
  }

  @Test func sharedContributionsOfEveryKindAreMadeOnceUnderConcurrency() async throws {
    let container = Container()
    let made = Counter()
    container.contribute(to: \.kindSyncElements, scope: .singleton) { _ in
      made.increment()
      usleep(2_000)  // the other resolutions arrive while it is made (bounded, 2 ms)
      return Token("sync")
    }
    container.contribute(to: \.kindAsyncElements, scope: .singleton) { _ in
      made.increment()
      try await Task.sleep(for: .milliseconds(5))
      return Token("async")
    }
    container.contribute(to: \.kindMainElements, scope: .cached) { _ in
      made.increment()
      return Token("main")
    }
    let results = await resolveConcurrently(45) { index in
      switch index % 3 {
      case 0: return try container[\.kindSyncElements][0]
      case 1: return try await container.resolve(\.kindAsyncElements)[0]
      default: return try await container.resolve(\.kindMainElements)[0]
      }
    }
    let tokens = try results.map { try $0.get() }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 3)
    #expect(made.count == 3)
  }

  @Test func observersSeeEveryKindsContributionsIncludingAFailure() async throws {
    let container = Container()
    let observer = KindEvents()
    container.observe(observer)
    container.contribute(to: \.kindSyncElements) { _ in Token("sync") }
    container.contribute(to: \.kindAsyncElements) { _ in Token("async") }
    container.contribute(to: \.kindMainElements) { _ in throw PlannedFailure("main") }
    _ = try container[\.kindSyncElements]
    _ = try await container.resolve(\.kindAsyncElements)
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindMainElements) }
    let events = observer.events.all
    let names = events.map(\.dependency.name)
    #expect(names.contains { $0.hasPrefix("\\.kindSyncElements") }, "\(names)")
    #expect(names.contains { $0.hasPrefix("\\.kindAsyncElements") }, "\(names)")
    #expect(
      events.contains { $0.dependency.name.hasPrefix("\\.kindMainElements") && $0.outcome == .failed }, "\(names)")
  }

  @Test func contributionsOfEveryKindInAChildAreDisposedWithItAndDroppedOnItsReset() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let closed = Collected<String>()
    parent.contribute(to: \.kindAsyncElements, scope: .singleton, dispose: { closed.append("parent " + $0.label) }) {
      _ in
      Token("async")
    }
    child.contribute(to: \.kindAsyncElements, scope: .cached, dispose: { closed.append("child " + $0.label) }) { _ in
      Token("async")
    }
    child.contribute(to: \.kindMainElements, scope: .singleton, dispose: { closed.append("child " + $0.label) }) { _ in
      Token("main")
    }
    child.contribute(to: \.kindSyncElements, scope: .cached, dispose: { closed.append("child " + $0.label) }) { _ in
      Token("sync")
    }
    let elements = try await child.resolve(\.kindAsyncElements)
    #expect(elements.map(\.label) == ["async", "async"])
    _ = try await child.resolve(\.kindMainElements)
    _ = try child[\.kindSyncElements]
    child.resetCached()
    let again = try await child.resolve(\.kindAsyncElements)
    #expect(again[0] === elements[0], "the parent's singleton")
    #expect(again[1] !== elements[1], "the child's cached one, dropped by its reset")
    try await child.dispose()
    #expect(
      closed.all.sorted() == ["child async", "child async", "child main", "child sync"], "\(closed.all)")
    try await parent.dispose()
    #expect(closed.all.last == "parent async")
  }
}

/// What an asynchronous factory made: its graph-scoped dependency, and a parent's singleton's.
struct KindGraphView: Sendable {
  let own: Token
  let again: Token
  let shared: FxPair
}

extension Dependencies {
  var kindGraphUnit: AsyncKey<Token> { AsyncKey { _ in Token("unit") }.scope(.graph) }
  var kindGraphSingleton: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.kindGraphUnit), second: try await r.resolve(\.kindGraphUnit)) }
      .scope(.singleton)
  }
  var kindGraphView: AsyncKey<KindGraphView> {
    AsyncKey { r in
      KindGraphView(
        own: try await r.resolve(\.kindGraphUnit), again: try await r.resolve(\.kindGraphUnit),
        shared: try await r.resolve(\.kindGraphSingleton))
    }
  }
  var kindMainGraphUnit: MainActorKey<Token> { MainActorKey { _ in Token("main unit") }.scope(.graph) }
  var kindMainGraphSingleton: MainActorKey<FxPair> {
    MainActorKey { r in FxPair(first: try r[\.kindMainGraphUnit], second: try r[\.kindMainGraphUnit]) }.scope(
      .singleton)
  }
  var kindMainGraphView: AsyncKey<KindGraphView> {
    AsyncKey { r in
      KindGraphView(
        own: try await r.resolve(\.kindMainGraphUnit), again: try await r.resolve(\.kindMainGraphUnit),
        shared: try await r.resolve(\.kindMainGraphSingleton))
    }
  }
}

@Suite struct GraphScopeAcrossContainersTests {
  @Test func aParentsSingletonMadeDuringAChildsAsyncResolutionMakesItsOwnGraphInstance() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.kindGraphUnit, scope: .graph) { _ in Token("child unit") }
    let view = try await child.resolve(\.kindGraphView)
    #expect(view.own === view.again, "one instance per resolution in the child")
    #expect(view.own.label == "child unit", "the child's factories get the child's registration")
    #expect(view.shared.first === view.shared.second, "one instance per resolution in the parent")
    #expect(view.shared.first.label == "unit", "the parent makes its singleton's with its own registration")
    #expect(view.shared.first !== view.own)
  }

  @Test func theSameForMainActorKeysAwaitedByAnAsyncFactory() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.kindMainGraphUnit, scope: .graph) { _ in Token("child main unit") }
    let view = try await child.resolve(\.kindMainGraphView)
    #expect(view.own === view.again)
    #expect(view.own.label == "child main unit")
    #expect(view.shared.first === view.shared.second)
    #expect(view.shared.first.label == "main unit")
  }
}

@Suite struct LazyAfterScopeTests {
  @Test func aLazyOfEveryKindNotReadInItsScopeIsRefusedWhatTheScopeDisposedAndKeepsWhatItRead() async throws {
    let container = Container()
    let closed = Collected<String>()
    let close: @Sendable (Token) async throws -> Void = { closed.append($0.label) }
    let (unread, read, readValues) = try await withOverrides {
      for kind in KeyKindCase.all { kind.register($0, .singleton, Counter(), "scoped", close) }
    } operation: { () async throws in
      for kind in KeyKindCase.all { _ = try await kind.resolve(container, 1) }
      let unread = (
        container.lazy(\.kindSync), container.lazy(\.kindAsync), container.lazy(\.kindMain),
        container.lazy(\.kindArg, argument: 1), container.lazy(\.kindAsyncArg, argument: 1),
        container.lazy(\.kindMainArg, argument: 1)
      )
      let read = (container.lazy(\.kindAsync), container.lazy(\.kindMainArg, argument: 1))
      let values = (try await read.0.value, try await MainActor.run { try read.1.value })
      return (unread, read, values)
    }
    #expect(closed.all.count == 6)
    let errors: [ResolutionError?] = [
      #expect(throws: ResolutionError.self) { try unread.0.value },
      await #expect(throws: ResolutionError.self) { try await unread.1.value },
      await #expect(throws: ResolutionError.self) { try await unread.2.value },
      #expect(throws: ResolutionError.self) { try unread.3.value },
      await #expect(throws: ResolutionError.self) { try await unread.4.value },
      await #expect(throws: ResolutionError.self) { try await unread.5.value },
    ]
    #expect(errors.allSatisfy { $0?.kind == .containerDisposed }, "\(errors.map { $0?.kind })")
    #expect(try await read.0.value === readValues.0, "a lazy already read keeps what it read")
    #expect(try await read.1.value === readValues.1)
  }
}
