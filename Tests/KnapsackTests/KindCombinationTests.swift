import Foundation
import Knapsack
import KnapsackTesting
import Testing

// Every kind of key goes through one key family and one creation routine: these tests check the
// combinations of kind, scope and feature the feature-matrix tests do not reach: argument keys
// of the asynchronous and main-actor kinds in the weak, cached and graph scopes, concurrency per
// argument, failures under concurrency, disposal in child containers, decorators with overrides,
// multibindings in override scopes, observers of failures, and handles made before a registration
// changes.

extension Dependencies {
  var kindSync: Key<Token> { Key { Token("sync default") } }
  var kindAsync: AsyncKey<Token> { AsyncKey { _ in Token("async default") } }
  var kindMain: MainActorKey<Token> { MainActorKey { _ in Token("main default") } }
  var kindArg: ArgumentKey<Int, Token> { ArgumentKey { _, n in Token("arg default \(n)") } }
  var kindAsyncArg: DependencyKey<AsyncKind, Int, Token> { DependencyKey { _, n in Token("async arg default \(n)") } }
  var kindMainArg: DependencyKey<MainActorKind, Int, Token> { DependencyKey { _, n in Token("main arg default \(n)") } }
  var kindNeeded: Key<Token> { .required() }

  var kindMainArgPair: MainActorKey<FxPair> {
    MainActorKey { r in
      FxPair(first: try r.resolve(\.kindMainArg, argument: 1), second: try r.resolve(\.kindMainArg, argument: 2))
    }
  }
  var kindMainArgSame: MainActorKey<FxPair> {
    MainActorKey { r in
      FxPair(first: try r.resolve(\.kindMainArg, argument: 1), second: try r.resolve(\.kindMainArg, argument: 1))
    }
  }
  var kindAsyncArgPair: AsyncKey<FxPair> {
    AsyncKey { r in
      FxPair(
        first: try await r.resolve(\.kindAsyncArg, argument: 1),
        second: try await r.resolve(\.kindAsyncArg, argument: 2))
    }
  }
  var kindAsyncArgSame: AsyncKey<FxPair> {
    AsyncKey { r in
      FxPair(
        first: try await r.resolve(\.kindAsyncArg, argument: 1),
        second: try await r.resolve(\.kindAsyncArg, argument: 1))
    }
  }
}

/// One kind of key, by what a test needs of it: registering with a scope, a counter and a
/// `dispose:` closure, and resolving for an argument (ignored by a kind without one).
struct KeyKindCase: Sendable, CustomTestStringConvertible {
  let name: String
  let keyName: String
  let takesArgument: Bool
  let register: @Sendable (Container, Scope?, Counter, String, (@Sendable (Token) async throws -> Void)?) -> Void
  /// Registers a factory that throws on its first call, after 20 ms, and then succeeds. The wait
  /// lets other resolutions start waiting for the failing creation; a synchronous or main-actor
  /// factory cannot suspend, so it sleeps, holding its thread for those 20 ms only.
  let registerFailingOnce: @Sendable (Container, Scope, Counter) -> Void
  let resolve: @Sendable (Container, Int) async throws -> Token
  /// Registers, in an override container, a factory labelled `label`.
  let decorate: @Sendable (Container, String) -> Void
  let provider: @Sendable (Container) -> @Sendable (Int) async throws -> Token
  var testDescription: String { name }

  static let all: [KeyKindCase] = [.sync, .async, .main, .arg, .asyncArg, .mainArg]

  static let sync = KeyKindCase(
    name: "sync", keyName: "\\.kindSync", takesArgument: false,
    register: { c, s, n, l, d in
      c.register(\.kindSync, scope: s, dispose: d) { _ in
        n.increment()
        return Token(l)
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindSync, scope: s) { _ in
        if n.increment() == 1 {
          usleep(20_000)
          throw PlannedFailure("first")
        }
        return Token("ok")
      }
    },
    resolve: { c, _ in try c[\.kindSync] },
    decorate: { c, l in c.decorate(\.kindSync) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindSync)
      return { _ in try p.get() }
    })

  static let async = KeyKindCase(
    name: "async", keyName: "\\.kindAsync", takesArgument: false,
    register: { c, s, n, l, d in
      c.register(\.kindAsync, scope: s, dispose: d) { _ in
        try await Task.sleep(for: .milliseconds(5))
        n.increment()
        return Token(l)
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindAsync, scope: s) { _ in
        if n.increment() == 1 {
          try await Task.sleep(for: .milliseconds(20))
          throw PlannedFailure("first")
        }
        return Token("ok")
      }
    },
    resolve: { c, _ in try await c.resolve(\.kindAsync) },
    decorate: { c, l in c.decorate(\.kindAsync) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindAsync)
      return { _ in try await p.get() }
    })

  static let main = KeyKindCase(
    name: "main-actor", keyName: "\\.kindMain", takesArgument: false,
    register: { c, s, n, l, d in
      c.register(\.kindMain, scope: s, dispose: d) { _ in
        #expect(MainQueueProbe.isOnMainQueue)
        n.increment()
        return Token(l)
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindMain, scope: s) { _ in
        if n.increment() == 1 {
          usleep(20_000)
          throw PlannedFailure("first")
        }
        return Token("ok")
      }
    },
    resolve: { c, _ in try await c.resolve(\.kindMain) },
    decorate: { c, l in c.decorate(\.kindMain) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindMain)
      return { _ in try await p.get() }
    })

  static let arg = KeyKindCase(
    name: "argument", keyName: "\\.kindArg", takesArgument: true,
    register: { c, s, n, l, d in
      c.register(\.kindArg, scope: s, dispose: d) { _, a in
        n.increment()
        return Token("\(l) \(a)")
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindArg, scope: s) { _, a in
        if n.increment() == 1 {
          usleep(20_000)
          throw PlannedFailure("first")
        }
        return Token("ok \(a)")
      }
    },
    resolve: { c, a in try c.resolve(\.kindArg, argument: a) },
    decorate: { c, l in c.decorate(\.kindArg) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindArg)
      return { a in try p.get(a) }
    })

  static let asyncArg = KeyKindCase(
    name: "async argument", keyName: "\\.kindAsyncArg", takesArgument: true,
    register: { c, s, n, l, d in
      c.register(\.kindAsyncArg, scope: s, dispose: d) { _, a in
        try await Task.sleep(for: .milliseconds(5))
        n.increment()
        return Token("\(l) \(a)")
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindAsyncArg, scope: s) { _, a in
        if n.increment() == 1 {
          try await Task.sleep(for: .milliseconds(20))
          throw PlannedFailure("first")
        }
        return Token("ok \(a)")
      }
    },
    resolve: { c, a in try await c.resolve(\.kindAsyncArg, argument: a) },
    decorate: { c, l in c.decorate(\.kindAsyncArg) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindAsyncArg)
      return { a in try await p.get(a) }
    })

  static let mainArg = KeyKindCase(
    name: "main-actor argument", keyName: "\\.kindMainArg", takesArgument: true,
    register: { c, s, n, l, d in
      c.register(\.kindMainArg, scope: s, dispose: d) { _, a in
        #expect(MainQueueProbe.isOnMainQueue)
        n.increment()
        return Token("\(l) \(a)")
      }
    },
    registerFailingOnce: { c, s, n in
      c.register(\.kindMainArg, scope: s) { _, a in
        if n.increment() == 1 {
          usleep(20_000)
          throw PlannedFailure("first")
        }
        return Token("ok \(a)")
      }
    },
    resolve: { c, a in try await c.resolve(\.kindMainArg, argument: a) },
    decorate: { c, l in c.decorate(\.kindMainArg) { _, t in Token(t.label + "+" + l) } },
    provider: { c in
      let p = c.provider(\.kindMainArg)
      return { a in try await p.get(a) }
    })
}

/// Keeps every event it sees.
final class KindEvents: ResolutionObserver {
  let events = Collected<ResolutionEvent>()
  func didResolve(_ event: ResolutionEvent) { events.append(event) }
  func outcomes(of name: String) -> [ResolutionEvent.Outcome] {
    events.all.filter { $0.dependency.name == name }.map(\.outcome)
  }
}

/// Resolves `kind`'s key for argument 1 in a task; a synchronous factory runs on a thread of its
/// own, so that one that blocks (waiting for the test) holds no thread of the shared pool, which
/// the test and other tests need to go on.
func resolveOffThePool(_ kind: KeyKindCase, _ container: Container) -> Task<Token, any Error> {
  guard kind.name == "sync" || kind.name == "argument" else {
    return Task.detached { try await kind.resolve(container, 1) }
  }
  return Task.detached {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        do {
          let token = kind.name == "sync" ? try container[\.kindSync] : try container.resolve(\.kindArg, argument: 1)
          continuation.resume(returning: token)
        } catch { continuation.resume(throwing: error) }
      }.start()
    }
  }
}

/// Resolves `count` times at once, each in a task of its own, and returns each result.
func resolveConcurrently(
  _ count: Int, _ body: @escaping @Sendable (Int) async throws -> Token
) async -> [Result<Token, any Error>] {
  await withTaskGroup(of: Result<Token, any Error>.self) { group in
    for index in 0..<count {
      group.addTask {
        do { return .success(try await body(index)) } catch { return .failure(error) }
      }
    }
    return await group.reduce(into: []) { $0.append($1) }
  }
}

@Suite struct KindCombinationTests {
  static let sharedScopes: [Scope] = [.singleton, .cached, .weak]

  // MARK: Exactly once, per argument, under concurrency

  @Test(arguments: KeyKindCase.all, sharedScopes)
  func manyConcurrentFirstResolutionsMakeOneInstancePerArgument(kind: KeyKindCase, scope: Scope) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, scope, made, "shared", nil)
    let results = await resolveConcurrently(48) { index in try await kind.resolve(container, index % 2) }
    let tokens = try results.map { try $0.get() }
    let distinct = Set(tokens.map(ObjectIdentifier.init))
    let expected = kind.takesArgument ? 2 : 1
    #expect(distinct.count == expected, "\(scope): one instance per argument")
    #expect(made.count == expected, "\(scope): the factory ran once per argument")
    if kind.takesArgument {
      #expect(Set(tokens.map(\.label)) == ["shared 0", "shared 1"])
    }
  }

  @Test func mixedMainActorAndAsyncFirstResolutionsOfAMainActorSingletonMakeOne() async throws {
    let container = Container()
    let made = Counter()
    KeyKindCase.main.register(container, .singleton, made, "m", nil)
    KeyKindCase.mainArg.register(container, .singleton, made, "ma", nil)
    let results = await resolveConcurrently(40) { index in
      switch index % 4 {
      case 0: return try await container.resolve(\.kindMain)
      case 1: return try await MainActor.run { try container[\.kindMain] }
      case 2: return try await container.resolve(\.kindMainArg, argument: 9)
      default: return try await MainActor.run { try container.resolve(\.kindMainArg, argument: 9) }
      }
    }
    let tokens = try results.map { try $0.get() }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 2)
    #expect(made.count == 2)
  }

  @Test(arguments: KeyKindCase.all, [Scope.singleton, .cached, .weak, .graph])
  func aFailureUnderConcurrencyIsNotKeptAndWaitersTryAgain(kind: KeyKindCase, scope: Scope) async throws {
    let container = Container()
    let calls = Counter()
    kind.registerFailingOnce(container, scope, calls)
    let results = await resolveConcurrently(12) { _ in try await kind.resolve(container, 4) }
    let failures = results.compactMap { result -> (any Error)? in
      if case .failure(let error) = result { return error }
      return nil
    }
    let tokens = results.compactMap { try? $0.get() }
    #expect(failures.count == 1, "\(scope): only the resolution that ran the failing factory fails")
    for failure in failures {
      #expect((failure as? ResolutionError)?.kind == .factoryFailed, "\(failure)")
    }
    #expect(tokens.allSatisfy { $0.label.hasPrefix("ok") })
    if scope != .graph {
      #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1, "\(scope): the retry is shared")
      #expect(calls.count == 2, "\(scope): the failure was not kept, the retry was")
    }
    // And a later resolution gets the kept instance (or a new one, for graph), never the failure.
    #expect(try await kind.resolve(container, 4).label.hasPrefix("ok"))
  }

  // MARK: Scopes of argument keys of every kind

  @Test(arguments: [KeyKindCase.arg, .asyncArg, .mainArg])
  func weakArgumentKeysAreSharedPerArgumentWhileHeld(kind: KeyKindCase) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, .weak, made, "w", nil)
    var one: Token? = try await kind.resolve(container, 1)
    let two = try await kind.resolve(container, 2)
    #expect(try await kind.resolve(container, 1) === one)
    #expect(try await kind.resolve(container, 2) === two)
    #expect(made.count == 2)
    let oldIdentity = one.map(ObjectIdentifier.init)
    one = nil
    let again = try await kind.resolve(container, 1)
    #expect(made.count == 3, "released, then made again")
    #expect(ObjectIdentifier(again) != oldIdentity || made.count == 3)
    #expect(try await kind.resolve(container, 2) === two, "the other argument's instance is still held")
  }

  @Test func graphScopedArgumentKeysAreSharedPerArgumentWithinOneResolution() async throws {
    let container = Container()
    KeyKindCase.mainArg.register(container, .graph, Counter(), "g", nil)
    KeyKindCase.asyncArg.register(container, .graph, Counter(), "g", nil)
    let mainSame = try await container.resolve(\.kindMainArgSame)
    let mainPair = try await container.resolve(\.kindMainArgPair)
    let asyncSame = try await container.resolve(\.kindAsyncArgSame)
    let asyncPair = try await container.resolve(\.kindAsyncArgPair)
    #expect(mainSame.first === mainSame.second)
    #expect(mainPair.first !== mainPair.second)
    #expect(mainPair.first !== mainSame.first, "another top-level resolution, another instance")
    #expect(asyncSame.first === asyncSame.second)
    #expect(asyncPair.first !== asyncPair.second)
    #expect(asyncPair.first !== asyncSame.first)
  }

  @Test(arguments: KeyKindCase.all)
  func cachedInstancesAreDroppedOnResetAndTheirDisposeClosureRuns(kind: KeyKindCase) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.register(container, .cached, Counter(), "c", { closed.append($0.label) })
    let first = try await kind.resolve(container, 1)
    #expect(try await kind.resolve(container, 1) === first)
    container.resetCached()
    let second = try await kind.resolve(container, 1)
    #expect(second !== first)
    try await container.dispose()
    #expect(closed.all.count == 2, "the dropped one in the background and the kept one at dispose")
    #expect(closed.all.filter { $0 == first.label }.count == 2)
  }

  @Test(arguments: KeyKindCase.all)
  func aChildsResetLeavesItsParentsCachedInstanceAlone(kind: KeyKindCase) async throws {
    let parent = Container()
    kind.register(parent, .cached, Counter(), "parent", nil)
    let child = parent.makeChild()
    let shared = try await kind.resolve(child, 3)
    #expect(try await kind.resolve(parent, 3) === shared, "the parent keeps it for both")
    child.resetCached()
    #expect(try await kind.resolve(child, 3) === shared, "the child's reset does not clear the parent's")
    parent.resetCached()
    #expect(try await kind.resolve(child, 3) !== shared)
  }

  // MARK: Disposal

  @Test func everyKindRegisteredInAChildIsDisposedWithTheParentInReverseOrder() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let closed = Collected<String>()
    let dispose: @Sendable (Token) async throws -> Void = { closed.append($0.label) }
    for kind in KeyKindCase.all { kind.register(child, .singleton, Counter(), kind.name, dispose) }
    var order: [String] = []
    for kind in KeyKindCase.all {
      order.append(try await kind.resolve(child, 1).label)
    }
    #expect(try await KeyKindCase.mainArg.resolve(child, 2).label == "main-actor argument 2")
    order.append("main-actor argument 2")
    try await parent.dispose()
    #expect(closed.all == order.reversed())
    #expect(child.isDisposed)
    for kind in KeyKindCase.all {
      await #expect(throws: ResolutionError.self, "\(kind.name)") { try await kind.resolve(child, 1) }
    }
  }

  @Test(arguments: KeyKindCase.all)
  func onlyKeptScopesAreDisposed(kind: KeyKindCase) async throws {
    for scope in [Scope.unique, .weak, .graph] {
      let container = Container()
      let closed = Collected<String>()
      kind.register(container, scope, Counter(), "\(scope)", { closed.append($0.label) })
      let held = try await kind.resolve(container, 1)
      try await container.dispose()
      #expect(closed.all.isEmpty, "\(scope): belongs to whoever resolved it")
      _ = held
    }
  }

  @Test(arguments: KeyKindCase.all)
  func aChildDisposedOnItsOwnDisposesWhatItMadeButNotItsParents(kind: KeyKindCase) async throws {
    let parent = Container()
    let closed = Collected<String>()
    kind.register(parent, .singleton, Counter(), "parent", { closed.append($0.label) })
    let child = parent.makeChild()
    kind.register(child, .singleton, Counter(), "child", { closed.append($0.label) })
    let fromChild = try await kind.resolve(child, 5)
    let fromParent = try await kind.resolve(parent, 5)
    try await child.dispose()
    #expect(closed.all == [fromChild.label])
    #expect(try await kind.resolve(parent, 5) === fromParent)
    try await parent.dispose()
    #expect(closed.all == [fromChild.label, fromParent.label])
  }

  @Test(arguments: KeyKindCase.all)
  func aProviderMadeBeforeDisposalThrowsContainerDisposed(kind: KeyKindCase) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "p", nil)
    let get = kind.provider(container)
    _ = try await get(1)
    try await container.dispose()
    let error = await #expect(throws: ResolutionError.self) { try await get(1) }
    #expect(error?.kind == .containerDisposed)
  }

  // MARK: Decorators and overrides together

  @Test(arguments: KeyKindCase.all)
  func decoratorsApplyToAnOverrideAndTheScopesOwnComeLast(kind: KeyKindCase) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "app", nil)
    kind.decorate(container, "outer")
    let inside = try await withOverrides {
      kind.register($0, .singleton, Counter(), "test", nil)
      kind.decorate($0, "scope")
    } operation: {
      (try await kind.resolve(container, 1), try await kind.resolve(container, 1))
    }
    let suffix = kind.takesArgument ? " 1" : ""
    #expect(inside.0.label == "test\(suffix)+outer+scope")
    #expect(inside.0 === inside.1, "a decorated singleton is decorated once")
    #expect(try await kind.resolve(container, 1).label == "app\(suffix)+outer")
  }

  @Test(arguments: KeyKindCase.all)
  func aDecoratorAddedInAScopeWrapsTheAppsRegistrationInTheScopeOnly(kind: KeyKindCase) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "app", nil)
    let outside = try await kind.resolve(container, 2)
    let inside = try await withOverrides {
      kind.decorate($0, "scope")
    } operation: {
      try await kind.resolve(container, 2)
    }
    #expect(inside.label == outside.label + "+scope")
    #expect(try await kind.resolve(container, 2) === outside)
  }

  @Test(arguments: KeyKindCase.all)
  func anOverrideScopeDisposesWhatItMadeOfEveryKindWithTheDecoratedValue(kind: KeyKindCase) async throws {
    let container = Container()
    let closed = Collected<String>()
    let made = try await withOverrides {
      kind.register($0, .singleton, Counter(), "scoped", { closed.append($0.label) })
      kind.decorate($0, "wrapped")
    } operation: {
      try await kind.resolve(container, 6)
    }
    #expect(closed.all == [made.label])
    #expect(made.label.hasSuffix("+wrapped"))
  }

  // MARK: Observers

  @Test(arguments: KeyKindCase.all)
  func observersSeeCreatedReusedAndFailedForEveryKind(kind: KeyKindCase) async throws {
    let container = Container()
    let observer = KindEvents()
    container.observe(observer)
    let calls = Counter()
    kind.registerFailingOnce(container, .singleton, calls)
    await #expect(throws: ResolutionError.self) { try await kind.resolve(container, 1) }
    _ = try await kind.resolve(container, 1)
    _ = try await kind.resolve(container, 1)
    #expect(observer.outcomes(of: kind.keyName) == [.failed, .created, .reused])
    let events = observer.events.all
    #expect(events.allSatisfy { $0.scope == .singleton && $0.depth == 0 })
    #expect(events.allSatisfy { $0.registeredAt?.fileID == "KnapsackTests/KindCombinationTests.swift" })
  }

  @Test(arguments: KeyKindCase.all)
  func anObserverOfTheParentSeesAFailureDeepInAChildsResolution(kind: KeyKindCase) async throws {
    let parent = Container()
    let observer = KindEvents()
    parent.observe(observer)
    let child = parent.makeChild()
    kind.register(child, .unique, Counter(), "unused", nil)
    // The kind's key needs a required key nobody provides.
    switch kind.name {
    case "sync": child.register(\.kindSync) { r in try r[\.kindNeeded] }
    case "async": child.register(\.kindAsync) { r in try r[\.kindNeeded] }
    case "main-actor": child.register(\.kindMain) { r in try r[\.kindNeeded] }
    case "argument": child.register(\.kindArg) { r, _ in try r[\.kindNeeded] }
    case "async argument": child.register(\.kindAsyncArg) { r, _ in try r[\.kindNeeded] }
    default: child.register(\.kindMainArg) { r, _ in try r[\.kindNeeded] }
    }
    let error = await #expect(throws: ResolutionError.self) { try await kind.resolve(child, 1) }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.path.map(\.name) == [kind.keyName, "\\.kindNeeded"])
    let failed = observer.events.all.filter { $0.outcome == .failed }
    #expect(failed.map(\.dependency.name) == ["\\.kindNeeded", kind.keyName])
    #expect(failed.first?.requestedBy?.name == kind.keyName)
    #expect(failed.map(\.depth) == [1, 0])
  }

  // MARK: Handles made before a registration changes

  @Test(arguments: KeyKindCase.all)
  func aProviderMadeBeforeARegistrationChangesResolvesTheNewOne(kind: KeyKindCase) async throws {
    let container = Container()
    let get = kind.provider(container)
    let before = try await get(1)
    #expect(before.label.contains("default"))
    kind.register(container, .unique, Counter(), "registered later", nil)
    #expect(try await get(1).label.hasPrefix("registered later"))
    kind.decorate(container, "decorated later")
    #expect(try await get(1).label.hasSuffix("+decorated later"))
  }

  @Test func aLazyMadeBeforeARegistrationChangesResolvesTheNewOneOnFirstRead() async throws {
    let container = Container()
    let (sync, async, main, arg, asyncArg, mainArg) = lazyOfEachKind(of: container)
    for kind in KeyKindCase.all { kind.register(container, .unique, Counter(), "later", nil) }
    #expect(try sync.value.label == "later")
    #expect(try await async.value.label == "later")
    #expect(try await MainActor.run { try main.value.label } == "later")
    #expect(try arg.value.label == "later 1")
    #expect(try await asyncArg.value.label == "later 2")
    #expect(try await MainActor.run { try mainArg.value.label } == "later 3")
    // Read once, a lazy handle keeps what it read.
    for kind in KeyKindCase.all { kind.register(container, .unique, Counter(), "latest", nil) }
    #expect(try sync.value.label == "later")
    #expect(try await asyncArg.value.label == "later 2")
    #expect(try await MainActor.run { try mainArg.value.label } == "later 3")
  }

  // MARK: Multibindings in override scopes

  @Test func contributionsOfEveryKindInAnOverrideScopeComeAfterTheContainersAndStayThere() async throws {
    let container = Container()
    container.contribute(to: \.fxPlugins) { _ in Token("app") }
    container.contribute(to: \.fxAsyncPlugins) { _ in Token("app") }
    container.contribute(to: \.fxMainPlugins) { _ in Token("app") }
    let closed = Collected<String>()
    let inside = try await withOverrides {
      $0.contribute(to: \.fxPlugins, scope: .singleton, dispose: { closed.append("sync " + $0.label) }) { _ in
        Token("test")
      }
      $0.contribute(to: \.fxAsyncPlugins, scope: .singleton, dispose: { closed.append("async " + $0.label) }) { _ in
        await Task.yield()
        return Token("test")
      }
      $0.contribute(to: \.fxMainPlugins, scope: .singleton, dispose: { closed.append("main " + $0.label) }) { _ in
        #expect(MainQueueProbe.isOnMainQueue)
        return Token("test")
      }
    } operation: {
      [
        try container[\.fxPlugins].map(\.label), try await container.resolve(\.fxAsyncPlugins).map(\.label),
        try await container.resolve(\.fxMainPlugins).map(\.label),
      ]
    }
    #expect(inside == [["app", "test"], ["app", "test"], ["app", "test"]])
    #expect(closed.all.sorted() == ["async test", "main test", "sync test"], "disposed when the scope ended")
    #expect(try container[\.fxPlugins].map(\.label) == ["app"])
    #expect(try await container.resolve(\.fxAsyncPlugins).map(\.label) == ["app"])
    #expect(try await container.resolve(\.fxMainPlugins).map(\.label) == ["app"])
  }

  @Test func aMultibindingProviderMadeBeforeAContributionSeesIt() async throws {
    let container = Container()
    let sync = container.provider(\.fxPlugins)
    let async = container.provider(\.fxAsyncPlugins)
    let main = container.provider(\.fxMainPlugins)
    #expect(try sync.get().isEmpty)
    #expect(try await async.get().isEmpty)
    #expect(try await main.get().isEmpty)
    container.contribute(to: \.fxPlugins) { _ in Token("late") }
    container.contribute(to: \.fxAsyncPlugins) { _ in Token("late") }
    container.contribute(to: \.fxMainPlugins) { _ in Token("late") }
    #expect(try sync.get().map(\.label) == ["late"])
    #expect(try await async.get().map(\.label) == ["late"])
    #expect(try await main.get().map(\.label) == ["late"])
  }

  // MARK: Off the main actor

  @Test func anAsyncResolveFromADetachedTaskHopsToTheMainActorForEveryMainActorForm() async throws {
    let container = Container()
    container.register(\.kindMain, scope: .singleton) { _ in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token("main")
    }
    container.register(\.kindMainArg, scope: .cached) { _, n in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token("main \(n)")
    }
    container.decorate(\.kindMainArg) { _, token in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token(token.label + "+d")
    }
    container.contribute(to: \.fxMainPlugins, scope: .weak) { _ in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token("element")
    }
    let labels = try await Task.detached {
      #expect(!MainQueueProbe.isOnMainQueue)
      let main = try await container.resolve(\.kindMain)
      let arg = try await container.resolve(\.kindMainArg, argument: 1)
      let elements = try await container.resolve(\.fxMainPlugins)
      let provided = try await container.provider(\.kindMainArg).get(1)
      #expect(provided === arg)
      return [main.label, arg.label] + elements.map(\.label)
    }.value
    #expect(labels == ["main", "main 1+d", "element"])
  }
}

// MARK: Test traits and property wrappers

@MainActor final class KindModel {
  @LazyInjected(\.kindMainArg, argument: 7) var token: Token
  @Injected(\.kindMainArg, argument: 8) var eager: Token
}

@Suite struct ContainerTraitAcrossKindsTests {
  let container = Container()

  @Test(.overrides { $0.register(\.kindMainArg, scope: .singleton) { _, n in Token("trait \(n)") } })
  func aTraitOverridesAMainActorArgumentKey() async throws {
    let one = try await container.resolve(\.kindMainArg, argument: 1)
    #expect(one.label == "trait 1")
    #expect(try await container.resolve(\.kindMainArg, argument: 1) === one)
    #expect(try await container.resolve(\.kindMainArg, argument: 2).label == "trait 2")
  }

  @Test(.overrides { $0.register(\.kindAsyncArg, scope: .weak) { _, n in Token("trait \(n)") } })
  func aTraitOverridesAnAsyncArgumentKey() async throws {
    let one = try await container.resolve(\.kindAsyncArg, argument: 1)
    #expect(one.label == "trait 1")
    #expect(try await container.resolve(\.kindAsyncArg, argument: 1) === one)
  }

  @Test(.container { $0.register(\.kindMainArg) { _, n in Token("container \(n)") } })
  @MainActor func lazyInjectedOfAMainActorArgumentKeyReadsTheRegistrationAtFirstRead() throws {
    let model = KindModel()
    #expect(model.eager.label == "container 8")
    Container.current.register(\.kindMainArg) { _, n in Token("changed \(n)") }
    #expect(model.token.label == "changed 7")
    Container.current.register(\.kindMainArg) { _, n in Token("changed again \(n)") }
    #expect(model.token.label == "changed 7", "read once, kept")
  }
}

@MainActor final class KindScopedModel {
  @LazyInjected var main: Token
  @LazyInjected var mainArg: Token
  @LazyInjected var sync: Token
  @LazyInjected var arg: Token
  init(container: Container) {
    _main = LazyInjected(\.kindMain, container: container)
    _mainArg = LazyInjected(\.kindMainArg, argument: 4, container: container)
    _sync = LazyInjected(\.kindSync, container: container)
    _arg = LazyInjected(\.kindArg, argument: 5, container: container)
  }
  var labels: [String] { [main.label, mainArg.label, sync.label, arg.label] }
}

@Suite struct LazyInjectedScopeAcrossKindsTests {
  @MainActor @Test func lazyInjectedOfEveryKindItTakesRemembersTheScopeOfItsInitialization() async throws {
    let container = Container()
    let before = KindScopedModel(container: container)
    let (inside, labelsInside) = try await withOverrides {
      for kind in KeyKindCase.all { kind.register($0, .unique, Counter(), "scoped", nil) }
    } operation: { () async throws in
      let inside = KindScopedModel(container: container)
      // Made before the scope opened: the scope's overrides are not its.
      #expect(before.labels == ["main default", "main arg default 4", "sync default", "arg default 5"])
      return (inside, inside.labels)
    }
    #expect(labelsInside == ["scoped", "scoped 4", "scoped", "scoped 5"])
    // Made inside, read first after the scope ended: still the scope's.
    let late = try await withOverrides {
      for kind in KeyKindCase.all { kind.register($0, .unique, Counter(), "late", nil) }
    } operation: { () async throws in
      KindScopedModel(container: container)
    }
    #expect(late.labels == ["late", "late 4", "late", "late 5"])
    _ = inside
  }
}

@Suite struct RequestSiteAcrossKindsTests {
  @Test(arguments: KeyKindCase.all)
  func aFailureOfEveryKindNamesTheLineThatAskedThroughEveryEntryPoint(kind: KeyKindCase) async throws {
    let container = Container()
    kind.registerFailingOnce(container, .unique, Counter())
    let resolved = await #expect(throws: ResolutionError.self) { try await kind.resolve(container, 1) }
    #expect(
      resolved?.requestedAt?.fileID == "KnapsackTests/KindCombinationTests.swift", "\(String(describing: resolved))")
    #expect(resolved?.description.contains("asked for at KnapsackTests/KindCombinationTests.swift:") == true)
    let failing = Container()
    kind.registerFailingOnce(failing, .unique, Counter())
    let get = kind.provider(failing)
    let provided = await #expect(throws: ResolutionError.self) { try await get(1) }
    #expect(
      provided?.requestedAt?.fileID == "KnapsackTests/KindCombinationTests.swift", "\(String(describing: provided))")
    // Inside an override scope too.
    let scoped = await withOverrides {
      kind.registerFailingOnce($0, .unique, Counter())
    } operation: { () async -> ResolutionError? in
      await #expect(throws: ResolutionError.self) { try await kind.resolve(container, 1) }
    }
    #expect(scoped?.requestedAt?.fileID == "KnapsackTests/KindCombinationTests.swift", "\(String(describing: scoped))")
  }
}

@Suite struct ConcurrencyAcrossContainersTests {
  @Test(arguments: KeyKindCase.all, [Scope.singleton, .cached, .weak])
  func firstResolutionsThroughManyChildrenAndProvidersAtOnceMakeTheParentsInstanceOnce(
    kind: KeyKindCase, scope: Scope
  ) async throws {
    let parent = Container()
    let made = Counter()
    kind.register(parent, scope, made, "parent", nil)
    let children = (0..<6).map { _ in parent.makeChild() }
    let grandchildren = children.map { $0.makeChild() }
    let providers = (children + grandchildren).map { kind.provider($0) }
    let results = await resolveConcurrently(48) { index in
      switch index % 3 {
      case 0: return try await kind.resolve(children[index % children.count], 7)
      case 1: return try await kind.resolve(grandchildren[index % grandchildren.count], 7)
      default: return try await providers[index % providers.count](7)
      }
    }
    let tokens = try results.map { try $0.get() }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1)
    #expect(made.count == 1)
    #expect(try await kind.resolve(parent, 7) === tokens[0])
  }

  @Test(arguments: KeyKindCase.all)
  func firstResolutionsInOneOverrideScopeFromManyChildTasksMakeTheScopesInstanceOnce(kind: KeyKindCase) async throws {
    let container = Container()
    let child = container.makeChild()
    let made = Counter()
    let tokens = try await withOverrides {
      kind.register($0, .singleton, made, "scoped", nil)
    } operation: { () async throws -> [Token] in
      let results = await resolveConcurrently(32) { index in
        try await kind.resolve(index % 2 == 0 ? container : child, 3)
      }
      return try results.map { try $0.get() }
    }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 1)
    #expect(made.count == 1)
  }
}

@Suite struct ObservedConcurrencyTests {
  @Test(arguments: KeyKindCase.all, [Scope.singleton, .cached, .weak])
  func concurrentFirstResolutionsAreObservedAsOneCreationAndTheRestReused(kind: KeyKindCase, scope: Scope) async throws
  {
    let container = Container()
    let observer = KindEvents()
    container.observe(observer)
    let made = Counter()
    kind.register(container, scope, made, "observed", nil)
    let results = await resolveConcurrently(24) { _ in try await kind.resolve(container, 1) }
    let tokens = try results.map { try $0.get() }
    #expect(made.count == 1)
    let outcomes = observer.outcomes(of: kind.keyName)
    #expect(outcomes.count == 24)
    #expect(outcomes.filter { $0 == .created }.count == 1, "\(outcomes)")
    #expect(outcomes.filter { $0 == .reused }.count == 23, "\(outcomes)")
    _ = tokens
  }
}

@Suite struct SynchronousScopeAcrossKindsTests {
  @MainActor @Test func aSynchronousScopeOverridesMainActorKeysFromMainActorCode() throws {
    let container = Container()
    container.register(\.kindMain, scope: .singleton) { _ in Token("app") }
    let closed = Collected<String>()
    let (main, mainArg, decorated) = try withOverrides {
      $0.register(\.kindMain, scope: .singleton, dispose: { closed.append($0.label) }) { _ in Token("scoped") }
      $0.register(\.kindMainArg, scope: .cached) { _, n in Token("scoped \(n)") }
      $0.decorate(\.kindMainArg) { _, t in Token(t.label + "+d") }
    } operation: {
      (
        try container[\.kindMain], try container.resolve(\.kindMainArg, argument: 2),
        try container.resolve(\.kindMainArg, argument: 2)
      )
    }
    #expect(main.label == "scoped")
    #expect(mainArg.label == "scoped 2+d")
    #expect(decorated === mainArg)
    #expect(closed.all.isEmpty, "a synchronous scope cannot wait for disposal: it leaves them")
    #expect(try container[\.kindMain].label == "app")
    #expect(try container.resolve(\.kindMainArg, argument: 2).label == "main arg default 2")
  }
}

/// A lazy handle of each kind's key, made now: the argument keys' for 1, 2 and 3.
func lazyOfEachKind(
  of container: Container
) -> (
  Lazy<Key<Token>>, Lazy<AsyncKey<Token>>, Lazy<MainActorKey<Token>>, Lazy<ArgumentKey<Int, Token>>,
  Lazy<DependencyKey<AsyncKind, Int, Token>>, Lazy<DependencyKey<MainActorKind, Int, Token>>
) {
  (
    container.lazy(\.kindSync), container.lazy(\.kindAsync), container.lazy(\.kindMain),
    container.lazy(\.kindArg, argument: 1), container.lazy(\.kindAsyncArg, argument: 2),
    container.lazy(\.kindMainArg, argument: 3)
  )
}

/// What a factory runs to be held while the test acts: it notes that it started, then waits
/// until the test lets it go, blocking its thread (a synchronous or main-actor factory; bounded
/// by ``threadWaitBound``, so a test lets it go in a `defer` too, lest a failure leave the main
/// thread blocked) or suspending (an asynchronous one, which so holds no thread of the pool).
final class FactoryHold: Sendable {
  let entered = Counter()
  private let released = Counter()

  func letGo() { released.increment() }

  func blocking<T>(_ make: () -> T) -> T {
    entered.increment()
    _ = waitUntilSync(timeout: threadWaitBound) { released.count > 0 }
    return make()
  }

  func suspending<T>(_ make: () -> T) async -> T {
    entered.increment()
    _ = await waitUntil(timeout: hangBound) { released.count > 0 }
    return make()
  }
}
