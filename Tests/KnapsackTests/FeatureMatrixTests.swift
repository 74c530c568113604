import Knapsack
import KnapsackTesting
import Testing

// One test per cell of the feature × kind table in the DocC article "Keys": every feature of
// Knapsack, exercised through each kind of key (synchronous, asynchronous, main-actor and
// argument). A cell marked "—" in the table is a compile error by design and has no test here.

/// What each feature test needs to know about one kind of key.
struct KindUnderTest: Sendable, CustomTestStringConvertible {
  let name: String
  /// Registers the kind's key with `scope`, counting creations and labelling tokens `label`.
  let register: @Sendable (Container, Scope?, Counter, String, (@Sendable (Token) async throws -> Void)?) -> Void
  /// Registers the key, with the scope given (nil for the key's own), with a factory that needs
  /// `\.fxNeeded`.
  let registerNeedingRequired: @Sendable (Container, Scope?) -> Void
  /// Resolves the key from outside any factory.
  let resolve: @Sendable (Container) async throws -> Token
  /// Resolves a pair key whose one factory resolves this kind's key twice.
  let resolvePair: @Sendable (Container) async throws -> FxPair
  /// Adds a decorator that appends "+decorated" to the label.
  let decorate: @Sendable (Container) -> Void
  /// Resolves twice through a provider, then through a lazy handle twice, if the kind has one;
  /// a kind that takes an argument has none, and passes "+second" the second time instead.
  let provider: @Sendable (Container) async throws -> [Token]
  /// The key as validation and `isRegistered` name it.
  let keyName: String
  /// A sample argument for validation, if the kind takes one.
  let sample: @Sendable () -> [PartialKeyPath<Dependencies>: any Sendable]

  var testDescription: String { name }

  static let all: [KindUnderTest] = [.sync, .async, .mainActor, .argument, .asyncArgument, .mainActorArgument]

  static let sync = KindUnderTest(
    name: "synchronous",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxSync, scope: scope, dispose: dispose) { _ in
        counter.increment()
        return Token(label)
      }
    },
    registerNeedingRequired: { $0.register(\.fxSync, scope: $1) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try $0[\.fxSync] },
    resolvePair: { try $0[\.fxSyncPair] },
    decorate: { $0.decorate(\.fxSync) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      let provider = container.provider(\.fxSync)
      let lazy = container.lazy(\.fxSync)
      return [try provider.get(), try provider.get(), try lazy.value, try lazy.value]
    },
    keyName: "\\.fxSync", sample: { [:] })

  static let async = KindUnderTest(
    name: "asynchronous",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxAsync, scope: scope, dispose: dispose) { _ in
        await Task.yield()
        counter.increment()
        return Token(label)
      }
    },
    registerNeedingRequired: { $0.register(\.fxAsync, scope: $1) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxAsync) },
    resolvePair: { try await $0.resolve(\.fxAsyncPair) },
    decorate: { $0.decorate(\.fxAsync) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      let provider = container.provider(\.fxAsync)
      let lazy = container.lazy(\.fxAsync)
      return [try await provider.get(), try await provider.get(), try await lazy.value, try await lazy.value]
    },
    keyName: "\\.fxAsync", sample: { [:] })

  static let mainActor = KindUnderTest(
    name: "main-actor",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxMain, scope: scope, dispose: dispose) { _ in
        #expect(MainQueueProbe.isOnMainQueue, "a main-actor factory runs on the main actor")
        counter.increment()
        return Token(label)
      }
    },
    registerNeedingRequired: { $0.register(\.fxMain, scope: $1) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxMain) },
    resolvePair: { try await $0.resolve(\.fxMainPair) },
    decorate: { $0.decorate(\.fxMain) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      let provider = container.provider(\.fxMain)
      let lazy = container.lazy(\.fxMain)
      let fromAnywhere = try await provider.get()
      let onMain = try await MainActor.run { [try provider.get(), try lazy.value, try lazy.value] }
      return [fromAnywhere] + onMain
    },
    keyName: "\\.fxMain", sample: { [:] })

  static let argument = KindUnderTest(
    name: "argument",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxArgument, scope: scope, dispose: dispose) { _, suffix in
        counter.increment()
        return Token(label + suffix)
      }
    },
    registerNeedingRequired: { $0.register(\.fxArgument, scope: $1) { r, _ in Token(try r[\.fxNeeded].label) } },
    resolve: { try $0.resolve(\.fxArgument, argument: "") },
    resolvePair: { try $0[\.fxArgumentPair] },
    decorate: { $0.decorate(\.fxArgument) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      // An argument key has a provider (one argument per call) but no lazy handle.
      let provider = container.provider(\.fxArgument)
      return [try provider.get(""), try provider.get("+second")]
    },
    keyName: "\\.fxArgument", sample: { [\Dependencies.fxArgument: "sample"] })
}

extension KindUnderTest {
  // Asynchronous and main-actor keys that take an argument: the table's argument column, with
  // the asynchronous or main-actor column's way of running the factory.

  static let asyncArgument = KindUnderTest(
    name: "asynchronous with an argument",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxAsyncArgument, scope: scope, dispose: dispose) { _, suffix in
        await Task.yield()
        counter.increment()
        return Token(label + suffix)
      }
    },
    registerNeedingRequired: { $0.register(\.fxAsyncArgument, scope: $1) { r, _ in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxAsyncArgument, argument: "") },
    resolvePair: { try await $0.resolve(\.fxAsyncArgumentPair) },
    decorate: { $0.decorate(\.fxAsyncArgument) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      let provider = container.provider(\.fxAsyncArgument)
      return [try await provider.get(""), try await provider.get("+second")]
    },
    keyName: "\\.fxAsyncArgument", sample: { [\Dependencies.fxAsyncArgument: "sample"] })

  static let mainActorArgument = KindUnderTest(
    name: "main-actor with an argument",
    register: { container, scope, counter, label, dispose in
      container.register(\.fxMainArgument, scope: scope, dispose: dispose) { _, suffix in
        #expect(MainQueueProbe.isOnMainQueue, "a main-actor factory runs on the main actor")
        counter.increment()
        return Token(label + suffix)
      }
    },
    registerNeedingRequired: { $0.register(\.fxMainArgument, scope: $1) { r, _ in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxMainArgument, argument: "") },
    resolvePair: { try await $0.resolve(\.fxMainArgumentPair) },
    decorate: { $0.decorate(\.fxMainArgument) { _, token in Token(token.label + "+decorated") } },
    provider: { container in
      let provider = container.provider(\.fxMainArgument)
      return [try await provider.get(""), try await provider.get("+second")]
    },
    keyName: "\\.fxMainArgument", sample: { [\Dependencies.fxMainArgument: "sample"] })
}

/// What the multibinding row of the table needs to know about one kind of multibinding.
struct MultibindingKindUnderTest: Sendable, CustomTestStringConvertible {
  let name: String
  /// Contributes a token labelled `label`, with `scope` and the `dispose:` closure given.
  let contributeDisposing: @Sendable (Container, Scope, String, (@Sendable (Token) async throws -> Void)?) -> Void

  /// Contributes a token labelled `label`, with `scope`.
  func contribute(_ container: Container, _ scope: Scope, _ label: String) {
    contributeDisposing(container, scope, label, nil)
  }
  /// Contributes a token whose factory needs `\.fxNeeded`.
  let contributeNeedingRequired: @Sendable (Container) -> Void
  /// Resolves every element, from outside any factory.
  let resolve: @Sendable (Container) async throws -> [Token]
  /// Resolves every element through a ``Provider``'s `get`, twice, and through a ``Lazy``'s
  /// `value`, twice, each the way its kind needs.
  let resolveThroughHandles: @Sendable (Container) async throws -> (provided: [[Token]], lazy: [[Token]])
  /// The multibinding key, for validation (a key path is not `Sendable`: made on each call).
  let key: @Sendable () -> PartialKeyPath<Dependencies>
  let keyName: String

  var testDescription: String { name }

  static let all: [MultibindingKindUnderTest] = [.sync, .async, .mainActor]

  static let sync = MultibindingKindUnderTest(
    name: "synchronous",
    contributeDisposing: { container, scope, label, dispose in
      container.contribute(to: \.fxPlugins, scope: scope, dispose: dispose) { _ in Token(label) }
    },
    contributeNeedingRequired: { $0.contribute(to: \.fxPlugins) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try $0[\.fxPlugins] },
    resolveThroughHandles: { container in
      let provider = container.provider(\.fxPlugins)
      let lazy = container.lazy(\.fxPlugins)
      return ([try provider.get(), try provider.get()], [try lazy.value, try lazy.value])
    },
    key: { \Dependencies.fxPlugins }, keyName: "\\.fxPlugins")

  static let async = MultibindingKindUnderTest(
    name: "asynchronous",
    contributeDisposing: { container, scope, label, dispose in
      container.contribute(to: \.fxAsyncPlugins, scope: scope, dispose: dispose) { _ in
        await Task.yield()
        return Token(label)
      }
    },
    contributeNeedingRequired: { $0.contribute(to: \.fxAsyncPlugins) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxAsyncPlugins) },
    resolveThroughHandles: { container in
      let provider = container.provider(\.fxAsyncPlugins)
      let lazy = container.lazy(\.fxAsyncPlugins)
      return ([try await provider.get(), try await provider.get()], [try await lazy.value, try await lazy.value])
    },
    key: { \Dependencies.fxAsyncPlugins }, keyName: "\\.fxAsyncPlugins")

  static let mainActor = MultibindingKindUnderTest(
    name: "main-actor",
    contributeDisposing: { container, scope, label, dispose in
      container.contribute(to: \.fxMainPlugins, scope: scope, dispose: dispose) { _ in
        #expect(MainQueueProbe.isOnMainQueue, "a main-actor contribution runs on the main actor")
        return Token(label)
      }
    },
    contributeNeedingRequired: { $0.contribute(to: \.fxMainPlugins) { r in Token(try r[\.fxNeeded].label) } },
    resolve: { try await $0.resolve(\.fxMainPlugins) },
    resolveThroughHandles: { container in
      let provider = container.provider(\.fxMainPlugins)
      let lazy = container.lazy(\.fxMainPlugins)
      // `await get()` from elsewhere; `get()` and `value` on the main actor.
      let fromElsewhere = try await provider.get()
      return try await MainActor.run { ([fromElsewhere, try provider.get()], [try lazy.value, try lazy.value]) }
    },
    key: { \Dependencies.fxMainPlugins }, keyName: "\\.fxMainPlugins")
}

/// Two values of one key made by one factory call.
struct FxPair: Sendable {
  let first: Token
  let second: Token
}

extension Dependencies {
  var fxSync: Key<Token> { Key { Token("default") } }
  var fxAsync: AsyncKey<Token> { AsyncKey { _ in Token("default") } }
  var fxMain: MainActorKey<Token> { MainActorKey { _ in Token("default") } }
  var fxArgument: ArgumentKey<String, Token> { ArgumentKey { _, suffix in Token("default" + suffix) } }
  var fxNeeded: Key<Token> { .required() }
  var fxAsyncArgument: DependencyKey<AsyncKind, String, Token> {
    DependencyKey { _, suffix in Token("default" + suffix) }
  }
  var fxMainArgument: DependencyKey<MainActorKind, String, Token> {
    DependencyKey { _, suffix in Token("default" + suffix) }
  }
  var fxAsyncArgumentPair: AsyncKey<FxPair> {
    AsyncKey { r in
      FxPair(
        first: try await r.resolve(\.fxAsyncArgument, argument: "g"),
        second: try await r.resolve(\.fxAsyncArgument, argument: "g"))
    }
  }
  var fxMainArgumentPair: MainActorKey<FxPair> {
    MainActorKey { r in
      FxPair(
        first: try r.resolve(\.fxMainArgument, argument: "g"), second: try r.resolve(\.fxMainArgument, argument: "g"))
    }
  }
  var fxPlugins: Multibinding<Token> { MultibindingKey() }
  var fxAsyncPlugins: AsyncMultibinding<Token> { MultibindingKey() }
  var fxMainPlugins: MainActorMultibinding<Token> { MultibindingKey() }

  var fxSyncPair: Key<FxPair> { Key { r in FxPair(first: try r[\.fxSync], second: try r[\.fxSync]) } }
  var fxAsyncPair: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.fxAsync), second: try await r.resolve(\.fxAsync)) }
  }
  var fxMainPair: MainActorKey<FxPair> { MainActorKey { r in FxPair(first: try r[\.fxMain], second: try r[\.fxMain]) } }
  var fxArgumentPair: Key<FxPair> {
    Key { r in
      FxPair(first: try r.resolve(\.fxArgument, argument: "g"), second: try r.resolve(\.fxArgument, argument: "g"))
    }
  }
}

/// Records every resolution event's dependency name.
final class NameRecorder: ResolutionObserver {
  let names = Collected<String>()
  func didResolve(_ event: ResolutionEvent) { names.append(event.dependency.name) }
}

@Suite struct FeatureMatrixTests {
  // MARK: Scopes

  @Test(arguments: KindUnderTest.all) func unique(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, .unique, Counter(), "u", nil)
    #expect(try await kind.resolve(container) !== (try await kind.resolve(container)))
  }

  @Test(arguments: KindUnderTest.all) func singletonIsMadeOnceUnderConcurrency(kind: KindUnderTest) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, .singleton, made, "s", nil)
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<16 { group.addTask { ObjectIdentifier(try await kind.resolve(container)) } }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(identities.count == 1)
    #expect(made.count == 1)
  }

  @Test(arguments: KindUnderTest.all) func aFailedCreationIsNotKept(kind: KindUnderTest) async throws {
    for scope in [Scope.singleton, .cached, .weak, .graph] {
      let container = Container()
      let attempts = Counter()
      container.register(\.fxNeeded) { () throws -> Token in
        if attempts.increment() == 1 { throw PlannedFailure("first attempt") }
        return Token("needed")
      }
      kind.registerNeedingRequired(container, scope)
      await #expect(throws: ResolutionError.self, "\(scope)") { try await kind.resolve(container) }
      #expect(try await kind.resolve(container).label == "needed", "\(scope): the failure was not kept")
      #expect(attempts.count == 2, "\(scope)")
    }
  }

  @Test(arguments: KindUnderTest.all) func cached(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, .cached, Counter(), "c", nil)
    let first = try await kind.resolve(container)
    #expect(try await kind.resolve(container) === first)
    container.resetCached()
    #expect(try await kind.resolve(container) !== first)
  }

  @Test(arguments: KindUnderTest.all) func weak(kind: KindUnderTest) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, .weak, made, "w", nil)
    var held: Token? = try await kind.resolve(container)
    #expect(try await kind.resolve(container) === held, "shared while someone holds it")
    #expect(made.count == 1)
    held = nil
    _ = try await kind.resolve(container)
    #expect(made.count == 2, "made again once released")
    _ = held
  }

  @Test(arguments: KindUnderTest.all) func graph(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, .graph, Counter(), "g", nil)
    let pair = try await kind.resolvePair(container)
    #expect(pair.first === pair.second, "one instance within one resolution")
    #expect(try await kind.resolvePair(container).first !== pair.first, "another in the next")
  }

  @Test(arguments: KindUnderTest.all) func childContainers(kind: KindUnderTest) async throws {
    let parent = Container()
    kind.register(parent, .singleton, Counter(), "parent", nil)
    let child = parent.makeChild()
    #expect(try await kind.resolve(child) === (try await kind.resolve(parent)), "a parent's singleton is shared")
    let session = parent.makeChild()
    kind.register(session, .singleton, Counter(), "session", nil)
    #expect(try await kind.resolve(session).label.hasPrefix("session"))
    #expect(try await kind.resolve(parent).label.hasPrefix("parent"), "a child's registration stays in the child")
  }

  // MARK: Lifecycle, decorators, tracing

  @Test(arguments: KindUnderTest.all) func disposeClosure(kind: KindUnderTest) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.register(container, .singleton, Counter(), "d", { token in closed.append(token.label) })
    let token = try await kind.resolve(container)
    try await container.dispose()
    #expect(closed.all == [token.label])
  }

  @Test(arguments: KindUnderTest.all) func decorators(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, nil, Counter(), "made", nil)
    kind.decorate(container)
    #expect(try await kind.resolve(container).label.hasPrefix("made"))
    #expect(try await kind.resolve(container).label.hasSuffix("+decorated"))
  }

  @Test(arguments: KindUnderTest.all) func tracing(kind: KindUnderTest) async throws {
    let container = Container()
    let recorder = NameRecorder()
    container.observe(recorder)
    kind.register(container, nil, Counter(), "t", nil)
    _ = try await kind.resolve(container)
    #expect(recorder.names.all == [kind.keyName])
  }

  // MARK: Handles, overrides, validation

  @Test(arguments: KindUnderTest.all) func providerAndLazy(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, .unique, Counter(), "p", nil)
    let tokens = try await kind.provider(container)
    #expect(tokens[0] !== tokens[1], "a provider resolves again each time")
    if kind.sample().isEmpty {
      try #require(tokens.count == 4)
      #expect(tokens[2] !== tokens[0] && tokens[2] === tokens[3], "a lazy handle resolves once and keeps its value")
    } else {
      try #require(tokens.count == 2)
      #expect(tokens[1].label == "p+second", "a provider passes each call's argument")
    }
  }

  @Test(arguments: KindUnderTest.all) func overrides(kind: KindUnderTest) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), "app", nil)
    let inside = try await withOverrides {
      kind.register($0, .singleton, Counter(), "test", nil)
    } operation: {
      try await kind.resolve(container)
    }
    #expect(inside.label.hasPrefix("test"))
    #expect(try await kind.resolve(container).label.hasPrefix("app"))
  }

  @Test(arguments: KindUnderTest.all) func validationFollowsTheKind(kind: KindUnderTest) async throws {
    let container = Container()
    kind.registerNeedingRequired(container, nil)
    let report = await container.validate(arguments: kind.sample())
    let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(missing.dependency.name == "\\.fxNeeded")
    #expect(missing.dependency.location?.fileID == "KnapsackTests/FeatureMatrixTests.swift")
    #expect(missing.path.map(\.name) == [kind.keyName, "\\.fxNeeded"])
    #expect(report.needsSampleArgument.isEmpty)
  }

  // MARK: Multibinding contributions (no argument kind: an element takes no argument)

  @Test(arguments: MultibindingKindUnderTest.all) func contributionsDisposeClosure(
    kind: MultibindingKindUnderTest
  ) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.contributeDisposing(container, .singleton, "kept", { closed.append($0.label) })
    kind.contributeDisposing(container, .unique, "passing", { closed.append($0.label) })
    let elements = try await kind.resolve(container)
    #expect(elements.map(\.label).sorted() == ["kept", "passing"])
    try await container.dispose()
    #expect(closed.all == ["kept"], "the kept contribution is closed once; the container keeps no unique one")
    try await container.dispose()
    #expect(closed.all == ["kept"])
  }

  @Test(arguments: MultibindingKindUnderTest.all) func multibindingContributions(
    kind: MultibindingKindUnderTest
  ) async throws {
    let parent = Container()
    kind.contribute(parent, .singleton, "parent")
    let child = parent.makeChild()
    kind.contribute(child, .unique, "child")
    let first = try await kind.resolve(child)
    let second = try await kind.resolve(child)
    #expect(first.map(\.label).sorted() == ["child", "parent"])
    let shared = try #require(first.first { $0.label == "parent" })
    let made = try #require(first.first { $0.label == "child" })
    #expect(second.contains { $0 === shared }, "a singleton contribution is made once")
    #expect(!second.contains { $0 === made }, "a unique contribution is made again")
    #expect(try await kind.resolve(parent).map(\.label) == ["parent"], "a child's contribution stays in the child")
    #expect(try await kind.resolve(Container()).isEmpty)
  }

  @Test(arguments: MultibindingKindUnderTest.all) func multibindingHandles(
    kind: MultibindingKindUnderTest
  ) async throws {
    let container = Container()
    kind.contribute(container, .singleton, "shared")
    kind.contribute(container, .unique, "made each time")
    let (provided, lazy) = try await kind.resolveThroughHandles(container)
    for elements in provided + lazy { #expect(elements.map(\.label) == ["shared", "made each time"]) }
    #expect(provided[0][0] === provided[1][0], "a provider honours each contribution's scope")
    #expect(provided[0][1] !== provided[1][1])
    #expect(lazy[0][1] === lazy[1][1], "a lazy value is resolved once")
  }

  @Test(arguments: MultibindingKindUnderTest.all) func multibindingValidation(
    kind: MultibindingKindUnderTest
  ) async throws {
    let container = Container()
    kind.contributeNeedingRequired(container)
    for report in [await container.validate(), await container.validate(including: [kind.key()])] {
      let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
      #expect(report.problems.count == 1, "\(report)")
      #expect(missing.dependency.name == "\\.fxNeeded")
      #expect(missing.path.first?.name.hasPrefix(kind.keyName + " contribution") == true)
    }
    let satisfied = Container()
    kind.contribute(satisfied, .unique, "fine")
    #expect(await satisfied.validate(including: [kind.key()]).isValid)
  }

  // MARK: Property wrappers (synchronous and main-actor keys; see the table for the others)

  @Test func injectedResolvesASynchronousKeyFromTheTaskContainer() async throws {
    let container = Container()
    KindUnderTest.sync.register(container, .singleton, Counter(), "injected", nil)
    struct Holder {
      @Injected(\.fxSync) var token: Token
      @LazyInjected(\.fxSync) var lazyToken: Token
    }
    let holder = await withContainer(container) { Holder() }
    #expect(holder.token.label == "injected")
    #expect(holder.lazyToken === holder.token)
  }

  @MainActor @Test func injectedResolvesAMainActorKeyOnTheMainActor() async throws {
    let container = Container()
    KindUnderTest.mainActor.register(container, .singleton, Counter(), "injected", nil)
    @MainActor struct Holder {
      @Injected(\.fxMain) var token: Token
      @LazyInjected(\.fxMain) var lazyToken: Token
    }
    let holder = await withContainer(container) { Holder() }
    #expect(holder.token.label == "injected")
    #expect(holder.lazyToken === holder.token)
  }

  @MainActor @Test func lazyInjectedResolvesAMainActorKeyOnFirstAccessFromItsContainer() async throws {
    let container = Container()
    let made = Counter()
    KindUnderTest.mainActor.register(container, .unique, made, "lazy", nil)
    @MainActor struct Holder {
      @LazyInjected(\.fxMain) var token: Token
    }
    let holder = await withContainer(container) { Holder() }
    #expect(made.count == 0)
    #expect(holder.token.label == "lazy")
    #expect(holder.token === holder.token)
    #expect(made.count == 1)
  }
}

extension KindUnderTest: Equatable {
  static func == (lhs: KindUnderTest, rhs: KindUnderTest) -> Bool { lhs.name == rhs.name }
}
