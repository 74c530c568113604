import Knapsack
import Testing

// Cells of the feature × kind table in the DocC article "Keys" that `FeatureMatrixTests` reaches
// only in part: each test here fails if the feature breaks for one kind of key alone.

/// What the argument column's tests need to know about one kind of key that takes an argument.
struct ArgumentKindUnderTest: Sendable, CustomTestStringConvertible {
  let name: String
  /// Registers the kind's argument key with `scope`, counting creations, and closing each
  /// instance through `dispose` (if given).
  let register: @Sendable (Container, Scope, Counter, (@Sendable (Token) async throws -> Void)?) -> Void
  /// Registers the kind's key of ``ClosingToken`` with `scope`, and resolves it for "a" and "b".
  let resolveClosing: @Sendable (Container, Scope, Collected<String>) async throws -> Void
  /// Resolves the key for `argument`, from outside any factory.
  let resolve: @Sendable (Container, String) async throws -> Token
  /// Resolves a key whose one factory resolves this kind's key for "a", "a" and "b".
  let resolveSplit: @Sendable (Container) async throws -> [Token]
  /// Adds a decorator that appends "+decorated", awaiting (asynchronous) or checking that it runs
  /// on the main actor (main-actor), like the kind's factory.
  let decorate: @Sendable (Container) -> Void
  /// Makes a ``Lazy`` of the key for `argument`, and reads it twice.
  let lazyReads: @Sendable (Container, String) async throws -> [Token]
  /// The key as validation names it.
  let keyName: String

  var testDescription: String { name }

  static let all: [ArgumentKindUnderTest] = [.sync, .async, .mainActor]

  static let sync = ArgumentKindUnderTest(
    name: "argument",
    register: { container, scope, counter, dispose in
      container.register(\.fxArgument, scope: scope, dispose: dispose) { _, argument in
        counter.increment()
        return Token(argument)
      }
    },
    resolveClosing: { container, scope, closed in
      container.register(\.fxgClosing, scope: scope) { _, argument in ClosingToken(argument, closed) }
      for argument in ["a", "b"] { _ = try container.resolve(\.fxgClosing, argument: argument) }
    },
    resolve: { try $0.resolve(\.fxArgument, argument: $1) },
    resolveSplit: { try $0[\.fxgArgumentSplit] },
    decorate: { $0.decorate(\.fxArgument) { _, token in Token(token.label + "+decorated") } },
    lazyReads: { container, argument in
      let lazy = container.lazy(\.fxArgument, argument: argument)
      return [try lazy.value, try lazy.value]
    },
    keyName: "\\.fxArgument")

  static let async = ArgumentKindUnderTest(
    name: "asynchronous with an argument",
    register: { container, scope, counter, dispose in
      container.register(\.fxAsyncArgument, scope: scope, dispose: dispose) { _, argument in
        await Task.yield()
        counter.increment()
        return Token(argument)
      }
    },
    resolveClosing: { container, scope, closed in
      container.register(\.fxgAsyncClosing, scope: scope) { _, argument in
        await Task.yield()
        return ClosingToken(argument, closed)
      }
      for argument in ["a", "b"] { _ = try await container.resolve(\.fxgAsyncClosing, argument: argument) }
    },
    resolve: { try await $0.resolve(\.fxAsyncArgument, argument: $1) },
    resolveSplit: { try await $0.resolve(\.fxgAsyncArgumentSplit) },
    decorate: { container in
      container.decorate(\.fxAsyncArgument) { (r: Resolver, token: Token) async throws -> Token in
        await Task.yield()
        return Token(token.label + (try await r.resolve(\.fxgAsyncSuffix)))
      }
    },
    lazyReads: { container, argument in
      let lazy = container.lazy(\.fxAsyncArgument, argument: argument)
      return [try await lazy.value, try await lazy.value]
    },
    keyName: "\\.fxAsyncArgument")

  static let mainActor = ArgumentKindUnderTest(
    name: "main-actor with an argument",
    register: { container, scope, counter, dispose in
      container.register(\.fxMainArgument, scope: scope, dispose: dispose) { _, argument in
        #expect(MainQueueProbe.isOnMainQueue, "a main-actor factory runs on the main actor")
        counter.increment()
        return Token(argument)
      }
    },
    resolveClosing: { container, scope, closed in
      container.register(\.fxgMainClosing, scope: scope) { _, argument in ClosingToken(argument, closed) }
      for argument in ["a", "b"] { _ = try await container.resolve(\.fxgMainClosing, argument: argument) }
    },
    resolve: { try await $0.resolve(\.fxMainArgument, argument: $1) },
    resolveSplit: { try await $0.resolve(\.fxgMainArgumentSplit) },
    decorate: { container in
      container.decorate(\.fxMainArgument) { _, token in
        #expect(MainQueueProbe.isOnMainQueue, "a main-actor key's decorator runs on the main actor")
        return Token(token.label + "+decorated")
      }
    },
    lazyReads: { container, argument in
      try await MainActor.run {
        let lazy = container.lazy(\.fxMainArgument, argument: argument)
        return [try lazy.value, try lazy.value]
      }
    },
    keyName: "\\.fxMainArgument")
}

/// Holds an argument key's value through each property wrapper, from the task's container.
final class ArgumentHolder {
  @Injected(\.fxArgument, argument: "now") var now: Token
  @LazyInjected(\.fxArgument, argument: "later") var later: Token
}

/// Holds a main-actor argument key's value through each property wrapper, from the task's
/// container.
@MainActor final class MainArgumentHolder {
  @Injected(\.fxMainArgument, argument: "now") var now: Token
  @LazyInjected(\.fxMainArgument, argument: "later") var later: Token
}

/// A token that records its label in `closed` when disposed, as ``Disposable``.
final class ClosingToken: Disposable {
  let label: String
  let closed: Collected<String>
  init(_ label: String, _ closed: Collected<String>) {
    self.label = label
    self.closed = closed
  }
  func dispose() async throws { closed.append(label) }
}

extension Dependencies {
  var fxgClosing: ArgumentKey<String, ClosingToken> { .required() }
  var fxgAsyncClosing: DependencyKey<AsyncKind, String, ClosingToken> { .required() }
  var fxgMainClosing: DependencyKey<MainActorKind, String, ClosingToken> { .required() }
  var fxgAsyncSuffix: AsyncKey<String> {
    AsyncKey { _ in
      await Task.yield()
      return "+decorated"
    }
  }
  var fxgArgumentSplit: Key<[Token]> {
    Key { r in try ["a", "a", "b"].map { try r.resolve(\.fxArgument, argument: $0) } }
  }
  var fxgAsyncArgumentSplit: AsyncKey<[Token]> {
    AsyncKey { r in
      [
        try await r.resolve(\.fxAsyncArgument, argument: "a"), try await r.resolve(\.fxAsyncArgument, argument: "a"),
        try await r.resolve(\.fxAsyncArgument, argument: "b"),
      ]
    }
  }
  var fxgMainArgumentSplit: MainActorKey<[Token]> {
    MainActorKey { r in try ["a", "a", "b"].map { try r.resolve(\.fxMainArgument, argument: $0) } }
  }
}

@Suite struct FeatureMatrixCellTests {
  // MARK: Scopes of argument keys: one shared instance per argument

  @Test(arguments: ArgumentKindUnderTest.all, [Scope.singleton, .cached, .weak])
  func aSharedScopeKeepsOneInstancePerArgument(kind: ArgumentKindUnderTest, scope: Scope) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, scope, made, nil)
    let a = try await kind.resolve(container, "a")
    let b = try await kind.resolve(container, "b")
    #expect(a.label == "a" && b.label == "b", "each argument gets its own instance")
    #expect(try await kind.resolve(container, "a") === a)
    #expect(try await kind.resolve(container, "b") === b)
    #expect(made.count == 2)
    withExtendedLifetime((a, b)) {}
  }

  @Test(arguments: ArgumentKindUnderTest.all)
  func aGraphScopeKeepsOneInstancePerArgumentWithinAResolution(kind: ArgumentKindUnderTest) async throws {
    let container = Container()
    kind.register(container, .graph, Counter(), nil)
    let tokens = try await kind.resolveSplit(container)
    #expect(tokens.map(\.label) == ["a", "a", "b"])
    #expect(tokens[0] === tokens[1], "one instance for the same argument")
    #expect(tokens[2] !== tokens[0], "another for another argument")
  }

  @Test(arguments: ArgumentKindUnderTest.all)
  func aChildContainerSharesItsParentsInstancePerArgument(kind: ArgumentKindUnderTest) async throws {
    let parent = Container()
    kind.register(parent, .singleton, Counter(), nil)
    let child = parent.makeChild()
    let a = try await kind.resolve(child, "a")
    let b = try await kind.resolve(child, "b")
    #expect(a !== b)
    #expect(try await kind.resolve(parent, "a") === a)
    #expect(try await kind.resolve(parent, "b") === b)
  }

  // MARK: Handles and property wrappers with an argument

  @Test(arguments: ArgumentKindUnderTest.all)
  func aLazyResolvesTheKeyForItsArgumentOnceOnFirstRead(kind: ArgumentKindUnderTest) async throws {
    let container = Container()
    let counter = Counter()
    kind.register(container, .unique, counter, nil)
    let tokens = try await kind.lazyReads(container, "a")
    #expect(tokens.map(\.label) == ["a", "a"])
    #expect(tokens[0] === tokens[1], "a lazy keeps what its first read made")
    #expect(counter.count == 1)
  }

  @Test func propertyWrappersResolveAnArgumentKeyForTheirArgument() throws {
    let container = Container()
    let counter = Counter()
    container.register(\.fxArgument) { _, argument in
      counter.increment()
      return Token(argument)
    }
    let holder = withContainer(container) { ArgumentHolder() }
    #expect(holder.now.label == "now")
    #expect(counter.count == 1, "@LazyInjected resolves on first access")
    #expect(holder.later.label == "later")
    #expect(holder.later === holder.later)
    #expect(counter.count == 2)
  }

  @MainActor @Test func mainActorPropertyWrappersResolveAnArgumentKeyForTheirArgument() throws {
    let container = Container()
    container.register(\.fxMainArgument) { _, argument in
      #expect(MainQueueProbe.isOnMainQueue, "a main-actor factory runs on the main actor")
      return Token(argument)
    }
    let holder = withContainer(container) { MainArgumentHolder() }
    #expect(holder.now.label == "now")
    #expect(holder.later.label == "later")
    #expect(holder.later === holder.later)
  }

  // MARK: `dispose:` and `Disposable` per argument

  @Test(arguments: ArgumentKindUnderTest.all)
  func disposeClosesTheInstanceOfEachArgument(kind: ArgumentKindUnderTest) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.register(container, .singleton, Counter(), { closed.append($0.label) })
    _ = try await kind.resolve(container, "a")
    _ = try await kind.resolve(container, "b")
    try await container.dispose()
    #expect(closed.all.sorted() == ["a", "b"])
  }

  @Test(arguments: ArgumentKindUnderTest.all, [Scope.singleton, .cached])
  func aDisposableInstanceIsClosedPerArgument(kind: ArgumentKindUnderTest, scope: Scope) async throws {
    let container = Container()
    let closed = Collected<String>()
    try await kind.resolveClosing(container, scope, closed)
    try await container.dispose()
    #expect(closed.all.sorted() == ["a", "b"])
  }

  // MARK: Decorators in the way of the kind's factory

  @Test(arguments: ArgumentKindUnderTest.all)
  func decoratorsApplyPerArgument(kind: ArgumentKindUnderTest) async throws {
    let container = Container()
    kind.register(container, .singleton, Counter(), nil)
    kind.decorate(container)
    #expect(try await kind.resolve(container, "a").label == "a+decorated")
    #expect(try await kind.resolve(container, "b").label == "b+decorated")
  }

  @Test func anAsynchronousKeysDecoratorMayAwait() async throws {
    let container = Container()
    container.register(\.fxAsync) { _ in Token("made") }
    container.decorate(\.fxAsync) { (r: Resolver, token: Token) async throws -> Token in
      await Task.yield()
      return Token(token.label + (try await r.resolve(\.fxgAsyncSuffix)))
    }
    #expect(try await container.resolve(\.fxAsync).label == "made+decorated")
  }

  @Test func aMainActorKeysDecoratorRunsOnTheMainActorFromAnywhere() async throws {
    let container = Container()
    container.register(\.fxMain) { _ in Token("made") }
    container.decorate(\.fxMain) { _, token in
      #expect(MainQueueProbe.isOnMainQueue, "a main-actor key's decorator runs on the main actor")
      return Token(token.label + "+decorated")
    }
    #expect(try await container.resolve(\.fxMain).label == "made+decorated")
  }

  // MARK: Validation of an argument key given no sample

  @Test(arguments: ArgumentKindUnderTest.all)
  func validationListsAnArgumentKeyWithoutASampleByName(kind: ArgumentKindUnderTest) async throws {
    let container = Container()
    let made = Counter()
    kind.register(container, .unique, made, nil)
    let report = await container.validate()
    #expect(report.needsSampleArgument.map(\.name) == [kind.keyName])
    #expect(made.count == 0, "not run with an invented argument")
  }
}

extension Dependencies {
  var fxgPluginsTwice: Key<[[Token]]> { Key { r in [try r[\.fxPlugins], try r[\.fxPlugins]] } }
  var fxgAsyncPluginsTwice: AsyncKey<[[Token]]> {
    AsyncKey { r in [try await r.resolve(\.fxAsyncPlugins), try await r.resolve(\.fxAsyncPlugins)] }
  }
  var fxgMainPluginsTwice: MainActorKey<[[Token]]> {
    MainActorKey { r in [try r[\.fxMainPlugins], try r[\.fxMainPlugins]] }
  }
}

extension FeatureMatrixCellTests {
  // MARK: Multibinding contributions in the scopes that keep an instance

  /// Resolves `kind`'s multibinding twice within one resolution, from a factory of its kind.
  static func resolveTwice(_ kind: MultibindingKindUnderTest, in container: Container) async throws -> [[Token]] {
    switch kind.name {
    case MultibindingKindUnderTest.async.name: try await container.resolve(\.fxgAsyncPluginsTwice)
    case MultibindingKindUnderTest.mainActor.name: try await container.resolve(\.fxgMainPluginsTwice)
    default: try container[\.fxgPluginsTwice]
    }
  }

  @Test(arguments: MultibindingKindUnderTest.all)
  func aCachedContributionIsKeptUntilResetCached(kind: MultibindingKindUnderTest) async throws {
    let container = Container()
    kind.contribute(container, .cached, "cached")
    let first = try #require(try await kind.resolve(container).first)
    #expect(try await kind.resolve(container).first === first)
    container.resetCached()
    #expect(try await kind.resolve(container).first !== first)
  }

  @Test(arguments: MultibindingKindUnderTest.all)
  func aWeakContributionIsKeptWhileHeld(kind: MultibindingKindUnderTest) async throws {
    let container = Container()
    kind.contribute(container, .weak, "weak")
    let held = try #require(try await kind.resolve(container).first)
    #expect(try await kind.resolve(container).first === held)
    withExtendedLifetime(held) {}
  }

  @Test(arguments: MultibindingKindUnderTest.all)
  func aGraphContributionIsSharedWithinOneResolution(kind: MultibindingKindUnderTest) async throws {
    let container = Container()
    kind.contribute(container, .graph, "graph")
    let once = try await Self.resolveTwice(kind, in: container)
    #expect(once.map { $0.map(\.label) } == [["graph"], ["graph"]])
    #expect(once[0][0] === once[1][0], "one instance within one resolution")
    #expect(try await Self.resolveTwice(kind, in: container)[0][0] !== once[0][0], "another in the next")
  }

  @Test(arguments: MultibindingKindUnderTest.all)
  func aCachedContributionIsDisposed(kind: MultibindingKindUnderTest) async throws {
    let container = Container()
    let closed = Collected<String>()
    kind.contributeDisposing(container, .cached, "cached", { closed.append($0.label) })
    _ = try await kind.resolve(container)
    try await container.dispose()
    #expect(closed.all == ["cached"])
  }
}
