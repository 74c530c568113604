import Foundation
import Knapsack
import Testing

// validate() through handles and property wrappers made by main-actor and asynchronous factories,
// observers across a hop to the main actor, unhashable arguments of every kind, and registrations
// with side effects of every kind.

struct HuntAPair: Hashable, Sendable {
  let left: Int
  let right: Int
}

extension Dependencies {
  /// A main-actor view model that keeps a lazy handle to a main-actor argument key.
  var haMainLazyArgHolder: MainActorKey<Lazy<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.lazy(\.haMainArgNeeding, argument: 9) }
  }
  /// An asynchronous key that keeps a lazy handle to an asynchronous argument key.
  var haAsyncLazyArgHolder: AsyncKey<Lazy<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.lazy(\.haAsyncArgNeeding, argument: 10) }
  }
  /// A main-actor view model that keeps a provider of a main-actor argument key.
  var haMainProviderHolder: MainActorKey<Provider<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.provider(\.haMainArgNeeding) }
  }
  /// An asynchronous key that keeps a provider of an asynchronous argument key.
  var haAsyncProviderHolder: AsyncKey<Provider<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.provider(\.haAsyncArgNeeding) }
  }
  /// An asynchronous key whose factory awaits keys of the other kinds.
  var haFanOut: AsyncKey<[Token]> {
    AsyncKey { r in
      [
        try await r.resolve(\.haMain), try await r.resolve(\.haMainArg, argument: 1),
        try await r.resolve(\.haAsyncArg, argument: 2), try r[\.haSync], try r.resolve(\.haArg, argument: 3),
      ]
    }
  }
  var haTupleMain: DependencyKey<MainActorKind, (Int, Int), Token> {
    DependencyKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.singleton)
  }
  var haTupleAsync: DependencyKey<AsyncKind, (Int, Int), Token> {
    DependencyKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.cached)
  }
  var haStructMain: DependencyKey<MainActorKind, HuntAPair, Token> {
    DependencyKey { r, pair in Token("\(pair.left) " + (try r[\.haStorage]).label) }.scope(.singleton)
  }
  var haSideEffectUser: MainActorKey<Token> { MainActorKey { r in Token(try await_free(r)) } }
}

/// What `haSideEffectUser` resolves: a key registered with side effects, then the storage.
@MainActor func await_free(_ r: Resolver) throws -> String {
  let effect = try r[\.haMain]
  return effect.label + (try r[\.haStorage]).label
}

/// A main-actor view model whose dependency is resolved on first read, from the container it was given.
@MainActor final class HuntALazyViewModel: Sendable {
  @LazyInjected var storage: Token
  init(container: Container) {
    _storage = LazyInjected(\.haStorage, container: container)
  }
}

extension Dependencies {
  var haLazyInjectedModel: MainActorKey<HuntALazyViewModel> {
    MainActorKey { _ in HuntALazyViewModel(container: Container.current) }
  }
}

@Suite struct HuntAValidationHandleTests {
  @Test func aLazyWithAnArgumentMadeByAMainActorOrAsyncFactoryIsRunWithThatArgument() async throws {
    let report = await Container().validate(including: [\.haMainLazyArgHolder, \.haAsyncLazyArgHolder])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    let missing = report.problems(.requiredKeyNotProvided)
    #expect(
      Set(missing.map { $0.path.map(\.name) })
        == [
          ["\\.haMainLazyArgHolder", "\\.haMainArgNeeding", "\\.haStorage"],
          ["\\.haAsyncLazyArgHolder", "\\.haAsyncArgNeeding", "\\.haStorage"],
        ], "\(report)")
  }

  @Test func aProviderOfAnArgumentKeyMadeByAMainActorOrAsyncFactoryIsListedByName() async throws {
    let report = await Container().validate(including: [\.haMainProviderHolder, \.haAsyncProviderHolder])
    #expect(
      Set(report.needsSampleArgument.map(\.name)) == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"], "\(report)")
    let sampled = await Container().validate(
      including: [\.haMainProviderHolder, \.haAsyncProviderHolder],
      arguments: [\.haMainArgNeeding: 1, \.haAsyncArgNeeding: 2])
    #expect(sampled.needsSampleArgument.isEmpty, "\(sampled)")
    #expect(sampled.problems(.requiredKeyNotProvided).count == 2, "\(sampled)")
  }

  @Test func aLazyInjectedPropertyOfAMainActorViewModelIsChecked() async throws {
    let container = Container()
    let report = await withContainer(container) { await container.validate(including: [\.haLazyInjectedModel]) }
    let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(missing.dependency.name == "\\.haStorage")
    #expect(missing.dependency.location == Dependencies.declarationSite(of: \.haStorage))
    #expect(missing.path.first?.name == "\\.haLazyInjectedModel", "\(missing)")
  }

  @Test func anUnhashableArgumentOfASharedMainActorOrAsyncKeyIsAMismatch() async throws {
    let container = Container()
    let main = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.haTupleMain, argument: (1, 2))
    }
    let async = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.haTupleAsync, argument: (1, 2))
    }
    #expect(main?.kind == .factoryMismatch)
    #expect(async?.kind == .factoryMismatch)
    #expect(main?.description.contains("not Hashable") == true, "\(String(describing: main))")
    let report = await container.validate(arguments: [\.haTupleMain: (1, 2), \.haTupleAsync: (3, 4)])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == ["\\.haTupleMain", "\\.haTupleAsync"],
      "\(report)")
    // Unique, the same keys take a tuple.
    container.register(\.haTupleMain, scope: .unique) { _, pair in Token("\(pair.0)") }
    #expect(try await container.resolve(\.haTupleMain, argument: (5, 6)).label == "5")
  }

  @Test func aHashableStructSampleRunsASharedMainActorArgumentKey() async throws {
    let report = await Container().validate(arguments: [\.haStructMain: HuntAPair(left: 1, right: 2)])
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [["\\.haStructMain", "\\.haStorage"]],
      "\(report)")
    #expect(report.problems.count == 1, "\(report)")
  }

  @Test func registrationsWithSideEffectsOfEveryKindAreSkippedByName() async throws {
    let container = Container()
    let ran = Counter()
    container.register(\.haMain, hasSideEffects: true) { _ in
      ran.increment()
      return Token("main")
    }
    container.register(\.haAsync, hasSideEffects: true) { _ in
      ran.increment()
      return Token("async")
    }
    container.register(\.haMainArg, hasSideEffects: true) { _, _ in
      ran.increment()
      return Token("main arg")
    }
    container.register(\.haAsyncArg, hasSideEffects: true) { _, _ in
      ran.increment()
      return Token("async arg")
    }
    container.contribute(to: \.haMainElements, hasSideEffects: true) { _ in
      ran.increment()
      return Token("element")
    }
    let report = await container.validate(
      including: [\.haSideEffectUser], arguments: [\.haMainArg: 1, \.haAsyncArg: 2])
    #expect(ran.count == 0, "nothing with side effects ran")
    let skipped = Set(report.skipped.map(\.name))
    #expect(
      skipped.isSuperset(of: ["\\.haMain", "\\.haAsync", "\\.haMainArg", "\\.haAsyncArg", "\\.haSideEffectUser"]),
      "\(report)")
    #expect(skipped.contains { $0.hasPrefix("\\.haMainElements") }, "\(report)")
    #expect(report.needsSampleArgument.isEmpty)
  }

  @Test func anObserverSeesWhatAnAsyncFactoryAwaitsOnTheMainActorOneLevelDown() async throws {
    let container = Container()
    let observer = HuntAEvents()
    container.observe(observer)
    _ = try await container.resolve(\.haFanOut)
    let events = observer.events.all
    let below = events.filter { $0.dependency.name != "\\.haFanOut" }
    #expect(
      Set(below.map(\.dependency.name)) == ["\\.haMain", "\\.haMainArg", "\\.haAsyncArg", "\\.haSync", "\\.haArg"],
      "\(events.map(\.dependency.name))")
    for event in below {
      #expect(event.depth == 1, "\(event.dependency.name)")
      #expect(event.requestedBy?.name == "\\.haFanOut", "\(event.dependency.name)")
    }
    #expect(events.last?.dependency.name == "\\.haFanOut")
    #expect(events.last?.depth == 0)
  }

  @Test func theTracerDrawsAHopToTheMainActorUnderTheFactoryThatAwaitsIt() async throws {
    let container = Container()
    let lines = Collected<String>()
    container.observe(ResolutionTracer { lines.append($0) })
    _ = try await container.resolve(\.haFanOut)
    let text = lines.all.joined(separator: "\n")
    #expect(text.hasPrefix("\\.haFanOut (unique) created"), "\(text)")
    for name in ["\\.haMain", "\\.haMainArg", "\\.haAsyncArg", "\\.haSync", "\\.haArg"] {
      #expect(text.contains("\n  \(name) (unique) created"), "\(name) in \(text)")
    }
  }
}

@Suite struct HuntACaptiveTests {
  /// Registers the kind's key with `scope`, its factory keeping a unique `\.haSync` instance.
  static func registerHolder(_ kind: HuntAKind, _ container: Container, _ scope: Scope) {
    switch kind.name {
    case "sync":
      container.register(\.haSyncPairHolder, scope: scope) { r in FxPair(first: try r[\.haSync], second: Token("own")) }
    case "async":
      container.register(\.haAsyncPairHolder, scope: scope) { r in
        await Task.yield()
        return FxPair(first: try r[\.haSync], second: Token("own"))
      }
    case "main-actor":
      container.register(\.haMainPairHolder, scope: scope) { r in FxPair(first: try r[\.haSync], second: Token("own")) }
    case "argument":
      container.register(\.haArgPairHolder, scope: scope) { r, _ in FxPair(first: try r[\.haSync], second: Token("own"))
      }
    case "async argument":
      container.register(\.haAsyncArgPairHolder, scope: scope) { r, _ in
        FxPair(first: try r[\.haSync], second: Token("own"))
      }
    default:
      container.register(\.haMainArgPairHolder, scope: scope) { r, _ in
        FxPair(first: try r[\.haSync], second: Token("own"))
      }
    }
  }

  static let holderNames = [
    "sync": "\\.haSyncPairHolder", "async": "\\.haAsyncPairHolder", "main-actor": "\\.haMainPairHolder",
    "argument": "\\.haArgPairHolder", "async argument": "\\.haAsyncArgPairHolder",
    "main-actor argument": "\\.haMainArgPairHolder",
  ]

  @Test(arguments: HuntAKind.all, [Scope.singleton, .cached])
  func aSharedHolderOfEveryKindKeepingAUniqueInstanceIsCaptive(kind: HuntAKind, scope: Scope) async throws {
    let container = Container()
    container.register(\.haSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, container, scope)
    let report = await container.validate(
      arguments: [\.haArgPairHolder: 1, \.haAsyncArgPairHolder: 1, \.haMainArgPairHolder: 1])
    let holder = try #require(Self.holderNames[kind.name])
    let captives = report.problems(.captiveDependency)
    #expect(captives.map { $0.path.map(\.name) } == [[holder, "\\.haSync"]], "\(report)")
    #expect(captives.first?.message.contains("(\(scope))") == true, "\(report)")
    // A unique holder keeps nothing beyond one use.
    let fine = Container()
    fine.register(\.haSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, fine, .unique)
    let clean = await fine.validate(arguments: [
      \.haArgPairHolder: 1, \.haAsyncArgPairHolder: 1, \.haMainArgPairHolder: 1,
    ])
    #expect(clean.isValid, "\(clean)")
  }
}

extension HuntACaptiveTests {
  /// A weak-scoped key whose value is a struct is made anew each time, like a unique one ("Only
  /// class instances can be held weakly: other values behave like unique"): nothing keeps the
  /// struct, so nothing it holds is captive.
  @Test(arguments: HuntAKind.all)
  func aWeakHolderOfAStructValueKeepsNothingAndIsNotCaptive(kind: HuntAKind) async throws {
    let container = Container()
    container.register(\.haSync, scope: .unique) { Token("unique") }
    Self.registerHolder(kind, container, .weak)
    let report = await container.validate(
      arguments: [\.haArgPairHolder: 1, \.haAsyncArgPairHolder: 1, \.haMainArgPairHolder: 1])
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
    container.register(\.haSync, scope: .unique) { Token("unique") }
    container.register(\.haWeakBoxHolder, scope: .weak) { r in
      HuntABoxedPair(FxPair(first: try r[\.haSync], second: Token("own")))
    }
    let report = await container.validate()
    #expect(
      report.problems(.captiveDependency).map { $0.path.map(\.name) } == [["\\.haWeakBoxHolder", "\\.haSync"]],
      "\(report)")
  }

  static func resolveHolder(_ kind: HuntAKind, _ container: Container) async throws -> FxPair {
    switch kind.name {
    case "sync": try container[\.haSyncPairHolder]
    case "async": try await container.resolve(\.haAsyncPairHolder)
    case "main-actor": try await container.resolve(\.haMainPairHolder)
    case "argument": try container.resolve(\.haArgPairHolder, argument: 1)
    case "async argument": try await container.resolve(\.haAsyncArgPairHolder, argument: 1)
    default: try await container.resolve(\.haMainArgPairHolder, argument: 1)
    }
  }
}

final class HuntABoxedPair: Sendable {
  let pair: FxPair
  init(_ pair: FxPair) { self.pair = pair }
}

extension Dependencies {
  var haWeakBoxHolder: Key<HuntABoxedPair> { Key { HuntABoxedPair(FxPair(first: Token("a"), second: Token("b"))) } }
  var haSyncPairHolder: Key<FxPair> { Key { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var haAsyncPairHolder: AsyncKey<FxPair> { AsyncKey { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var haMainPairHolder: MainActorKey<FxPair> { MainActorKey { _ in FxPair(first: Token("a"), second: Token("b")) } }
  var haArgPairHolder: ArgumentKey<Int, FxPair> {
    ArgumentKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
  var haAsyncArgPairHolder: DependencyKey<AsyncKind, Int, FxPair> {
    DependencyKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
  var haMainArgPairHolder: DependencyKey<MainActorKind, Int, FxPair> {
    DependencyKey { _, _ in FxPair(first: Token("a"), second: Token("b")) }
  }
}

extension Dependencies {
  var haRootA: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.haAsync) } }
  var haRootB: MainActorKey<Token> { MainActorKey { r in try r[\.haMain] } }
  var haRootC: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.haMain) } }
  var haRootD: DependencyKey<AsyncKind, Int, Token> { DependencyKey { r, _ in try await r.resolve(\.haAsync) } }
  var haRootE: DependencyKey<MainActorKind, Int, Token> { DependencyKey { r, _ in try r[\.haMain] } }
}

@Suite struct HuntADryRunTests {
  @Test func aSharedInstanceOfEveryKindIsMadeOnceInADryRunReachedFromManyRoots() async throws {
    let container = Container()
    let made = Counter()
    HuntAKind.async.register(container, .singleton, made, "async", nil)
    HuntAKind.main.register(container, .cached, made, "main", nil)
    let report = await container.validate(
      including: [\.haRootA, \.haRootB, \.haRootC, \.haRootD, \.haRootE], arguments: [\.haRootD: 1, \.haRootE: 2])
    #expect(report.isValid, "\(report)")
    #expect(made.count == 2, "each shared instance made once in the run, as in the app")
  }

  @Test func keysOfEveryKindDecoratedButNotRegisteredAreValidatedFromTheirDefaults() async throws {
    let container = Container()
    container.decorate(\.haViewModel) { _, t in t }
    container.decorate(\.haAsyncNeeding) { _, t in t }
    container.decorate(\.haMainArgNeeding) { _, t in t }
    container.decorate(\.haAsyncArgNeeding) { _, t in t }
    let unsampled = await container.validate()
    #expect(
      Set(unsampled.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.haViewModel", "\\.haAsyncNeeding"], "\(unsampled)")
    #expect(
      Set(unsampled.needsSampleArgument.map(\.name)) == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"], "\(unsampled)")
    let sampled = await container.validate(arguments: [\.haMainArgNeeding: 1, \.haAsyncArgNeeding: 2])
    #expect(sampled.problems(.requiredKeyNotProvided).count == 4, "\(sampled)")
    #expect(sampled.needsSampleArgument.isEmpty)
  }

  @Test func aPlainPropertyInIncludingOrArgumentsIsNotAKey() async throws {
    let report = await Container().validate(including: [\.haPlain], arguments: [\.haPlainToo: 1])
    #expect(report.problems(.notAKey).count == 2, "\(report)")
  }
}

extension Dependencies {
  var haPlain: Int { 1 }
  var haPlainToo: String { "" }
}

@Suite struct HuntAChildScopeCaptiveTests {
  @Test func aParentsSharedInstanceOfEveryKindNeedingAChildOnlyKeyIsReportedFromTheChild() async throws {
    let parent = Container()
    parent.register(\.haViewModel, scope: .singleton) { r in Token("vm " + (try r[\.haStorage]).label) }
    parent.register(\.haAsyncNeeding, scope: .cached) { r in
      await Task.yield()
      return try r[\.haStorage]
    }
    parent.register(\.haMainArgNeeding, scope: .singleton) { r, n in Token("\(n) " + (try r[\.haStorage]).label) }
    parent.register(\.haAsyncArgNeeding, scope: .weak) { r, n in Token("\(n) " + (try r[\.haStorage]).label) }
    let child = parent.makeChild()
    child.register(\.haStorage) { Token("session") }
    let report = await child.validate(arguments: [\.haMainArgNeeding: 1, \.haAsyncArgNeeding: 2])
    let captives = report.problems(.captiveDependency)
    #expect(
      Set(captives.map { $0.path.map(\.name) })
        == [
          ["\\.haViewModel", "\\.haStorage"], ["\\.haAsyncNeeding", "\\.haStorage"],
          ["\\.haMainArgNeeding", "\\.haStorage"], ["\\.haAsyncArgNeeding", "\\.haStorage"],
        ], "\(report)")
    #expect(captives.allSatisfy { $0.message.contains("only this child scope provides") }, "\(report)")
    // Resolving says the same, for every kind.
    let errors: [ResolutionError?] = [
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.haViewModel) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.haAsyncNeeding) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.haMainArgNeeding, argument: 1) },
      await #expect(throws: ResolutionError.self) { try await child.resolve(\.haAsyncArgNeeding, argument: 2) },
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
  var haReadsMain: AsyncKey<String> { AsyncKey { r in try await r.resolve(\.haMain).label }.scope(.singleton) }
  var haReadsMainArg: AsyncKey<String> {
    AsyncKey { r in try await r.resolve(\.haMainArg, argument: 1).label }.scope(.singleton)
  }
  var haReadsAsyncArg: MainActorKey<String> {
    MainActorKey { r in try r.resolve(\.haArg, argument: 1).label }.scope(.singleton)
  }
  /// The same, keeping what they resolve.
  var haKeepsMain: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.haMain), second: Token("own")) }.scope(.singleton)
  }
  var haKeepsMainArg: AsyncKey<FxPair> {
    AsyncKey { r in FxPair(first: try await r.resolve(\.haMainArg, argument: 1), second: Token("own")) }.scope(.cached)
  }
}

@Suite struct HuntAReadOnlyCaptiveTests {
  @Test func aSingletonThatOnlyReadsFromAUniqueInstanceMadeOnTheMainActorIsNotCaptive() async throws {
    let report = await Container().validate(including: [\.haReadsMain, \.haReadsMainArg, \.haReadsAsyncArg])
    #expect(report.problems(.captiveDependency).isEmpty, "\(report)")
  }

  @Test func aSharedAsyncKeyThatKeepsAUniqueInstanceMadeOnTheMainActorIsCaptive() async throws {
    let report = await Container().validate(including: [\.haKeepsMain, \.haKeepsMainArg])
    #expect(
      Set(report.problems(.captiveDependency).map { $0.path.map(\.name) })
        == [["\\.haKeepsMain", "\\.haMain"], ["\\.haKeepsMainArg", "\\.haMainArg"]], "\(report)")
  }
}

protocol HuntAHolder: Sendable {
  var pair: FxPair { get }
}
struct HuntAStructHolder: HuntAHolder {
  let pair: FxPair
}
final class HuntAClassHolder: HuntAHolder {
  let pair: FxPair
  init(pair: FxPair) { self.pair = pair }
}

extension Dependencies {
  var haExistentialHolder: MainActorKey<any HuntAHolder> {
    MainActorKey { _ in HuntAStructHolder(pair: FxPair(first: Token("a"), second: Token("b"))) }
  }
}

extension HuntACaptiveTests {
  @Test func aWeakExistentialHolderIsCaptiveOnlyIfItsInstanceIsAClass() async throws {
    let structs = Container()
    structs.register(\.haSync, scope: .unique) { Token("unique") }
    structs.register(\.haExistentialHolder, scope: .weak) { r in
      HuntAStructHolder(pair: FxPair(first: try r[\.haSync], second: Token("own")))
    }
    let fine = await structs.validate()
    #expect(fine.problems(.captiveDependency).isEmpty, "\(fine)")
    let first = try await structs.resolve(\.haExistentialHolder)
    #expect(try await structs.resolve(\.haExistentialHolder).pair.first !== first.pair.first, "made anew each time")

    let classes = Container()
    classes.register(\.haSync, scope: .unique) { Token("unique") }
    classes.register(\.haExistentialHolder, scope: .weak) { r in
      HuntAClassHolder(pair: FxPair(first: try r[\.haSync], second: Token("own")))
    }
    let captive = await classes.validate()
    #expect(
      captive.problems(.captiveDependency).map { $0.path.map(\.name) } == [["\\.haExistentialHolder", "\\.haSync"]],
      "\(captive)")
    let held = try await classes.resolve(\.haExistentialHolder)
    #expect(try await classes.resolve(\.haExistentialHolder).pair.first === held.pair.first, "shared while held")
  }
}

@Suite struct HuntAValidationHierarchyTests {
  @Test func aChildsValidationRunsItsAncestorsRegistrationsOfEveryKind() async throws {
    let grandparent = Container()
    grandparent.register(\.haViewModel) { r in try r[\.haStorage] }
    let parent = grandparent.makeChild()
    parent.register(\.haAsyncArgNeeding) { r, _ in try r[\.haStorage] }
    parent.decorate(\.haMainArgNeeding) { _, t in t }
    let child = parent.makeChild()
    child.register(\.haAsyncNeeding) { r in try r[\.haStorage] }
    let report = await child.validate(arguments: [\.haAsyncArgNeeding: 1, \.haMainArgNeeding: 2])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.haViewModel", "\\.haAsyncArgNeeding", "\\.haMainArgNeeding", "\\.haAsyncNeeding"], "\(report)")
    // The parent's validation does not see its child's registration.
    let parents = await parent.validate(arguments: [\.haAsyncArgNeeding: 1, \.haMainArgNeeding: 2])
    #expect(!parents.problems(.requiredKeyNotProvided).contains { $0.path.first?.name == "\\.haAsyncNeeding" })
    // Providing the storage in the child fixes the child's own, not the ancestors' shared ones:
    // those are unique here, so the child makes them with its registration.
    child.register(\.haStorage) { Token("child") }
    let fixed = await child.validate(arguments: [\.haAsyncArgNeeding: 1, \.haMainArgNeeding: 2])
    #expect(fixed.isValid, "\(fixed)")
  }

  @Test func aDisposedContainersValidationReportsEveryKindDisposed() async throws {
    let container = Container()
    for kind in HuntAKind.all { kind.register(container, .singleton, Counter(), kind.name, nil) }
    try await container.dispose()
    let report = await container.validate(arguments: [\.haArg: 1, \.haAsyncArg: 1, \.haMainArg: 1])
    #expect(
      Set(report.problems(.containerDisposed).map(\.dependency.name)) == Set(HuntAKind.all.map(\.keyName)), "\(report)")
  }
}

@MainActor final class HuntAInjectedModel: Sendable {
  let token: Token
  let argument: Token
  init() {
    @Injected(\.haSync) var token: Token
    @Injected(\.haMainArg, argument: 12) var argument: Token
    self.token = token
    self.argument = argument
  }
}

extension Dependencies {
  var haInjectedModel: MainActorKey<HuntAInjectedModel> { MainActorKey { _ in HuntAInjectedModel() } }
}

@Suite struct HuntAInjectedInValidationTests {
  @Test func anInjectedPropertyOfAMainActorModelResolvesFromTheValidatedCopy() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.haSync, scope: .singleton) {
      made.increment()
      return Token("app")
    }
    container.register(\.haMainArg) { _, n in Token("main \(n)") }
    let graph = await withContainer(container) { await container.graph(including: [\.haInjectedModel]) }
    #expect(graph.report.isValid, "\(graph.report)")
    #expect(graph.edges.contains { $0.from == "\\.haInjectedModel" && $0.to == "\\.haSync" }, "\(graph.edges)")
    #expect(graph.edges.contains { $0.from == "\\.haInjectedModel" && $0.to == "\\.haMainArg" }, "\(graph.edges)")
    #expect(made.count == 1, "made in the copy")
    _ = try container[\.haSync]
    #expect(made.count == 2, "the copy kept nothing: the app makes its own")
  }
}

extension Dependencies {
  /// A key that keeps a lazy handle to a synchronous argument key.
  var haLazyArgHolder: Key<Lazy<ArgumentKey<Int, Token>>> { Key { r in r.lazy(\.haArg, argument: 8) } }
  var haLazyMainArgHolder: MainActorKey<Lazy<DependencyKey<MainActorKind, Int, Token>>> {
    MainActorKey { r in r.lazy(\.haMainArg, argument: 9) }
  }
  var haLazyAsyncArgHolder: AsyncKey<Lazy<DependencyKey<AsyncKind, Int, Token>>> {
    AsyncKey { r in r.lazy(\.haAsyncArg, argument: 10) }
  }
}

/// "An argument key runs with the sample argument you pass for it, or else with the argument of a
/// `Lazy` or `@LazyInjected` a factory made of it during the run; without either, validation ...
/// lists it in needsSampleArgument" (Diagnostics). A registered argument key is a root of its own,
/// run (without a sample) before the handles: it must still run with the handle's argument.
@Suite struct HuntARegisteredArgumentKeyBehindALazyTests {
  /// Registers `\.haArg` and `\.haMainArg` with factories that note their argument in `seen` and
  /// need the required `\.haStorage`.
  static func registerArgumentKeysNeedingStorage(in container: Container, noting seen: Collected<String>) {
    container.register(\.haArg) { r, n in
      seen.append("sync \(n)")
      return Token("\(n) " + (try r[\.haStorage]).label)
    }
    container.register(\.haMainArg) { r, n in
      seen.append("main \(n)")
      return Token("\(n) " + (try r[\.haStorage]).label)
    }
  }

  @Test func aRegisteredArgumentKeyOfEveryKindRunsWithTheArgumentOfALazyMadeOfIt() async throws {
    let container = Container()
    let seen = Collected<String>()
    Self.registerArgumentKeysNeedingStorage(in: container, noting: seen)
    container.register(\.haAsyncArg) { r, n in
      seen.append("async \(n)")
      return Token("\(n) " + (try r[\.haStorage]).label)
    }
    let report = await container.validate(
      including: [\.haLazyArgHolder, \.haLazyMainArgHolder, \.haLazyAsyncArgHolder])
    #expect(report.needsSampleArgument.isEmpty, "run with the lazy's argument, so not listed: \(report)")
    #expect(Set(seen.all) == ["sync 8", "main 9", "async 10"])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
        == [
          ["\\.haLazyArgHolder", "\\.haArg", "\\.haStorage"],
          ["\\.haLazyMainArgHolder", "\\.haMainArg", "\\.haStorage"],
          ["\\.haLazyAsyncArgHolder", "\\.haAsyncArg", "\\.haStorage"],
        ], "\(report)")
  }

  @Test func aSampleTheCallerGivesStillComesFirstForARegisteredKey() async throws {
    let container = Container()
    let seen = Collected<String>()
    container.register(\.haMainArg) { _, n in
      seen.append("main \(n)")
      return Token("\(n)")
    }
    let report = await container.validate(including: [\.haLazyMainArgHolder], arguments: [\.haMainArg: 1])
    #expect(report.isValid && report.needsSampleArgument.isEmpty, "\(report)")
    #expect(seen.all == ["main 1"])
  }

  @Test func aRegisteredArgumentKeyReachedOnlyByAProviderIsStillListed() async throws {
    let container = Container()
    container.register(\.haMainArgNeeding) { _, n in Token("\(n)") }
    container.register(\.haAsyncArgNeeding) { _, n in Token("\(n)") }
    let report = await container.validate(including: [\.haMainProviderHolder, \.haAsyncProviderHolder])
    #expect(
      Set(report.needsSampleArgument.map(\.name)) == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"], "\(report)")
  }
}

/// Made by a factory in a dry run: its property's argument key is resolved on first read.
struct HuntALazyArgumentUser: Sendable {
  @LazyInjected(\.haArg, argument: 4) var token: Token
}

@MainActor final class HuntALazyMainArgumentUser {
  @LazyInjected(\.haMainArg, argument: 5) var token: Token
}

extension Dependencies {
  var haLazyInjectedArgUser: Key<HuntALazyArgumentUser> { Key { HuntALazyArgumentUser() } }
  var haLazyInjectedMainArgUser: MainActorKey<HuntALazyMainArgumentUser> {
    MainActorKey { _ in HuntALazyMainArgumentUser() }
  }
}

extension HuntARegisteredArgumentKeyBehindALazyTests {
  @Test func aRegisteredArgumentKeyRunsWithTheArgumentOfALazyInjectedPropertyToo() async throws {
    let container = Container()
    let seen = Collected<String>()
    Self.registerArgumentKeysNeedingStorage(in: container, noting: seen)
    let report = await withContainer(container) {
      await container.validate(including: [\.haLazyInjectedArgUser, \.haLazyInjectedMainArgUser])
    }
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(Set(seen.all) == ["sync 4", "main 5"])
    #expect(report.problems(.requiredKeyNotProvided).count == 2, "\(report)")
  }
}

@Suite struct HuntAConcurrentValidationTests {
  @Test func validationsOfOneContainerRunningAtOnceReportTheSameAndTouchNoInstance() async throws {
    let container = Container()
    let made = Counter()
    for kind in HuntAKind.all { kind.register(container, .singleton, made, kind.name, nil) }
    container.register(\.haViewModel, scope: .singleton) { r in Token(try r[\.haStorage].label) }
    let app = try await container.resolve(\.haMain)
    let reports = await withTaskGroup(of: ValidationReport.self) { group in
      for _ in 0..<8 {
        group.addTask {
          await container.validate(including: [\.haScreen], arguments: [\.haArg: 1, \.haAsyncArg: 2, \.haMainArg: 3])
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(Set(reports).count == 1, "\(reports.map(\.description))")
    #expect(reports.first?.problems(.requiredKeyNotProvided).count == 1)
    #expect(try await container.resolve(\.haMain) === app, "the app's instance is untouched")
  }
}
