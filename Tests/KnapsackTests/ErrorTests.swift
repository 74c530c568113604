import Foundation
import Knapsack
import Testing

protocol ErrorClock: Sendable {
  var now: Int { get }
}

struct ErrorScreen: Sendable {
  let repository: ErrorRepository
}

struct ErrorRepository: Sendable {
  let clock: any ErrorClock
}

struct FixedErrorClock: ErrorClock {
  var now: Int { 0 }
}

extension Dependencies {
  var errorClock: Key<any ErrorClock> { .required() }
  var errorRepository: Key<ErrorRepository> { Key { r in ErrorRepository(clock: try r[\.errorClock]) } }
  var errorScreen: Key<ErrorScreen> { Key { r in ErrorScreen(repository: try r[\.errorRepository]) } }
  var errorFailing: Key<Int> { Key { throw PlannedFailure("disk full") } }
  var errorNeedsFailing: Key<String> { Key { r in "got \(try r[\.errorFailing])" } }
}

/// Where `\.errorClock` is declared: the first line of the extension above.
private let errorClockLine = 22

/// A hand-written resolving protocol of the type-registration shape.
/// The seeds' provider shape: `Container` satisfies it with no adapter.
protocol ErrorGenericProvider { func resolve<T>() throws -> T }
extension Container: ErrorGenericProvider {}

protocol ErrorTypeResolving {
  func resolve<T: Sendable>(type: T.Type, name: String?) throws -> T
}
extension Container: ErrorTypeResolving {}

@Suite struct ErrorTests {
  @Test func declarationLineConstantIsRight() async throws {
    // Guards the constant above: if the key moves, this fails first and says why.
    let source = try String(contentsOfFile: #filePath, encoding: .utf8).components(separatedBy: "\n")
    #expect(source[errorClockLine - 1].contains("var errorClock: Key<any ErrorClock> { .required() }"))
  }

  @Test func requiredKeyLeftUnprovidedGivesTheDocumentedError() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorScreen] }
    #expect(error.kind == .requiredKeyNotProvided)
    // The key's name and where it was declared.
    #expect(error.dependency.name == "\\.errorClock")
    #expect(error.dependency.location == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: errorClockLine))
    #expect(error.registeredAt == nil)
    // The path that led there.
    #expect(error.path.map(\.name) == ["\\.errorScreen", "\\.errorRepository", "\\.errorClock"])
    #expect(error.pathDescription == "\\.errorScreen → \\.errorRepository → \\.errorClock")
    // The message, line by line, as documented on ResolutionError.
    let lines = error.description.components(separatedBy: "\n")
    #expect(lines.first?.hasPrefix("Knapsack: required key \\.errorClock (") == true)
    #expect(lines.first?.hasSuffix(") was never provided.") == true)
    #expect(lines.contains("  declared at KnapsackTests/ErrorTests.swift:\(errorClockLine)"))
    #expect(lines.contains("  path: \\.errorScreen → \\.errorRepository → \\.errorClock"))
    // What to do.
    #expect(
      error.description.contains(
        "fix: register it at the composition root, `container.register(\\.errorClock) { ... }`"))
    #expect(error.description.contains("`withOverrides { $0.register(\\.errorClock) { ... } } operation: { ... }`"))
    // Code that shows or logs an error's localized description gets the same text.
    #expect((error as any Error).localizedDescription == error.description)
  }

  @Test func requiredKeyAtTheTopLevelHasAOneStepPath() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorClock] }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.path.map(\.name) == ["\\.errorClock"])
    #expect(!error.description.contains("path:"))
  }

  @Test func existentialTypesAreSpelledWithAny() async throws {
    // Documented: `DependencyReference.typeName` is "such as `any LocalStorage`", and the error
    // reads `required key \.clock (any AppClock) was never provided.`
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorClock] }
    #expect(error.dependency.typeName == "any ErrorClock")
    #expect(error.description.hasPrefix("Knapsack: required key \\.errorClock (any ErrorClock) was never provided."))
  }

  @Test func notRegisteredFixTextIsValidSwiftForAnExistential() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: (any ErrorClock).self) }
    #expect(error.kind == .notRegistered)
    #expect(error.description.contains("container.register(type: (any ErrorClock).self)"), "\(error)")
  }

  @Test func notRegisteredNamesTheTypeAndItsName() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) {
      try container.resolve(type: ErrorRepository.self, name: "primary")
    }
    #expect(error.kind == .notRegistered)
    #expect(error.dependency.typeName == "ErrorRepository")
    #expect(error.dependency.name == "ErrorRepository (name: \"primary\")")
    #expect(error.description.contains("nothing is registered for ErrorRepository (name: \"primary\")"))
    #expect(error.description.contains("fix: register it"))
  }

  @Test func aTypeNobodyRegisteredIsNamedWithTheLineThatAskedForIt() async throws {
    let container = Container()
    let line = #line + 1
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: ErrorRepository.self) }
    let site = CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line)
    #expect(error.requestedAt == site)
    #expect(error.description.contains("asked for at \(site)"), "\(error)")
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
    #expect(decoded.requestedAt == site)
    #expect(decoded == error)
  }

  @Test func aProtocolRequiringTheTypeResolutionWithoutASiteIsSatisfiedAsIs() async throws {
    let container = Container()
    container.register(type: Int.self, name: "primary") { 7 }
    let resolving: any ErrorTypeResolving = container
    #expect(try resolving.resolve(type: Int.self, name: "primary") == 7)
    let error = try #require(throws: ResolutionError.self) {
      try resolving.resolve(type: ErrorRepository.self, name: "other")
    }
    #expect(error.kind == .notRegistered)
    // A direct call still names its line.
    let line = #line + 1
    let direct = try #require(throws: ResolutionError.self) {
      try container.resolve(type: ErrorRepository.self, name: "other")
    }
    #expect(direct.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
  }

  @Test func theGenericResolveNamesItsLineWhenCalledDirectlyButStillSatisfiesAProviderProtocol() async throws {
    let container = Container()
    let line = #line + 1
    let direct = try #require(throws: ResolutionError.self) { let _: ErrorRepository = try container.resolve() }
    #expect(direct.kind == .notRegistered)
    #expect(direct.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
    #expect(direct.description.contains("asked for at KnapsackTests/ErrorTests.swift:\(line)"), "\(direct)")
    // Through a protocol of the user's own, which passes no line, it resolves as before.
    container.register(type: Int.self) { 7 }
    let provider: any ErrorGenericProvider = container
    #expect(try provider.resolve() as Int == 7)
    let throughProtocol = try #require(throws: ResolutionError.self) { let _: ErrorRepository = try provider.resolve() }
    #expect(throughProtocol.kind == .notRegistered)
    #expect(throughProtocol.requestedAt == nil)
  }

  @Test func aHandleToATypeNamesTheLineThatMadeIt() async throws {
    let container = Container()
    let lazyLine = #line + 1
    let lazy = container.lazy(type: ErrorRepository.self)
    let providerLine = #line + 1
    let provider = container.provider(type: ErrorRepository.self, name: "primary")
    let fromLazy = try #require(throws: ResolutionError.self) { try lazy.value }
    #expect(fromLazy.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: lazyLine))
    let fromProvider = try #require(throws: ResolutionError.self) { try provider.get() }
    #expect(fromProvider.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: providerLine))
    #expect(fromProvider.description.contains("asked for at"), "\(fromProvider)")
    // A failure deeper down, of what the type's factory asked for, is not pinned on the handle:
    // the factory's own line asked for it.
    let factoryLine = #line + 1
    container.register(type: ErrorScreen.self) { r in ErrorScreen(repository: try r[\.errorRepository]) }
    container.register(\.errorRepository) { _ in throw PlannedFailure("no connection") }
    let deeper = try #require(throws: ResolutionError.self) { try container.provider(type: ErrorScreen.self).get() }
    #expect(deeper.dependency.name == "\\.errorRepository")
    #expect(deeper.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: factoryLine))
  }

  @Test func theCallNearestTheFailureNamesItsLineAndOuterCallsKeepIt() async throws {
    let container = Container()
    let inner = #line + 2
    container.register(type: ErrorScreen.self) { r in
      ErrorScreen(repository: try r.resolve(type: ErrorRepository.self, name: "missing"))
    }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: ErrorScreen.self) }
    #expect(error.kind == .notRegistered)
    #expect(error.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: inner))

    // A failure of a dependency the call did not ask for itself (a key a factory resolved) is
    // not pinned on the call: the factory's subscript asked for it, and names its own line.
    container.register(\.errorRepository) { _ in throw PlannedFailure("no connection") }
    let keyLine = #line + 1
    container.register(type: ErrorScreen.self, name: "by key") { r in ErrorScreen(repository: try r[\.errorRepository])
    }
    let keyed = try #require(throws: ResolutionError.self) {
      try container.resolve(type: ErrorScreen.self, name: "by key")
    }
    #expect(keyed.dependency.name == "\\.errorRepository")
    #expect(keyed.requestedAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: keyLine))
    #expect(keyed.description.contains("asked for at KnapsackTests/ErrorTests.swift:\(keyLine)"))
  }

  @Test func factoryFailureNamesTheDependencyTheUnderlyingErrorAndTheRegistration() async throws {
    let container = Container()
    let line = #line + 1
    container.register(\.errorRepository) { _ in throw PlannedFailure("no connection") }
    let error = try #require(throws: ResolutionError.self) { try container[\.errorScreen] }
    #expect(error.kind == .factoryFailed)
    #expect(error.dependency.name == "\\.errorRepository")
    #expect(error.underlying == "no connection")
    #expect(error.registeredAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
    #expect(error.path.map(\.name) == ["\\.errorScreen", "\\.errorRepository"])
    #expect(error.description.contains("the factory for \\.errorRepository (ErrorRepository) threw: no connection"))
    #expect(error.description.contains("registered at KnapsackTests/ErrorTests.swift:\(line)"))
    #expect(error.description.contains("path: \\.errorScreen → \\.errorRepository"))
  }

  /// A factory that resolves from another container it captured: each step of the path names
  /// the registration that ran it, in its own container.
  @Test func eachStepOfThePathNamesTheRegistrationThatRanIt() async throws {
    let other = Container()
    other.register(\.errorRepository) { _ in ErrorRepository(clock: FixedErrorClock()) }  // never runs
    let app = Container()
    let screenLine = #line + 1
    app.register(\.errorScreen) { _ in ErrorScreen(repository: try other[\.errorRepository]) }
    let repositoryLine = #line + 1
    other.register(\.errorRepository) { r in ErrorRepository(clock: try r[\.errorClock]) }
    let error = try #require(throws: ResolutionError.self) { try app[\.errorScreen] }
    #expect(error.path.map(\.name) == ["\\.errorScreen", "\\.errorRepository", "\\.errorClock"])
    let file = "KnapsackTests/ErrorTests.swift"
    #expect(
      error.pathRegistrations == [
        CodeLocation(fileID: file, line: screenLine), CodeLocation(fileID: file, line: repositoryLine), nil,
      ])
    #expect(
      error.description.contains(
        "requested by \\.errorRepository: declared at \(file):23, registered at \(file):\(repositoryLine)"))
  }

  /// The error says what ran when it was thrown, also once the registrations have changed.
  @Test func anErrorsTextDoesNotChangeWhenTheContainerDoes() async throws {
    let container = Container()
    let line = #line + 1
    container.register(\.errorRepository) { r in ErrorRepository(clock: try r[\.errorClock]) }
    let error = try #require(throws: ResolutionError.self) { try container[\.errorScreen] }
    let before = error.description
    #expect(before.contains("registered at KnapsackTests/ErrorTests.swift:\(line)"))
    container.register(\.errorRepository) { _ in ErrorRepository(clock: FixedErrorClock()) }
    #expect(error.pathRegistrations[1] == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
    #expect(error.description == before)
  }

  @Test func typeFactoryFailureNamesTheTypeAndWhereItWasRegistered() async throws {
    let container = Container()
    let line = #line + 1
    container.register(type: ErrorRepository.self, name: "primary") { throw PlannedFailure("offline") }
    container.register(\.errorScreen) { r in
      ErrorScreen(repository: try r.resolve(type: ErrorRepository.self, name: "primary"))
    }
    let error = try #require(throws: ResolutionError.self) { try container[\.errorScreen] }
    #expect(error.kind == .factoryFailed)
    #expect(error.dependency.name == "ErrorRepository (name: \"primary\")")
    #expect(error.registeredAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
    #expect(error.path.map(\.name) == ["\\.errorScreen", "ErrorRepository (name: \"primary\")"])
    #expect(error.description.contains("registered at KnapsackTests/ErrorTests.swift:\(line)"))
  }

  @Test func asyncFactoryFailureNamesWhereItWasRegistered() async throws {
    let container = Container()
    let line = #line + 1
    container.register(\.asyncRequired) { _ async throws -> AsyncDatabase in throw PlannedFailure("refused") }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.asyncNeedsRequired) }
    #expect(error?.kind == .factoryFailed)
    #expect(error?.underlying == "refused")
    #expect(error?.registeredAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
    #expect(error?.path.map(\.name) == ["\\.asyncNeedsRequired", "\\.asyncRequired"])
  }

  @Test func defaultFactoryFailureIsReportedWithItsDeclaration() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorNeedsFailing] }
    #expect(error.kind == .factoryFailed)
    #expect(error.dependency.name == "\\.errorFailing")
    #expect(error.dependency.location?.fileID == "KnapsackTests/ErrorTests.swift")
    #expect(error.underlying == "disk full")
    #expect(error.path.map(\.name) == ["\\.errorNeedsFailing", "\\.errorFailing"])
  }

  @Test func registrationInAParentIsNamedInAChildsError() async throws {
    let parent = Container()
    let line = #line + 1
    parent.register(\.errorClock) { throw PlannedFailure("clock broken") }
    let error = try #require(throws: ResolutionError.self) { try parent.makeChild()[\.errorRepository] }
    #expect(error.kind == .factoryFailed)
    #expect(error.registeredAt == CodeLocation(fileID: "KnapsackTests/ErrorTests.swift", line: line))
  }

  @Test func errorsAreValuesThatRoundTrip() async throws {
    let container = Container()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorScreen] }
    let decoded = try JSONDecoder().decode(ResolutionError.self, from: JSONEncoder().encode(error))
    #expect(decoded == error)
    #expect(decoded.description == error.description)
    let made = ResolutionError(
      kind: error.kind, dependency: error.dependency, registeredAt: error.registeredAt, path: error.path,
      underlying: error.underlying, requestedAt: error.requestedAt)
    #expect(made == error)
  }

  @Test func containerDisposedErrorSaysWhatToDo() async throws {
    let container = Container()
    try await container.dispose()
    let error = try #require(throws: ResolutionError.self) { try container[\.errorRepository] }
    #expect(error.kind == .containerDisposed)
    #expect(error.description.contains("the container was disposed"))
    #expect(error.description.contains("fix: resolve from a live container"))
  }

  /// A factory's error that ends its own sentence is not given a second full stop.
  @Test func aFactorysErrorThatEndsWithPunctuationIsNotStoppedTwice() throws {
    struct Exclaimed: Error, CustomStringConvertible { let description: String }
    for text in ["disk full!", "is the disk full?", "disk full.", "disk full..."] {
      let container = Container()
      container.register(type: Int.self, name: "exclaimed") { throw Exclaimed(description: text) }
      let error = try #require(throws: ResolutionError.self) {
        try container.resolve(type: Int.self, name: "exclaimed")
      }
      let first = try #require(error.description.split(separator: "\n").first)
      #expect(first.hasSuffix("threw: \(text)"), "\(error)")
    }
    let container = Container()
    container.register(type: Int.self, name: "plain") { throw Exclaimed(description: "disk full") }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "plain") }
    #expect(error.description.split(separator: "\n").first?.hasSuffix("threw: disk full.") == true, "\(error)")
  }

  @Test func errorsNeverBecomeNilOrCrashes() async throws {
    // Every failure path of every resolution API throws; nothing returns an optional to unwrap.
    let container = Container()
    #expect(throws: ResolutionError.self) { try container[\.errorClock] }
    #expect(throws: ResolutionError.self) { try container.resolve(\.errorScreen) }
    #expect(throws: ResolutionError.self) { try container.resolve(type: (any ErrorClock).self) }
    #expect(throws: ResolutionError.self) { try container.lazy(\.errorClock).value }
    #expect(throws: ResolutionError.self) { try container.provider(\.errorClock).get() }
    #expect(throws: ResolutionError.self) { try container.lazy(type: (any ErrorClock).self).value }
  }
}

/// Errors in deep graphs: every message stays a few lines long, and the error keeps every step.
@Suite struct LongPathMessageTests {
  /// A chain of `depth` named `Int` registrations, `prefix 0` → `prefix 1` → …, whose last level
  /// asks for `last`.
  func chain(_ depth: Int, _ prefix: String, last: @escaping @Sendable (Int) -> String) -> Container {
    let container = Container()
    for level in 0..<depth {
      container.register(type: Int.self, name: "\(prefix) \(level)") { r in
        try r.resolve(type: Int.self, name: level + 1 < depth ? "\(prefix) \(level + 1)" : last(level)) + 1
      }
    }
    return container
  }

  @Test func aLongPathToAMissingDependencyIsPrintedAsItsEnds() throws {
    let container = chain(40, "level", last: { _ in "missing" })
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "level 0") }
    #expect(error.kind == .notRegistered)
    #expect(error.path.count == 41)
    #expect(error.pathDescription.components(separatedBy: " → ").count == 41)
    let pathLine = try #require(error.description.components(separatedBy: "\n").first { $0.hasPrefix("  path: ") })
    #expect(
      pathLine == "  path: " + (0..<4).map { #"Int (name: "level \#($0)")"# }.joined(separator: " → ")
        + " → … 33 more → " + (37..<40).map { #"Int (name: "level \#($0)")"# }.joined(separator: " → ")
        + #" → Int (name: "missing")"#)
    #expect(error.description.count < 1_500)
  }

  @Test func aPathOfTwelveStepsIsPrintedWhole() throws {
    let container = chain(11, "step", last: { _ in "absent" })
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "step 0") }
    #expect(error.path.count == 12)
    #expect(error.description.contains("  path: \(error.pathDescription)\n"))
  }

  @Test func aCycleReachedThroughALongLeadInListsItsOwnMembersFirst() async throws {
    let container = chain(20, "lead", last: { _ in "loop b" })
    container.register(type: Int.self, name: "loop b") { r in try r.resolve(type: Int.self, name: "loop c") }
    container.register(type: Int.self, name: "loop c") { r in try r.resolve(type: Int.self, name: "loop b") }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "lead 0") }
    #expect(error.kind == .cycle)
    let lines = error.description.components(separatedBy: "\n")
    // The loop's two members, where a fix goes, come first, with their sites; then the lead-in.
    #expect(lines[1].hasPrefix(#"  Int (name: "loop b"): registered at KnapsackTests/ErrorTests.swift:"#), "\(lines)")
    #expect(lines[2].hasPrefix(#"  Int (name: "loop c"): registered at KnapsackTests/ErrorTests.swift:"#), "\(lines)")
    #expect(lines[3].hasPrefix(#"  Int (name: "lead 0"): "#), "\(lines)")
    #expect(lines.contains("  … and 10 more (the path lists every one)"), "\(lines)")
    let problem = try #require(await container.validate().problems(.cycle).first)
    #expect(problem.description.components(separatedBy: "\n")[1].contains(#"Int (name: "loop b")"#), "\(problem)")
  }

  @Test func aLongCycleListsItsFirstMembersAndHowManyMore() async throws {
    let container = chain(30, "ring", last: { _ in "ring 0" })
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "ring 0") }
    #expect(error.kind == .cycle)
    #expect(error.path.count == 31)
    let lines = error.description.components(separatedBy: "\n")
    #expect(lines[0].contains("… 23 more"))
    #expect(lines.contains("  … and 18 more (the path lists every one)"))
    #expect(lines.count == 16)  // the cycle, 12 members, how many more, where it closes, the fix
    #expect(lines[14].hasPrefix("  closed at KnapsackTests/ErrorTests.swift:"), "\(lines)")
    // The dry run's report reads the same way.
    let report = await container.validate()
    let problem = try #require(report.problems(.cycle).first)
    #expect(problem.description.components(separatedBy: "\n").count <= 16)  // with the fix, as the error's
    #expect(problem.description.contains("… and 18 more (the path lists every one)"))
  }
}
