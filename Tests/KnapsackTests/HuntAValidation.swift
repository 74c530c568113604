import Knapsack
import KnapsackTesting
import Testing

// Tests written from the point 3 (validate() sees every key), for combinations the
// acceptance tests do not reach: defaults only (`including:`), a chain that crosses kinds, handles
// made by main-actor factories, wrong samples for every kind, and argument keys reached through
// other factories.

extension Dependencies {
  var haStorage: Key<Token> { .required() }
  /// A main-actor view model over a required storage key, declared with defaults only.
  var haViewModel: MainActorKey<Token> { MainActorKey { r in Token("vm " + (try r[\.haStorage]).label) } }
  /// An asynchronous key whose factory awaits the main-actor view model.
  var haScreen: AsyncKey<Token> { AsyncKey { r in Token("screen " + (try await r.resolve(\.haViewModel)).label) } }
  /// A main-actor view model that holds a lazy handle to an asynchronous key.
  var haLazyHolder: MainActorKey<Lazy<AsyncKey<Token>>> { MainActorKey { r in r.lazy(\.haAsyncNeeding) } }
  var haAsyncNeeding: AsyncKey<Token> { AsyncKey { r in try r[\.haStorage] } }
  /// A main-actor argument key whose default needs the storage.
  var haMainArgNeeding: DependencyKey<MainActorKind, Int, Token> {
    DependencyKey { r, n in Token("\(n) " + (try r[\.haStorage]).label) }
  }
  var haAsyncArgNeeding: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { r, n in Token("\(n) " + (try r[\.haStorage]).label) }
  }
  /// A main-actor key whose factory resolves a main-actor argument key with its own argument.
  var haMainArgUser: MainActorKey<Token> { MainActorKey { r in try r.resolve(\.haMainArgNeeding, argument: 5) } }
  /// An asynchronous key whose factory resolves an asynchronous argument key with its own argument.
  var haAsyncArgUser: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.haAsyncArgNeeding, argument: 6) } }
  /// A main-actor singleton that keeps a unique main-actor argument key's instance.
  var haMainCaptor: MainActorKey<FxPair> {
    MainActorKey { r in
      FxPair(first: try r.resolve(\.haMainArg, argument: 1), second: try r.resolve(\.haMainArg, argument: 1))
    }
    .scope(.singleton)
  }
  var haAsyncCaptor: AsyncKey<FxPair> {
    AsyncKey { r in
      FxPair(first: try await r.resolve(\.haAsyncArg, argument: 1), second: Token("own"))
    }
    .scope(.singleton)
  }
}

@Suite struct HuntAValidationTests {
  @Test func aRequiredKeyBehindAMainActorViewModelBehindAnAsyncKeyIsReportedFromTheKeysAlone() async throws {
    let report = await Container().validate(including: [\.haScreen])
    let problems = report.problems(.requiredKeyNotProvided)
    #expect(problems.count == 1, "\(report)")
    let problem = try #require(problems.first)
    #expect(problem.dependency.name == "\\.haStorage")
    #expect(problem.dependency.location == Dependencies.declarationSite(of: \.haStorage))
    #expect(problem.path.map(\.name) == ["\\.haScreen", "\\.haViewModel", "\\.haStorage"])
    #expect(problem.description.contains("\\.haScreen → \\.haViewModel → \\.haStorage"))
    #expect(
      problem.description.contains(
        "HuntAValidation.swift:\(Dependencies.declarationSite(of: \.haStorage).line)"), "\(problem)")
  }

  @MainActor @Test func theSameFromTheMainActor() async throws {
    let container = Container()
    container.register(\.haScreen, scope: .singleton) { r in Token(try await r.resolve(\.haViewModel).label) }
    let report = await container.validate()
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [
        ["\\.haScreen", "\\.haViewModel", "\\.haStorage"]
      ])
    container.register(\.haStorage) { Token("sql") }
    #expect(await container.validate().isValid)
    #expect(try await container.resolve(\.haScreen).label == "vm sql")
  }

  @Test func aLazyOfAnAsyncKeyMadeByAMainActorFactoryIsChecked() async throws {
    let report = await Container().validate(including: [\.haLazyHolder])
    let problem = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(problem.dependency.name == "\\.haStorage")
    #expect(problem.path.first?.name == "\\.haLazyHolder")
    #expect(problem.path.last?.name == "\\.haStorage")
    #expect(problem.path.map(\.name).contains("\\.haAsyncNeeding"))
  }

  @Test func argumentKeysOfEveryKindNamedInIncludingRunWithTheirSamples() async throws {
    let container = Container()
    let report = await container.validate(
      including: [\.haMainArgNeeding, \.haAsyncArgNeeding], arguments: [\.haMainArgNeeding: 1, \.haAsyncArgNeeding: 2])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"], "\(report)")
    let unsampled = await container.validate(including: [\.haMainArgNeeding, \.haAsyncArgNeeding])
    #expect(Set(unsampled.needsSampleArgument.map(\.name)) == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"])
    #expect(unsampled.description.contains("\\.haMainArgNeeding"))
    #expect(unsampled.description.contains("\\.haAsyncArgNeeding"))
  }

  @Test func argumentKeysSampledOnlyInArgumentsAreRunToo() async throws {
    // The sample names the key: it is checked, from its default, without `including:`.
    let report = await Container().validate(arguments: [\.haMainArgNeeding: 1, \.haAsyncArgNeeding: 2])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
        == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"], "\(report)")
  }

  @Test func argumentKeysReachedThroughAFactoryRunWithItsArgument() async throws {
    let report = await Container().validate(including: [\.haMainArgUser, \.haAsyncArgUser])
    #expect(report.needsSampleArgument.isEmpty, "\(report)")
    #expect(
      Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
        == [
          ["\\.haMainArgUser", "\\.haMainArgNeeding", "\\.haStorage"],
          ["\\.haAsyncArgUser", "\\.haAsyncArgNeeding", "\\.haStorage"],
        ], "\(report)")
  }

  @Test func registeredArgumentKeysOfEveryKindWithoutASampleAreListed() async throws {
    let container = Container()
    container.register(\.haMainArg) { _, n in Token("\(n)") }
    container.register(\.haAsyncArg) { _, n in Token("\(n)") }
    container.register(\.haArg) { _, n in Token("\(n)") }
    let report = await container.validate()
    #expect(Set(report.needsSampleArgument.map(\.name)) == ["\\.haMainArg", "\\.haAsyncArg", "\\.haArg"])
    #expect(report.problems.isEmpty)
  }

  @Test func aSampleOfTheWrongTypeIsAMismatchForEveryArgumentKind() async throws {
    let container = Container()
    container.register(\.haMainArg) { _, n in Token("\(n)") }
    container.register(\.haAsyncArg) { _, n in Token("\(n)") }
    container.register(\.haArg) { _, n in Token("\(n)") }
    let report = await container.validate(arguments: [\.haMainArg: "one", \.haAsyncArg: 2.5, \.haArg: [1]])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == ["\\.haMainArg", "\\.haAsyncArg", "\\.haArg"],
      "\(report)")
    #expect(report.needsSampleArgument.isEmpty, "reported, so not listed as unsampled too")
    #expect(!report.isValid)
    for problem in report.problems(.factoryMismatch) {
      #expect(problem.message.contains("Int"), "\(problem)")
    }
  }

  @Test func aSampleOfTheWrongTypeForAnUnregisteredArgumentKeyIsAMismatch() async throws {
    let report = await Container().validate(arguments: [\.haMainArgNeeding: "one", \.haAsyncArgNeeding: "two"])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name)) == ["\\.haMainArgNeeding", "\\.haAsyncArgNeeding"],
      "\(report)")
  }

  @Test func aSampleForAKeyThatTakesNoArgumentIsAMismatchForEveryKind() async throws {
    let container = Container()
    let report = await container.validate(arguments: [\.haSync: 1, \.haAsync: 2, \.haMain: 3, \.fxMainPlugins: 4])
    #expect(
      Set(report.problems(.factoryMismatch).map(\.dependency.name))
        == ["\\.haSync", "\\.haAsync", "\\.haMain", "\\.fxMainPlugins"], "\(report)")
  }

  @Test func aCaptiveArgumentInstanceIsFoundInMainActorAndAsyncSingletons() async throws {
    let report = await Container().validate(including: [\.haMainCaptor, \.haAsyncCaptor])
    let captives = report.problems(.captiveDependency)
    #expect(Set(captives.map { $0.path.first?.name }) == ["\\.haMainCaptor", "\\.haAsyncCaptor"], "\(report)")
    #expect(captives.allSatisfy { $0.message.contains("unique") }, "\(report)")
  }

  @Test func aFailingFactoryOfEveryArgumentKindIsReportedWithItsSample() async throws {
    let container = Container()
    container.register(\.haMainArg) { _, n in throw PlannedFailure("main \(n)") }
    container.register(\.haAsyncArg) { _, n in throw PlannedFailure("async \(n)") }
    let report = await container.validate(arguments: [\.haMainArg: 7, \.haAsyncArg: 8])
    #expect(
      Set(report.problems(.factoryFailed).map(\.message)).count == 2
        && report.problems(.factoryFailed).contains { $0.message.contains("main 7") }
        && report.problems(.factoryFailed).contains { $0.message.contains("async 8") }, "\(report)")
  }

  @Test func aMainActorDecoratorOfAnArgumentKeyIsValidatedWithTheSample() async throws {
    let container = Container()
    container.register(\.haMainArg) { _, n in Token("\(n)") }
    container.decorate(\.haMainArg) { r, token in
      #expect(MainQueueProbe.isOnMainQueue)
      return Token(token.label + (try r[\.haStorage]).label)
    }
    let report = await container.validate(arguments: [\.haMainArg: 1])
    #expect(
      report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) } == [["\\.haMainArg", "\\.haStorage"]],
      "\(report)")
  }

  @Test func validationMakesNoInstanceOfAnyKindAndDisposesNothing() async throws {
    let container = Container()
    let made = Counter()
    let closed = Collected<String>()
    for kind in HuntAKind.all { kind.register(container, .singleton, made, kind.name, { closed.append($0.label) }) }
    let report = await container.validate(arguments: [\.haArg: 1, \.haAsyncArg: 1, \.haMainArg: 1])
    #expect(report.isValid, "\(report)")
    #expect(made.count == 6, "each factory ran once in the dry run")
    for kind in HuntAKind.all { _ = try await kind.resolve(container, 1) }
    #expect(made.count == 12, "the dry run kept none of them")
    #expect(closed.all.isEmpty)
    try await container.dispose()
    #expect(closed.all.count == 6)
  }

  @Test func aChildsValidationRunsItsOwnMainActorAndAsyncRegistrations() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.haViewModel, scope: .singleton) { r in Token(try r[\.haStorage].label) }
    child.register(\.haAsyncArgNeeding) { r, n in Token("\(n)" + (try r[\.haStorage]).label) }
    #expect(await parent.validate().isValid)
    let report = await child.validate(arguments: [\.haAsyncArgNeeding: 1])
    #expect(
      Set(report.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name }) == [
        "\\.haViewModel", "\\.haAsyncArgNeeding",
      ], "\(report)")
  }

  @Test func aValidatedGraphDrawsEveryKind() async throws {
    let container = Container()
    container.register(\.haStorage) { Token("sql") }
    let graph = await container.graph(
      including: [\.haScreen, \.haMainArgUser, \.haAsyncArgUser], arguments: [:])
    let names = Set(graph.nodes.map(\.dependency.name))
    #expect(
      names.isSuperset(of: [
        "\\.haScreen", "\\.haViewModel", "\\.haStorage", "\\.haMainArgNeeding", "\\.haAsyncArgNeeding",
      ]),
      "\(names)")
    #expect(graph.edges.contains { $0.from == "\\.haScreen" && $0.to == "\\.haViewModel" }, "\(graph.edges)")
    #expect(graph.report.isValid, "\(graph.report)")
  }
}
