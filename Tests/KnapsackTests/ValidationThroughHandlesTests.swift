import Foundation
import Knapsack
import Testing

// validate() through handles and property wrappers made by main-actor and asynchronous factories,
// observers across a hop to the main actor, unhashable arguments of every kind, and registrations
// with side effects of every kind.

struct KindPair: Hashable, Sendable {
  let left: Int
  let right: Int
}

extension Dependencies {
  /// A main-actor view model that keeps a lazy handle to a main-actor argument key.
  var kindMainLazyArgHolder: MainActorKey<Lazy<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.lazy(\.kindMainArgNeeding, argument: 9) }
  }
  /// An asynchronous key that keeps a lazy handle to an asynchronous argument key.
  var kindAsyncLazyArgHolder: AsyncKey<Lazy<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.lazy(\.kindAsyncArgNeeding, argument: 10) }
  }
  /// A main-actor view model that keeps a provider of a main-actor argument key.
  var kindMainProviderHolder: MainActorKey<Provider<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.provider(\.kindMainArgNeeding) }
  }
  /// An asynchronous key that keeps a provider of an asynchronous argument key.
  var kindAsyncProviderHolder: AsyncKey<Provider<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.provider(\.kindAsyncArgNeeding) }
  }
  /// An asynchronous key whose factory awaits keys of the other kinds.
  var kindFanOut: AsyncKey<[Token]> {
    AsyncKey { r in
      [
        try await r.resolve(\.kindMain), try await r.resolve(\.kindMainArg, argument: 1),
        try await r.resolve(\.kindAsyncArg, argument: 2), try r[\.kindSync], try r.resolve(\.kindArg, argument: 3),
      ]
    }
  }
  var kindTupleMain: DependencyKey<MainActorKind, (Int, Int), Token> {
    DependencyKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.singleton)
  }
  var kindTupleAsync: DependencyKey<AsyncKind, (Int, Int), Token> {
    DependencyKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.cached)
  }
  var kindStructMain: DependencyKey<MainActorKind, KindPair, Token> {
    DependencyKey { r, pair in Token("\(pair.left) " + (try r[\.kindStorage]).label) }.scope(.singleton)
  }
  var kindSideEffectUser: MainActorKey<Token> { MainActorKey { r in Token(try await_free(r)) } }
}

/// What `kindSideEffectUser` resolves: a key registered with side effects, then the storage.
@MainActor func await_free(_ r: Resolver) throws -> String {
  let effect = try r[\.kindMain]
  return effect.label + (try r[\.kindStorage]).label
}

/// A main-actor view model whose dependency is resolved on first read, from the container it was given.
@MainActor final class KindLazyViewModel: Sendable {
  @LazyInjected var storage: Token
  init(container: Container) {
    _storage = LazyInjected(\.kindStorage, container: container)
  }
}

extension Dependencies {
  var kindLazyInjectedModel: MainActorKey<KindLazyViewModel> {
    MainActorKey { _ in KindLazyViewModel(container: Container.current) }
  }
}

@Suite struct ValidationThroughHandlesTests {
  @Test func aLazyWithAnArgumentMadeByAMainActorOrAsyncFactoryIsRunWithThatArgument() async throws {
    let report = await Container().validate(including: [\.kindMainLazyArgHolder, \.kindAsyncLazyArgHolder])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    let missing = report.problems(.requiredKeyNotProvided)
    #expect(
      Set(missing.map { $0.path.map(\.name) })
        == [
          ["\\.kindMainLazyArgHolder", "\\.kindMainArgNeeding", "\\.kindStorage"],
          ["\\.kindAsyncLazyArgHolder", "\\.kindAsyncArgNeeding", "\\.kindStorage"],
        ], "\(report)")
  }

  @Test func aProviderOfAnArgumentKeyMadeByAMainActorOrAsyncFactoryIsListedByName() async throws {
    let report = await Container().validate(including: [\.kindMainProviderHolder, \.kindAsyncProviderHolder])
    #expect(
      Set(report.needsSampleArgument.map(\.name)) == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"], "\(report)")
    let sampled = await Container().validate(
      including: [\.kindMainProviderHolder, \.kindAsyncProviderHolder],
      arguments: [\.kindMainArgNeeding: 1, \.kindAsyncArgNeeding: 2])
    #expect(sampled.needsSampleArgument.isEmpty, "\(sampled)")
    #expect(sampled.problems(.requiredKeyNotProvided).count == 2, "\(sampled)")
  }

  @Test func aLazyInjectedPropertyOfAMainActorViewModelIsChecked() async throws {
    let container = Container()
    let report = await withContainer(container) { await container.validate(including: [\.kindLazyInjectedModel]) }
    let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(missing.dependency.name == "\\.kindStorage")
    #expect(missing.dependency.location == Dependencies.declarationSite(of: \.kindStorage))
    #expect(missing.path.first?.name == "\\.kindLazyInjectedModel", "\(missing)")
  }

  @Test func anUnhashableArgumentOfASharedMainActorOrAsyncKeyIsAMismatch() async throws {
    let container = Container()
    let main = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.kindTupleMain, argument: (1, 2))
    }
    let async = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.kindTupleAsync, argument: (1, 2))
    }
    #expect(main?.kind == .factoryMismatch)
    #expect(async?.kind == .factoryMismatch)
    #expect(main?.description.contains("not Hashable") == true, "\(String(describing: main))")
    let report = await container.validate(arguments: [\.kindTupleMain: (1, 2), \.kindTupleAsync: (3, 4)])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == ["\\.kindTupleMain", "\\.kindTupleAsync"],
      "\(report)")
    // Unique, the same keys take a tuple.
    container.register(\.kindTupleMain, scope: .unique) { _, pair in Token("\(pair.0)") }
    #expect(try await container.resolve(\.kindTupleMain, argument: (5, 6)).label == "5")
  }

  @Test func aHashableStructSampleRunsASharedMainActorArgumentKey() async throws {
    let report = await Container().validate(arguments: [\.kindStructMain: KindPair(left: 1, right: 2)])
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [
        ["\\.kindStructMain", "\\.kindStorage"]
      ],
      "\(report)")
    #expect(report.problems.count == 1, "\(report)")
  }

  @Test func registrationsWithSideEffectsOfEveryKindAreSkippedByName() async throws {
    let container = Container()
    let ran = Counter()
    container.register(\.kindMain, hasSideEffects: true) { _ in
      ran.increment()
      return Token("main")
    }
    container.register(\.kindAsync, hasSideEffects: true) { _ in
      ran.increment()
      return Token("async")
    }
    container.register(\.kindMainArg, hasSideEffects: true) { _, _ in
      ran.increment()
      return Token("main arg")
    }
    container.register(\.kindAsyncArg, hasSideEffects: true) { _, _ in
      ran.increment()
      return Token("async arg")
    }
    container.contribute(to: \.kindMainElements, hasSideEffects: true) { _ in
      ran.increment()
      return Token("element")
    }
    let report = await container.validate(
      including: [\.kindSideEffectUser], arguments: [\.kindMainArg: 1, \.kindAsyncArg: 2])
    #expect(ran.count == 0, "nothing with side effects ran")
    let skipped = Set(report.skipped.map(\.name))
    #expect(
      skipped.isSuperset(of: [
        "\\.kindMain", "\\.kindAsync", "\\.kindMainArg", "\\.kindAsyncArg", "\\.kindSideEffectUser",
      ]),
      "\(report)")
    #expect(skipped.contains { $0.hasPrefix("\\.kindMainElements") }, "\(report)")
    #expect(report.needsSampleArgument.isEmpty)
  }

  @Test func anObserverSeesWhatAnAsyncFactoryAwaitsOnTheMainActorOneLevelDown() async throws {
    let container = Container()
    let observer = KindEvents()
    container.observe(observer)
    _ = try await container.resolve(\.kindFanOut)
    let events = observer.events.all
    let below = events.filter { $0.dependency.name != "\\.kindFanOut" }
    #expect(
      Set(below.map(\.dependency.name)) == [
        "\\.kindMain", "\\.kindMainArg", "\\.kindAsyncArg", "\\.kindSync", "\\.kindArg",
      ],
      "\(events.map(\.dependency.name))")
    for event in below {
      #expect(event.depth == 1, "\(event.dependency.name)")
      #expect(event.requestedBy?.name == "\\.kindFanOut", "\(event.dependency.name)")
    }
    #expect(events.last?.dependency.name == "\\.kindFanOut")
    #expect(events.last?.depth == 0)
  }

  @Test func theTracerDrawsAHopToTheMainActorUnderTheFactoryThatAwaitsIt() async throws {
    let container = Container()
    let lines = Collected<String>()
    container.observe(ResolutionTracer { lines.append($0) })
    _ = try await container.resolve(\.kindFanOut)
    let text = lines.all.joined(separator: "\n")
    #expect(text.hasPrefix("\\.kindFanOut (unique) created"), "\(text)")
    for name in ["\\.kindMain", "\\.kindMainArg", "\\.kindAsyncArg", "\\.kindSync", "\\.kindArg"] {
      #expect(text.contains("\n  \(name) (unique) created"), "\(name) in \(text)")
    }
  }
}

@Suite struct CaptiveAcrossKindsTests {
  /// Registers the kind's key with `scope`, its factory keeping a unique `\.kindSync` instance.
  static func registerHolder(_ kind: KeyKindCase, _ container: Container, _ scope: Scope) {
    switch kind.name {
    case "sync":
      container.register(\.kindSyncPairHolder, scope: scope) { r in
        FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    case "async":
      container.register(\.kindAsyncPairHolder, scope: scope) { r in
        await Task.yield()
        return FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    case "main-actor":
      container.register(\.kindMainPairHolder, scope: scope) { r in
        FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    case "argument":
      container.register(\.kindArgPairHolder, scope: scope) { r, _ in
        FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    case "async argument":
      container.register(\.kindAsyncArgPairHolder, scope: scope) { r, _ in
        FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    default:
      container.register(\.kindMainArgPairHolder, scope: scope) { r, _ in
        FxPair(first: try r[\.kindSync], second: Token("own"))
      }
    }
  }

  static let holderNames = [
    "sync": "\\.kindSyncPairHolder", "async": "\\.kindAsyncPairHolder", "main-actor": "\\.kindMainPairHolder",
    "argument": "\\.kindArgPairHolder", "async argument": "\\.kindAsyncArgPairHolder",
    "main-actor argument": "\\.kindMainArgPairHolder",
  ]

  @Test(arguments: KeyKindCase.all, [Scope.singleton, .cached])
  func aSharedHolderOfEveryKindKeepingAUniqueInstanceIsCaptive(kind: KeyKindCase, scope: Scope) async throws {
    let container = Container()
    container.register(\.kindSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, container, scope)
    let report = await container.validate(
      arguments: [\.kindArgPairHolder: 1, \.kindAsyncArgPairHolder: 1, \.kindMainArgPairHolder: 1])
    let holder = try #require(Self.holderNames[kind.name])
    let captives = report.problems(.captiveDependency)
    #expect(captives.map { $0.path.map(\.name) } == [[holder, "\\.kindSync"]], "\(report)")
    #expect(captives.first?.message.contains("(\(scope))") == true, "\(report)")
    // A unique holder keeps nothing beyond one use.
    let fine = Container()
    fine.register(\.kindSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, fine, .unique)
    let clean = await fine.validate(arguments: [
      \.kindArgPairHolder: 1, \.kindAsyncArgPairHolder: 1, \.kindMainArgPairHolder: 1,
    ])
    #expect(clean.isValid, "\(clean)")
  }
}

extension CaptiveAcrossKindsTests {
  /// A weak-scoped key whose value is a struct is made anew each time, like a unique one ("Only
  /// class instances can be held weakly: other values behave like unique"): nothing keeps the
  /// struct, so nothing it holds is captive.
  @Test(arguments: KeyKindCase.all)
  func aWeakHolderOfAStructValueKeepsNothingAndIsNotCaptive(kind: KeyKindCase) async throws {
    let container = Container()
    container.register(\.kindSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, container, .weak)
    let report = await container.validate(
      arguments: [\.kindArgPairHolder: 1, \.kindAsyncArgPairHolder: 1, \.kindMainArgPairHolder: 1])
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
    #expect(report.isValid, "\(report)")
    // The engine agrees: the weak struct is made again on every resolution.
    let first = try await Self.resolveHolder(kind, container)
    let second = try await Self.resolveHolder(kind, container)
    #expect(first.first !== second.first)
    #expect(first.second !== second.second)
  }

  /// A weak-scoped holder that is a class keeps what it holds while something holds it: that is
  /// still reported.
  @Test func aWeakHolderOfAClassKeepingAUniqueInstanceIsStillCaptive() async throws {
    let container = Container()
    container.register(\.kindSync, scope: .unique) { Token("unique") }
    container.register(\.kindWeakBoxHolder, scope: .weak) { r in
      KindBoxedPair(FxPair(first: try r[\.kindSync], second: Token("own")))
    }
    let report = await container.validate()
    #expect(
      report.problems(.captiveDependency).map { $0.path.map(\.name) } == [["\\.kindWeakBoxHolder", "\\.kindSync"]],
      "\(report)")
  }

  static func resolveHolder(_ kind: KeyKindCase, _ container: Container) async throws -> FxPair {
    switch kind.name {
    case "sync": try container[\.kindSyncPairHolder]
    case "async": try await container.resolve(\.kindAsyncPairHolder)
    case "main-actor": try await container.resolve(\.kindMainPairHolder)
    case "argument": try container.resolve(\.kindArgPairHolder, argument: 1)
    case "async argument": try await container.resolve(\.kindAsyncArgPairHolder, argument: 1)
    default: try await container.resolve(\.kindMainArgPairHolder, argument: 1)
    }
  }
}

final class KindBoxedPair: Sendable {
  let pair: FxPair
  init(_ pair: FxPair) { self.pair = pair }
}

extension Dependencies {
  var kindWeakBoxHolder: Key<KindBoxedPair> { Key { KindBoxedPair(FxPair(first: Token("a"), second: Token("b"))) } }
  var kindSyncPairHolder: Key<FxPair> { Key { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var kindAsyncPairHolder: AsyncKey<FxPair> { AsyncKey { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var kindMainPairHolder: MainActorKey<FxPair> { MainActorKey { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var kindArgPairHolder: ArgumentKey<Int, FxPair> {
    ArgumentKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
  var kindAsyncArgPairHolder: DependencyKey<AsyncKind, Int, FxPair> {
    DependencyKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
  var kindMainArgPairHolder: DependencyKey<MainActorKind, Int, FxPair> {
    DependencyKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
}

extension Dependencies {
  var kindRootA: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.kindAsync) } }
  var kindRootB: MainActorKey<Token> { MainActorKey { r in try r[\.kindMain] } }
  var kindRootC: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.kindMain) } }
  var kindRootD: DependencyKey<AsyncKind, Int, Token> { DependencyKey { r, _ in try await r.resolve(\.kindAsync) } }
  var kindRootE: DependencyKey<MainActorKind, Int, Token> { DependencyKey { r, _ in try r[\.kindMain] } }
}

@Suite struct ValidationDryRunTests {
  @Test func aSharedInstanceOfEveryKindIsMadeOnceInADryRunReachedFromManyRoots() async throws {
    let container = Container()
    let made = Counter()
    KeyKindCase.async.register(container, .singleton, made, "async", nil)
    KeyKindCase.main.register(container, .cached, made, "main", nil)
    let report = await container.validate(
      including: [\.kindRootA, \.kindRootB, \.kindRootC, \.kindRootD, \.kindRootE],
      arguments: [\.kindRootD: 1, \.kindRootE: 2])
    #expect(report.isValid, "\(report)")
    #expect(made.count == 2, "each shared instance made once in the run, as in the app")
  }

  @Test func keysOfEveryKindDecoratedButNotRegisteredAreValidatedFromTheirDefaults() async throws {
    let container = Container()
    container.decorate(\.kindViewModel) { _, t in t }
    container.decorate(\.kindAsyncNeeding) { _, t in t }
    container.decorate(\.kindMainArgNeeding) { _, t in t }
    container.decorate(\.kindAsyncArgNeeding) { _, t in t }
    let unsampled = await container.validate()
    #expect(
      Set(unsampled.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.kindViewModel", "\\.kindAsyncNeeding"], "\(unsampled)")
    #expect(
      Set(unsampled.needsSampleArgument.map(\.name)) == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"],
      "\(unsampled)")
    let sampled = await container.validate(arguments: [\.kindMainArgNeeding: 1, \.kindAsyncArgNeeding: 2])
    #expect(sampled.problems(.requiredKeyNotProvided).count == 4, "\(sampled)")
    #expect(sampled.needsSampleArgument.isEmpty)
  }

  @Test func aPlainPropertyInIncludingOrArgumentsIsNotAKey() async throws {
    let report = await Container().validate(including: [\.kindPlain], arguments: [\.kindPlainToo: 1])
    #expect(report.problems(.notAKey).count == 2, "\(report)")
  }
}

extension Dependencies {
  var kindPlain: Int { 1 }
  var kindPlainToo: String { "" }
}

@Suite struct ChildScopeCaptiveTests {
  @Test func aParentsSharedInstanceOfEveryKindNeedingAChildOnlyKeyIsReportedFromTheChild() async throws {
    let parent = Container()
    parent.register(\.kindViewModel, scope: .singleton) { r in Token("vm " + (try r[\.kindStorage]).label) }
    parent.register(\.kindAsyncNeeding, scope: .cached) { r in
      await Task.yield()
      return try r[\.kindStorage]
    }
    parent.register(\.kindMainArgNeeding, scope: .singleton) { r, n in Token("\(n) " + (try r[\.kindStorage]).label) }
    parent.register(\.kindAsyncArgNeeding, scope: .weak) { r, n in Token("\(n) " + (try r[\.kindStorage]).label) }
    let child = parent.makeChild()
    child.register(\.kindStorage) { Token("session") }
    let report = await child.validate(arguments: [\.kindMainArgNeeding: 1, \.kindAsyncArgNeeding: 2])
    let captives = report.problems(.captiveDependency)
    #expect(
      Set(captives.map { $0.path.map(\.name) })
        == [
          ["\\.kindViewModel", "\\.kindStorage"], ["\\.kindAsyncNeeding", "\\.kindStorage"],
          ["\\.kindMainArgNeeding", "\\.kindStorage"], ["\\.kindAsyncArgNeeding", "\\.kindStorage"],
        ], "\(report)")
    #expect(captives.allSatisfy { $0.message.contains("only this child scope provides") }, "\(report)")
    // Resolving says the same, for every kind.
    let errors: [ResolutionError?] = [
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.kindViewModel) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.kindAsyncNeeding) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.kindMainArgNeeding, argument: 1) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.kindAsyncArgNeeding, argument: 2) },
    ]
    for error in errors {
      #expect(error?.kind == .requiredKeyNotProvided)
      #expect(
        error?.description.contains("is registered only in a child container below it") == true,
        "\(String(describing: error))")
    }
  }
}

extension Dependencies {
  /// Async singletons that only read from what they resolve, on the main actor or asynchronously.
  var kindReadsMain: AsyncKey<String> { AsyncKey { r in try await r.resolve(\.kindMain).label }.scope(.singleton) }
  var kindReadsMainArg: AsyncKey<String> {
    AsyncKey { r in try await r.resolve(\.kindMainArg, argument: 1).label }.scope(.singleton)
  }
  var kindReadsAsyncArg: MainActorKey<String> {
    MainActorKey { r in try r.resolve(\.kindArg, argument: 1).label }.scope(.singleton)
  }
  /// The same, keeping what they resolve.
  var kindKeepsMain: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.kindMain), second: Token("own")) }.scope(.singleton)
  }
  var kindKeepsMainArg: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.kindMainArg, argument: 1), second: Token("own")) }.scope(
      .cached)
  }
}

@Suite struct ReadOnlyCaptiveTests {
  @Test func aSingletonThatOnlyReadsFromAUniqueInstanceMadeOnTheMainActorIsNotCaptive() async throws {
    let report = await Container().validate(including: [\.kindReadsMain, \.kindReadsMainArg, \.kindReadsAsyncArg])
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  @Test func aSharedAsyncKeyThatKeepsAUniqueInstanceMadeOnTheMainActorIsCaptive() async throws {
    let report = await Container().validate(including: [\.kindKeepsMain, \.kindKeepsMainArg])
    #expect(
      Set(report.problems(.captiveDependency).map { $0.path.map(\.name) })
        == [["\\.kindKeepsMain", "\\.kindMain"], ["\\.kindKeepsMainArg", "\\.kindMainArg"]], "\(report)")
  }
}

protocol KindHolder: Sendable {
  var pair: FxPair { get }
}
struct KindStructHolder: KindHolder {
  let pair: FxPair
}
final class KindClassHolder: KindHolder {
  let pair: FxPair
  init(pair: FxPair) { self.pair = pair }
}

extension Dependencies {
  var kindExistentialHolder: MainActorKey<any KindHolder> {
    MainActorKey { _ in KindStructHolder(pair: FxPair(first: Token("a"), second: Token("b"))) }
  }
}

extension CaptiveAcrossKindsTests {
  @Test func aWeakExistentialHolderIsCaptiveOnlyIfItsInstanceIsAClass() async throws {
    let structs = Container()
    structs.register(\.kindSync, scope: .unique) { Token("unique") }
    structs.register(\.kindExistentialHolder, scope: .weak) { r in
      KindStructHolder(pair: FxPair(first: try r[\.kindSync], second: Token("own")))
    }
    let fine = await structs.validate()
    #expect(fine.problems(.captiveDependency).isEmpty, "\(fine)")
    let first = try await structs.resolve(\.kindExistentialHolder)
    #expect(try await structs.resolve(\.kindExistentialHolder).pair.first !== first.pair.first, "made anew each time")

    let classes = Container()
    classes.register(\.kindSync, scope: .unique) { Token("unique") }
    classes.register(\.kindExistentialHolder, scope: .weak) { r in
      KindClassHolder(pair: FxPair(first: try r[\.kindSync], second: Token("own")))
    }
    let captive = await classes.validate()
    #expect(
      captive.problems(.captiveDependency).map { $0.path.map(\.name) } == [
        ["\\.kindExistentialHolder", "\\.kindSync"]
      ],
      "\(captive)")
    let held = try await classes.resolve(\.kindExistentialHolder)
    #expect(try await classes.resolve(\.kindExistentialHolder).pair.first === held.pair.first, "shared while held")
  }
}

@Suite struct ValidationHierarchyTests {
  @Test func aChildsValidationRunsItsAncestorsRegistrationsOfEveryKind() async throws {
    let grandparent = Container()
    grandparent.register(\.kindViewModel) { r in try r[\.kindStorage] }
    let parent = grandparent.makeChild()
    parent.register(\.kindAsyncArgNeeding) { r, _ in try r[\.kindStorage] }
    parent.decorate(\.kindMainArgNeeding) { _, t in t }
    let child = parent.makeChild()
    child.register(\.kindAsyncNeeding) { r in try r[\.kindStorage] }
    let report = await child.validate(arguments: [\.kindAsyncArgNeeding: 1, \.kindMainArgNeeding: 2])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.kindViewModel", "\\.kindAsyncArgNeeding", "\\.kindMainArgNeeding", "\\.kindAsyncNeeding"], "\(report)")
    // The parent's validation does not see its child's registration.
    let parents = await parent.validate(arguments: [\.kindAsyncArgNeeding: 1, \.kindMainArgNeeding: 2])
    #expect(!parents.problems(.requiredKeyNotProvided).contains { $0.path.first?.name == "\\.kindAsyncNeeding" })
    // Providing the storage in the child fixes the child's own, not the ancestors' shared ones:
    // those are unique here, so the child makes them with its registration.
    child.register(\.kindStorage) { Token("child") }
    let fixed = await child.validate(arguments: [\.kindAsyncArgNeeding: 1, \.kindMainArgNeeding: 2])
    #expect(fixed.isValid, "\(fixed)")
  }

  @Test func aDisposedContainersValidationReportsEveryKindDisposed() async throws {
    let container = Container()
    for kind in KeyKindCase.all { kind.register(container, .singleton, Counter(), kind.name, nil) }
    try await container.dispose()
    let report = await container.validate(arguments: [\.kindArg: 1, \.kindAsyncArg: 1, \.kindMainArg: 1])
    #expect(
      Set(report.problems(.containerDisposed).map(\.dependency.name)) == Set(KeyKindCase.all.map(\.keyName)),
      "\(report)")
  }
}

@MainActor final class KindInjectedModel: Sendable {
  let token: Token
  let argument: Token
  init() {
    @Injected(\.kindSync) var token: Token
    @Injected(\.kindMainArg, argument: 12) var argument: Token
    self.token = token
    self.argument = argument
  }
}

extension Dependencies {
  var kindInjectedModel: MainActorKey<KindInjectedModel> { MainActorKey { _ in KindInjectedModel() } }
}

@Suite struct InjectedInValidationTests {
  @Test func anInjectedPropertyOfAMainActorModelResolvesFromTheValidatedCopy() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.kindSync, scope: .singleton) {
      made.increment()
      return Token("app")
    }
    container.register(\.kindMainArg) { _, n in Token("main \(n)") }
    let graph = await withContainer(container) { await container.graph(including: [\.kindInjectedModel]) }
    #expect(graph.report.isValid, "\(graph.report)")
    #expect(graph.edges.contains { $0.from == "\\.kindInjectedModel" && $0.to == "\\.kindSync" }, "\(graph.edges)")
    #expect(graph.edges.contains { $0.from == "\\.kindInjectedModel" && $0.to == "\\.kindMainArg" }, "\(graph.edges)")
    #expect(made.count == 1, "made in the copy")
    _ = try container[\.kindSync]
    #expect(made.count == 2, "the copy kept nothing: the app makes its own")
  }
}

extension Dependencies {
  /// A key that keeps a lazy handle to a synchronous argument key.
  var kindLazyArgHolder: Key<Lazy<ArgumentKey<Int, Token>>> { Key { r in r.lazy(\.kindArg, argument: 8) } }
  var kindLazyMainArgHolder: MainActorKey<Lazy<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.lazy(\.kindMainArg, argument: 9) }
  }
  var kindLazyAsyncArgHolder: AsyncKey<Lazy<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.lazy(\.kindAsyncArg, argument: 10) }
  }
}

/// "An argument key runs with the sample argument you pass for it, or else with the argument of a
/// `Lazy` or `@LazyInjected` a factory made of it during the run; without either, validation ...
/// lists it in needsSampleArgument" (Diagnostics). A registered argument key is a root of its own,
/// run (without a sample) before the handles: it must still run with the handle's argument.
@Suite struct ArgumentKeyBehindALazyTests {
  /// Registers `\.kindArg` and `\.kindMainArg` with factories that note their argument in `seen` and
  /// need the required `\.kindStorage`.
  static func registerArgumentKeysNeedingStorage(in container: Container, noting seen: Collected<String>) {
    container.register(\.kindArg) { r, n in
      seen.append("sync \(n)")
      return Token("\(n) " + (try r[\.kindStorage]).label)
    }
    container.register(\.kindMainArg) { r, n in
      seen.append("main \(n)")
      return Token("\(n) " + (try r[\.kindStorage]).label)
    }
  }

  @Test func aRegisteredArgumentKeyOfEveryKindRunsWithTheArgumentOfALazyMadeOfIt() async throws {
    let container = Container()
    let seen = Collected<String>()
    Self.registerArgumentKeysNeedingStorage(in: container, noting: seen)
    container.register(\.kindAsyncArg) { r, n in
      seen.append("async \(n)")
      return Token("\(n) " + (try r[\.kindStorage]).label)
    }
    let report = await container.validate(
      including: [\.kindLazyArgHolder, \.kindLazyMainArgHolder, \.kindLazyAsyncArgHolder])
    #expect(report.needsSampleArgument.isEmpty, "run with the lazy's argument, so not listed: \(report)")
    #expect(Set(seen.all) == ["sync 8", "main 9", "async 10"])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
        == [
          ["\\.kindLazyArgHolder", "\\.kindArg", "\\.kindStorage"],
          ["\\.kindLazyMainArgHolder", "\\.kindMainArg", "\\.kindStorage"],
          ["\\.kindLazyAsyncArgHolder", "\\.kindAsyncArg", "\\.kindStorage"],
        ], "\(report)")
  }

  @Test func aSampleTheCallerGivesStillComesFirstForARegisteredKey() async throws {
    let container = Container()
    let seen = Collected<String>()
    container.register(\.kindMainArg) { _, n in
      seen.append("main \(n)")
      return Token("\(n)")
    }
    let report = await container.validate(including: [\.kindLazyMainArgHolder], arguments: [\.kindMainArg: 1])
    #expect(report.isValid && report.needsSampleArgument.isEmpty, "\(report)")
    #expect(seen.all == ["main 1"])
  }

  @Test func aRegisteredArgumentKeyReachedOnlyByAProviderIsStillListed() async throws {
    let container = Container()
    container.register(\.kindMainArgNeeding) { _, n in Token("\(n)") }
    container.register(\.kindAsyncArgNeeding) { _, n in Token("\(n)") }
    let report = await container.validate(including: [\.kindMainProviderHolder, \.kindAsyncProviderHolder])
    #expect(
      Set(report.needsSampleArgument.map(\.name)) == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"], "\(report)")
  }
}

/// Made by a factory in a dry run: its property's argument key is resolved on first read.
struct KindLazyArgumentUser: Sendable {
  @LazyInjected(\.kindArg, argument: 4) var token: Token
}

@MainActor final class KindLazyMainArgumentUser {
  @LazyInjected(\.kindMainArg, argument: 5) var token: Token
}

extension Dependencies {
  var kindLazyInjectedArgUser: Key<KindLazyArgumentUser> { Key { KindLazyArgumentUser() } }
  var kindLazyInjectedMainArgUser: MainActorKey<KindLazyMainArgumentUser> {
    MainActorKey { _ in KindLazyMainArgumentUser() }
  }
}

extension ArgumentKeyBehindALazyTests {
  @Test func aRegisteredArgumentKeyRunsWithTheArgumentOfALazyInjectedPropertyToo() async throws {
    let container = Container()
    let seen = Collected<String>()
    Self.registerArgumentKeysNeedingStorage(in: container, noting: seen)
    let report = await withContainer(container) {
      await container.validate(including: [\.kindLazyInjectedArgUser, \.kindLazyInjectedMainArgUser])
    }
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(Set(seen.all) == ["sync 4", "main 5"])
    #expect(report.problems(.requiredKeyNotProvided).count == 2, "\(report)")
  }
}

@Suite struct ConcurrentValidationTests {
  @Test func validationsOfOneContainerRunningAtOnceReportTheSameAndTouchNoInstance() async throws {
    let container = Container()
    let made = Counter()
    for kind in KeyKindCase.all { kind.register(container, .singleton, made, kind.name, nil) }
    container.register(\.kindViewModel, scope: .singleton) { r in Token(try r[\.kindStorage].label) }
    let app = try await container.resolve(\.kindMain)
    let reports = await withTaskGroup(of: ValidationReport.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await container.validate(
            including: [\.kindScreen], arguments: [\.kindArg: 1, \.kindAsyncArg: 2, \.kindMainArg: 3])
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(Set(reports).count == 1, "\(reports.map(\.description))")
    #expect(reports.first?.problems(.requiredKeyNotProvided).count == 1)
    #expect(try await container.resolve(\.kindMain) === app, "the app's instance is untouched")
  }
}

extension Dependencies {
  var capturedMade: Key<Token> { .required() }
  var capturedAsyncMade: AsyncKey<Token> { .required() }
  var capturedUser: Key<Int> { .required() }
  var capturedAsyncUser: AsyncKey<Int> { .required() }
}

/// A `Provider` or `Lazy` of the app's container that a factory captured (made outside any
/// override scope, before `validate()`) resolves in the dry run's copies, as a captured
/// container does: the run makes none of the app's instances, and calls no factory registered
/// with side effects.
@Suite struct ValidationCapturedHandleTests {
  @Test func aCapturedProviderDoesNotRunASideEffectFactoryOrMakeTheAppsSingleton() async throws {
    for hasSideEffects in [true, false] {
      let container = Container()
      let made = Counter()
      container.register(\.capturedMade, scope: .singleton, hasSideEffects: hasSideEffects) {
        made.increment()
        return Token("app")
      }
      let provider = container.provider(\.capturedMade)
      container.register(\.capturedUser) {
        _ = try provider.get()
        return 1
      }
      let report = await container.validate()
      #expect(report.isValid, "\(report)")
      #expect(report.skipped.map(\.name).contains("\\.capturedMade") == hasSideEffects, "\(report)")
      // The run made its own instance, if any: the app's is made by the app's first resolution.
      #expect(made.count == (hasSideEffects ? 0 : 1))
      _ = try provider.get()
      #expect(made.count == (hasSideEffects ? 1 : 2))
      _ = try container[\.capturedMade]
      #expect(made.count == (hasSideEffects ? 1 : 2), "one singleton for the app")
    }
  }

  @Test func aCapturedLazyReadInTheRunKeepsNothing() async throws {
    for hasSideEffects in [true, false] {
      let container = Container()
      let made = Counter()
      container.register(\.capturedMade, scope: .unique, hasSideEffects: hasSideEffects) {
        Token("app \(made.increment())")
      }
      let lazy = container.lazy(\.capturedMade)
      container.register(\.capturedUser) {
        _ = try lazy.value
        return 1
      }
      let report = await container.validate()
      #expect(report.isValid, "\(report)")
      #expect(made.count == (hasSideEffects ? 0 : 1))
      // The app's first read makes the app's value, not the dry run's.
      let value = try lazy.value
      #expect(value.label == (hasSideEffects ? "app 1" : "app 2"))
      #expect(try lazy.value === value)
    }
  }

  @Test func aCapturedAsyncLazyReadInTheRunKeepsNothing() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.capturedAsyncMade, hasSideEffects: true) { Token("app \(made.increment())") }
    let lazy = container.lazy(\.capturedAsyncMade)
    container.register(\.capturedAsyncUser) {
      _ = try await lazy.value
      return 1
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    #expect(report.skipped.map(\.name) == ["\\.capturedAsyncMade", "\\.capturedAsyncUser"], "\(report)")
    #expect(made.count == 0)
    let value = try await lazy.value
    #expect(value.label == "app 1")
    #expect(try await lazy.value === value)
  }

  @Test func aLazyTheAppReadBeforeTheRunKeepsTheAppsValue() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.capturedMade) { Token("app \(made.increment())") }
    let lazy = container.lazy(\.capturedMade)
    let value = try lazy.value
    container.register(\.capturedUser) {
      _ = try lazy.value
      return 1
    }
    let report = await container.validate()
    #expect(report.isValid, "\(report)")
    // The run makes one as a root of its own; the factory that reads the handle gets the value
    // the handle keeps, and makes none.
    #expect(made.count == 2, "the run reads the value the handle keeps")
    #expect(try lazy.value === value)
  }
}
