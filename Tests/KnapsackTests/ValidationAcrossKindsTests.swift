import Knapsack
import KnapsackTesting
import Testing

// validate() sees every key: these tests check combinations the documented-behaviour tests do not
// reach: defaults only (`including:`), a chain that crosses kinds, handles
// made by main-actor factories, wrong samples for every kind, and argument keys reached through
// other factories.

extension Dependencies {
  var kindStorage: Key<Token> { .required() }
  /// A main-actor view model over a required storage key, declared with defaults only.
  var kindViewModel: MainActorKey<Token> { MainActorKey { r in Token("vm " + (try r[\.kindStorage]).label) } }
  /// An asynchronous key whose factory awaits the main-actor view model.
  var kindScreen: AsyncKey<Token> { AsyncKey { r in Token("screen " + (try await r.resolve(\.kindViewModel)).label) } }
  /// A main-actor view model that holds a lazy handle to an asynchronous key.
  var kindLazyHolder: MainActorKey<Lazy<AsyncKey<Token>>> { MainActorKey { r in r.lazy(\.kindAsyncNeeding) } }
  var kindAsyncNeeding: AsyncKey<Token> { AsyncKey { r in try r[\.kindStorage] } }
  /// A main-actor argument key whose default needs the storage.
  var kindMainArgNeeding: DependencyKey<MainActorKind, Int, Token> {
    DependencyKey { r, n in Token("\(n) " + (try r[\.kindStorage]).label) }
  }
  var kindAsyncArgNeeding: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { r, n in Token("\(n) " + (try r[\.kindStorage]).label) }
  }
  /// A main-actor key whose factory resolves a main-actor argument key with its own argument.
  var kindMainArgUser: MainActorKey<Token> { MainActorKey { r in try r.resolve(\.kindMainArgNeeding, argument: 5) } }
  /// An asynchronous key whose factory resolves an asynchronous argument key with its own argument.
  var kindAsyncArgUser: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.kindAsyncArgNeeding, argument: 6) } }
  /// A main-actor singleton that keeps a unique main-actor argument key's instance.
  var kindMainCaptor: MainActorKey<FxPair> {
    MainActorKey { r in
      FxPair(first: try r.resolve(\.kindMainArg, argument: 1), second: try r.resolve(\.kindMainArg, argument: 1))
    }
    .scope(.singleton)
  }
  var kindAsyncCaptor: AsyncKey<FxPair> {
    AsyncKey { r in
      FxPair(first: try await r.resolve(\.kindAsyncArg, argument: 1), second: Token("own"))
    }
    .scope(.singleton)
  }
}

@Suite struct ValidationAcrossKindsTests {
  @Test func aRequiredKeyBehindAMainActorViewModelBehindAnAsyncKeyIsReportedFromTheKeysAlone() async throws {
    let report = await Container().validate(including: [\.kindScreen])
    let problems = report.problems(.requiredKeyNotProvided)
    #expect(problems.count == 1, "\(report)")
    let problem = try #require(problems.first)
    #expect(problem.dependency.name == "\\.kindStorage")
    #expect(problem.dependency.location == Dependencies.declarationSite(of: \.kindStorage))
    #expect(problem.path.map(\.name) == ["\\.kindScreen", "\\.kindViewModel", "\\.kindStorage"])
    #expect(problem.description.contains("\\.kindScreen → \\.kindViewModel → \\.kindStorage"))
    #expect(
      problem.description.contains(
        "ValidationAcrossKindsTests.swift:\(Dependencies.declarationSite(of: \.kindStorage).line)"), "\(problem)")
  }

  @MainActor @Test func theSameFromTheMainActor() async throws {
    let container = Container()
    container.register(\.kindScreen, scope: .singleton) { r in Token(try await r.resolve(\.kindViewModel).label) }
    let report = await container.validate()
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [
        ["\\.kindScreen", "\\.kindViewModel", "\\.kindStorage"]
      ])
    container.register(\.kindStorage) { Token("sql") }
    #expect(await container.validate().isValid)
    #expect(try await container.resolve(\.kindScreen).label == "vm sql")
  }

  @Test func aLazyOfAnAsyncKeyMadeByAMainActorFactoryIsChecked() async throws {
    let report = await Container().validate(including: [\.kindLazyHolder])
    let problem = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(problem.dependency.name == "\\.kindStorage")
    #expect(problem.path.first?.name == "\\.kindLazyHolder")
    #expect(problem.path.last?.name == "\\.kindStorage")
    #expect(problem.path.map(\.name).contains("\\.kindAsyncNeeding"))
  }

  @Test func argumentKeysOfEveryKindNamedInIncludingRunWithTheirSamples() async throws {
    let container = Container()
    let report = await container.validate(
      including: [\.kindMainArgNeeding, \.kindAsyncArgNeeding],
      arguments: [\.kindMainArgNeeding: 1, \.kindAsyncArgNeeding: 2])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"], "\(report)")
    let unsampled = await container.validate(including: [\.kindMainArgNeeding, \.kindAsyncArgNeeding])
    #expect(Set(unsampled.needsSampleArgument.map(\.name)) == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"])
    #expect(unsampled.description.contains("\\.kindMainArgNeeding"))
    #expect(unsampled.description.contains("\\.kindAsyncArgNeeding"))
  }

  @Test func argumentKeysSampledOnlyInArgumentsAreRunToo() async throws {
    // The sample names the key: it is checked, from its default, without `including:`.
    let report = await Container().validate(arguments: [\.kindMainArgNeeding: 1, \.kindAsyncArgNeeding: 2])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding"], "\(report)")
  }

  @Test func argumentKeysReachedThroughAFactoryRunWithItsArgument() async throws {
    let report = await Container().validate(including: [\.kindMainArgUser, \.kindAsyncArgUser])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(
      Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
        == [
          ["\\.kindMainArgUser", "\\.kindMainArgNeeding", "\\.kindStorage"],
          ["\\.kindAsyncArgUser", "\\.kindAsyncArgNeeding", "\\.kindStorage"],
        ], "\(report)")
  }

  @Test func registeredArgumentKeysOfEveryKindWithoutASampleAreListed() async throws {
    let container = Container()
    container.register(\.kindMainArg) { _, n in Token("\(n)") }
    container.register(\.kindAsyncArg) { _, n in Token("\(n)") }
    container.register(\.kindArg) { _, n in Token("\(n)") }
    let report = await container.validate()
    #expect(Set(report.needsSampleArgument.map(\.name)) == ["\\.kindMainArg", "\\.kindAsyncArg", "\\.kindArg"])
    #expect(report.problems.isEmpty)
  }

  @Test func aSampleOfTheWrongTypeIsAMismatchForEveryArgumentKind() async throws {
    let container = Container()
    container.register(\.kindMainArg) { _, n in Token("\(n)") }
    container.register(\.kindAsyncArg) { _, n in Token("\(n)") }
    container.register(\.kindArg) { _, n in Token("\(n)") }
    let report = await container.validate(arguments: [\.kindMainArg: "one", \.kindAsyncArg: 2.5, \.kindArg: [1]])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == [
        "\\.kindMainArg", "\\.kindAsyncArg", "\\.kindArg",
      ],
      "\(report)")
    #expect(report.needsSampleArgument.isEmpty, "reported, so not listed as unsampled too")
    #expect(!report.isValid)
    for problem in report.problems(.factoryMismatch) {
      #expect(problem.message.contains("Int"), "\(problem)")
    }
  }

  @Test func aSampleOfTheWrongTypeForAnUnregisteredArgumentKeyIsAMismatch() async throws {
    let report = await Container().validate(arguments: [\.kindMainArgNeeding: "one", \.kindAsyncArgNeeding: "two"])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == [
        "\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding",
      ],
      "\(report)")
  }

  @Test func aSampleForAKeyThatTakesNoArgumentIsAMismatchForEveryKind() async throws {
    let container = Container()
    let report = await container.validate(arguments: [\.kindSync: 1, \.kindAsync: 2, \.kindMain: 3, \.fxMainPlugins: 4])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name))
        == ["\\.kindSync", "\\.kindAsync", "\\.kindMain", "\\.fxMainPlugins"], "\(report)")
  }

  @Test func aCaptiveArgumentInstanceIsFoundInMainActorAndAsyncSingletons() async throws {
    let report = await Container().validate(including: [\.kindMainCaptor, \.kindAsyncCaptor])
    let captives = report.problems(.captiveDependency)
    #expect(Set(captives.map { $0.path.first?.name }) == ["\\.kindMainCaptor", "\\.kindAsyncCaptor"], "\(report)")
    #expect(captives.allSatisfy { $0.message.contains("unique") }, "\(report)")
  }

  @Test func aFailingFactoryOfEveryArgumentKindIsReportedWithItsSample() async throws {
    let container = Container()
    container.register(\.kindMainArg) { _, n in throw PlannedFailure("main \(n)") }
    container.register(\.kindAsyncArg) { _, n in throw PlannedFailure("async \(n)") }
    let report = await container.validate(arguments: [\.kindMainArg: 7, \.kindAsyncArg: 8])
    #expect(
      Set(report.problems(.factoryFailed).map(\.message)).count == 2
        && report.problems(.factoryFailed).contains { $0.message.contains("main 7") }
        && report.problems(.factoryFailed).contains { $0.message.contains("async 8") }, "\(report)")
  }

  @Test func aMainActorDecoratorOfAnArgumentKeyIsValidatedWithTheSample() async throws {
    let container = Container()
    container.register(\.kindMainArg) { _, n in Token("\(n)") }
    container.decorate(\.kindMainArg) { r, token in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token(token.label + (try r[\.kindStorage]).label)
    }
    let report = await container.validate(arguments: [\.kindMainArg: 1])
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [["\\.kindMainArg", "\\.kindStorage"]],
      "\(report)")
  }

  @Test func validationMakesNoInstanceOfAnyKindAndDisposesNothing() async throws {
    let container = Container()
    let made = Counter()
    let closed = Collected<String>()
    for kind in KeyKindCase.all { kind.register(container, .singleton, made, kind.name, { closed.append($0.label) }) }
    let report = await container.validate(arguments: [\.kindArg: 1, \.kindAsyncArg: 1, \.kindMainArg: 1])
    #expect(report.isValid, "\(report)")
    #expect(made.count == 6, "each factory ran once in the dry run")
    for kind in KeyKindCase.all { _ = try await kind.resolve(container, 1) }
    #expect(made.count == 12, "the dry run kept none of them")
    #expect(closed.all.isEmpty)
    try await container.dispose()
    #expect(closed.all.count == 6)
  }

  @Test func aChildsValidationRunsItsOwnMainActorAndAsyncRegistrations() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.kindViewModel, scope: .singleton) { r in Token(try r[\.kindStorage].label) }
    child.register(\.kindAsyncArgNeeding) { r, n in Token("\(n)" + (try r[\.kindStorage]).label) }
    #expect(await parent.validate().isValid)
    let report = await child.validate(arguments: [\.kindAsyncArgNeeding: 1])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name }) == [
        "\\.kindViewModel", "\\.kindAsyncArgNeeding",
      ], "\(report)")
  }

  @Test func aValidatedGraphDrawsEveryKind() async throws {
    let container = Container()
    container.register(\.kindStorage) { Token("sql") }
    let graph = await container.graph(
      including: [\.kindScreen, \.kindMainArgUser, \.kindAsyncArgUser], arguments: [:])
    let names = Set(graph.nodes.map(\.dependency.name))
    #expect(
      names.isSuperset(of: [
        "\\.kindScreen", "\\.kindViewModel", "\\.kindStorage", "\\.kindMainArgNeeding", "\\.kindAsyncArgNeeding",
      ]),
      "\(names)")
    #expect(graph.edges.contains { $0.from == "\\.kindScreen" && $0.to == "\\.kindViewModel" }, "\(graph.edges)")
    #expect(graph.report.isValid, "\(graph.report)")
  }
}
