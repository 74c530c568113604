import Knapsack
import Testing

struct UserID: Hashable, Sendable {
  let raw: Int
}

final class ProfileModel: Sendable {
  let id: UserID
  let storage: any LocalStorage
  init(id: UserID, storage: any LocalStorage) {
    self.id = id
    self.storage = storage
  }
}

// The argument's type is part of the key: `container.resolve(\.argumentProfile, argument: "7")`
// and registering a factory that takes a `String` are compile errors, so they are not run-time tests.
// There are no arity overloads: several values travel as a tuple or a struct.
extension Dependencies {
  var argumentProfile: ArgumentKey<UserID, ProfileModel> {
    ArgumentKey { r, id in ProfileModel(id: id, storage: try r[\.storage]) }
  }
  var argumentGreeting: ArgumentKey<(name: String, times: Int), String> {
    ArgumentKey { _, arguments in
      Array(repeating: "hi \(arguments.name)", count: arguments.times).joined(separator: " ")
    }
  }
  var argumentRequired: ArgumentKey<Int, String> { .required() }
  var argumentUser: Key<ProfileModel> { Key { r in try r.resolve(\.argumentProfile, argument: UserID(raw: 99)) } }
  var argumentMissingInside: ArgumentKey<Int, String> { ArgumentKey { r, _ in "\(try r[\.clock].now)" } }
  /// Resolves itself with a smaller argument: recursion, not a cycle.
  var argumentCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n == 0 ? 0 : try r.resolve(\.argumentCountdown, argument: n - 1) + 1 }
  }
  var argumentAsyncCountdown: DependencyKey<AsyncKind, Int, Int> {
    DependencyKey { r, n in n == 0 ? 0 : try await r.resolve(\.argumentAsyncCountdown, argument: n - 1) + 1 }
  }
  /// Resolves itself with a new argument each time, without end.
  var argumentAsyncRunaway: DependencyKey<AsyncKind, Int, Int> {
    DependencyKey { r, n in try await r.resolve(\.argumentAsyncRunaway, argument: n + 1) }
  }
  var argumentAnyGraph: ArgumentKey<any Sendable, Token> { ArgumentKey { _, _ in Token("graph") }.scope(.graph) }
  var argumentAnyGraphPair: Key<[Token]> {
    Key { r in [try r.resolve(\.argumentAnyGraph, argument: ()), try r.resolve(\.argumentAnyGraph, argument: ())] }
  }
  /// Resolves itself with the same argument: a cycle.
  var argumentSelfLoop: ArgumentKey<Int, Int> { ArgumentKey { r, n in try r.resolve(\.argumentSelfLoop, argument: n) } }
}

/// A tree whose nodes are values that cannot be compared (not `Hashable`).
struct TreeNode: Sendable {
  let label: String
  let children: [TreeNode]
}

/// A `Hashable` value whose hash ignores one of the fields equality compares: legal, and two
/// different values then share a hash.
struct PartlyHashed: Hashable, Sendable {
  let group: Int
  let step: Int
  func hash(into hasher: inout Hasher) { hasher.combine(group) }
}

/// An object argument that is not `Hashable`: compared by identity.
final class Cursor: Sendable {
  let next: Cursor?
  init(next: Cursor?) { self.next = next }
}

extension Dependencies {
  /// Counts a tree's nodes by resolving itself for each child.
  var argumentTreeSize: ArgumentKey<TreeNode, Int> {
    ArgumentKey { r, node in
      try node.children.reduce(1) { total, child in total + (try r.resolve(\.argumentTreeSize, argument: child)) }
    }
  }
  var argumentAsyncTreeSize: DependencyKey<AsyncKind, TreeNode, Int> {
    DependencyKey { r, node in
      var total = 1
      for child in node.children { total += try await r.resolve(\.argumentAsyncTreeSize, argument: child) }
      return total
    }
  }
  /// Counts down within a group: every step has the same hash.
  var argumentPartlyHashed: ArgumentKey<PartlyHashed, Int> {
    ArgumentKey { r, value in
      value.step == 0
        ? 0 : try r.resolve(\.argumentPartlyHashed, argument: PartlyHashed(group: 1, step: value.step - 1)) + 1
    }
  }
  /// Follows a chain of objects; a chain that comes back to an object it passed is a cycle.
  var argumentCursor: ArgumentKey<Cursor, Int> {
    ArgumentKey { r, cursor in
      guard let next = cursor.next else { return 0 }
      return try r.resolve(\.argumentCursor, argument: next) + 1
    }
  }
  /// Resolves itself with the same object: a cycle.
  var argumentCursorLoop: ArgumentKey<Cursor, Int> {
    ArgumentKey { r, cursor in try r.resolve(\.argumentCursorLoop, argument: cursor) }
  }
  /// Resolves itself asynchronously with the same argument: a cycle.
  var argumentAsyncSelfLoop: DependencyKey<AsyncKind, PartlyHashed, Int> {
    DependencyKey { r, value in try await r.resolve(\.argumentAsyncSelfLoop, argument: value) }
  }
  /// Resolves itself with the same tree, without end: a value that cannot be compared.
  var argumentTreeLoop: ArgumentKey<TreeNode, Int> {
    ArgumentKey { r, node in try r.resolve(\.argumentTreeLoop, argument: node) }
  }
}

/// Argument keys with a scope that keeps instances, whose arguments may not be `Hashable`.
extension Dependencies {
  var argumentPair: ArgumentKey<(Int, Int), Token> { ArgumentKey { _, pair in Token("\(pair.0),\(pair.1)") } }
  var argumentPairSingleton: ArgumentKey<(Int, Int), Token> {
    ArgumentKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.singleton)
  }
  var argumentPairGraph: ArgumentKey<(Int, Int), Token> {
    ArgumentKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.graph)
  }
  var argumentPairGraphUser: Key<Token> { Key { r in try r.resolve(\.argumentPairGraph, argument: (1, 2)) } }
  var argumentCursorSingleton: ArgumentKey<Cursor, Token> { ArgumentKey { _, _ in Token("cursor") }.scope(.singleton) }
  var argumentAnyCached: ArgumentKey<any Sendable, Token> {
    ArgumentKey { _, value in Token("\(value)") }.scope(.cached)
  }
  var argumentAsyncPairSingleton: DependencyKey<AsyncKind, (Int, Int), Token> {
    DependencyKey { _, pair in Token("\(pair.0),\(pair.1)") }.scope(.singleton)
  }
}

@Suite struct ArgumentTests {
  // MARK: Steps are told apart by their arguments

  static let tree = TreeNode(
    label: "root",
    children: [
      TreeNode(label: "a", children: [TreeNode(label: "a1", children: [])]),
      TreeNode(label: "b", children: []),
    ])

  @Test func aKeyMayResolveItselfForArgumentsThatCannotBeCompared() async throws {
    let container = Container()
    #expect(try container.resolve(\.argumentTreeSize, argument: Self.tree) == 4)
    #expect(try await container.resolve(\.argumentAsyncTreeSize, argument: Self.tree) == 4)
  }

  @Test func argumentsWithTheSameHashAreToldApartByEquality() throws {
    #expect(try Container().resolve(\.argumentPartlyHashed, argument: PartlyHashed(group: 1, step: 6)) == 6)
  }

  @Test func objectArgumentsAreToldApartByIdentity() throws {
    let container = Container()
    let chain = Cursor(next: Cursor(next: Cursor(next: nil)))
    #expect(try container.resolve(\.argumentCursor, argument: chain) == 2)
  }

  @Test func theSameObjectOrAnEqualArgumentAgainIsACycle() async throws {
    let container = Container()
    let loop = try #require(throws: ResolutionError.self) {
      try container.resolve(\.argumentCursorLoop, argument: Cursor(next: nil))
    }
    #expect(loop.kind == .cycle)
    let asyncLoop = try await #require(throws: ResolutionError.self) {
      try await container.resolve(\.argumentAsyncSelfLoop, argument: PartlyHashed(group: 2, step: 3))
    }
    #expect(asyncLoop.kind == .cycle)
    #expect(asyncLoop.path.map(\.name) == ["\\.argumentAsyncSelfLoop", "\\.argumentAsyncSelfLoop"])
  }

  @Test func aKeyResolvingItselfForAValueThatCannotBeComparedStopsAtTheDepthLimit() async throws {
    let container = Container()
    let error = await onThread(stackSize: 512 * 1024) { () -> ResolutionError? in
      do {
        _ = try container.resolve(\.argumentTreeLoop, argument: Self.tree)
        return nil
      } catch {
        return error as? ResolutionError
      }
    }
    #expect(error?.kind == .resolutionTooDeep, "\(String(describing: error))")
    #expect(error?.path.allSatisfy { $0.name == "\\.argumentTreeLoop" } == true)
    // The fix says the key asks for itself at every level, not only to find a larger stack.
    #expect(
      error?.description.contains(
        "fix: \\.argumentTreeLoop asks for itself at every level, each time with a new argument: if that never stops,"
      ) == true, "\(String(describing: error))")
  }

  @Test func anArgumentKeyMayResolveItselfWithAnotherArgument() async throws {
    let container = Container()
    #expect(try container.resolve(\.argumentCountdown, argument: 5) == 5)
    #expect(try container.resolve(\.argumentCountdown, argument: 0) == 0)
    #expect(try await container.resolve(\.argumentAsyncCountdown, argument: 4) == 4)
  }

  @Test func anAsynchronousKeyResolvingItselfWithoutEndIsStoppedByTheDepthLimit() async throws {
    let error = try await #require(throws: ResolutionError.self) {
      try await Container().resolve(\.argumentAsyncRunaway, argument: 0)
    }
    #expect(error.kind == .resolutionTooDeep)
    #expect(error.description.contains("deeper than the 10000 asynchronous steps a resolution may take"))
    // A step count, not a stack, stopped it: the fix does not suggest a larger stack.
    #expect(error.description.contains("fix: shorten the chain: an asynchronous resolution stops at a fixed number"))
    #expect(!error.description.contains("larger stack"))
  }

  @Test func aGraphInstanceForAnAnySendableArgumentIsReportedReused() throws {
    let container = Container()
    let recorder = TrRecorder()
    container.observe(recorder)
    let pair = try container.resolve(\.argumentAnyGraphPair)
    #expect(pair[0] === pair[1])
    let outcomes = recorder.events.all.filter { $0.dependency.name == "\\.argumentAnyGraph" }.map(\.outcome)
    #expect(outcomes == [.created, .reused])
  }

  @Test func anArgumentKeyThatResolvesItselfWithTheSameArgumentIsACycle() throws {
    let error = try #require(throws: ResolutionError.self) { try Container().resolve(\.argumentSelfLoop, argument: 3) }
    #expect(error.kind == .cycle)
    #expect(error.path.map(\.name) == ["\\.argumentSelfLoop", "\\.argumentSelfLoop"])
  }

  @Test func defaultFactoryReceivesTheArgument() async throws {
    let container = Container()
    let model = try container.resolve(\.argumentProfile, argument: UserID(raw: 7))
    #expect(model.id == UserID(raw: 7))
    #expect(try container.resolve(\.argumentProfile, argument: UserID(raw: 8)).id.raw == 8)
  }

  @Test func factoryResolvesItsOtherDependencies() async throws {
    let container = Container()
    let storage = try container[\.storage]
    #expect(try container.resolve(\.argumentProfile, argument: UserID(raw: 1)).storage === storage)
  }

  @Test func valuesAreMadeAnewEachTime() async throws {
    let container = Container()
    let first = try container.resolve(\.argumentProfile, argument: UserID(raw: 1))
    let second = try container.resolve(\.argumentProfile, argument: UserID(raw: 1))
    #expect(first !== second)
  }

  @Test func severalValuesTravelAsATuple() async throws {
    let container = Container()
    #expect(try container.resolve(\.argumentGreeting, argument: (name: "Ada", times: 2)) == "hi Ada hi Ada")
  }

  @Test func registrationReplacesTheDefault() async throws {
    let container = Container()
    container.register(\.argumentProfile) { _, id in
      ProfileModel(id: UserID(raw: id.raw * 10), storage: InMemoryStorage(name: "registered"))
    }
    let model = try container.resolve(\.argumentProfile, argument: UserID(raw: 4))
    #expect(model.id.raw == 40)
    #expect(model.storage.name == "registered")
  }

  @Test func requiredArgumentKeyThrowsUntilRegistered() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.argumentRequired, argument: 1) }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.argumentRequired")
    container.register(\.argumentRequired) { _, number in "number \(number)" }
    #expect(try container.resolve(\.argumentRequired, argument: 3) == "number 3")
  }

  @Test func factoriesResolveArgumentKeysThroughTheirResolver() async throws {
    let container = Container()
    #expect(try container[\.argumentUser].id.raw == 99)
  }

  @Test func errorsInsideAnArgumentFactoryShowThePath() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.argumentMissingInside, argument: 1) }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.path.map(\.name) == ["\\.argumentMissingInside", "\\.clock"])
  }

  @Test func childContainerRegistrationsApply() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.storage) { InMemoryStorage(name: "child") }
    #expect(try child.resolve(\.argumentProfile, argument: UserID(raw: 1)).storage.name == "child")
    child.register(\.argumentRequired) { _, number in "child \(number)" }
    #expect(try child.resolve(\.argumentRequired, argument: 2) == "child 2")
    #expect(throws: ResolutionError.self) { try parent.resolve(\.argumentRequired, argument: 2) }
  }

  @Test func overridesApplyToArgumentKeys() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.argumentRequired) { _, number in "override \(number)" }
    } operation: { () async throws in
      #expect(try container.resolve(\.argumentRequired, argument: 5) == "override 5")
    }
    #expect(throws: ResolutionError.self) { try container.resolve(\.argumentRequired, argument: 5) }
  }

  // A scope that keeps instances keeps one per argument: an argument it cannot tell apart from
  // another (not `Hashable`) fails, rather than get the instance made for another argument.

  @Test(arguments: [Scope.singleton, .cached, .weak, .graph])
  func aSharedScopeRefusesAnArgumentThatIsNotHashable(scope: Scope) throws {
    let container = Container()
    container.register(\.argumentPair, scope: scope) { _, pair in Token("\(pair.0),\(pair.1)") }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(\.argumentPair, argument: (1, 2)) }
    #expect(error.kind == .factoryMismatch)
    #expect(error.path.map(\.name) == ["\\.argumentPair"])
    #expect(
      error.description.contains("its \(scope) scope keeps one instance per argument, but (Int, Int) is not Hashable"))
    #expect(error.description.contains("make the argument type Hashable"))
  }

  @Test func aUniqueArgumentKeyTakesAnyArgument() throws {
    let container = Container()
    #expect(try container.resolve(\.argumentPair, argument: (1, 2)).label == "1,2")
    #expect(try container.resolve(\.argumentPair, argument: (3, 4)).label == "3,4")
  }

  @Test func aKeysOwnSharedScopeRefusesATupleAnObjectAndAsynchronously() async throws {
    let container = Container()
    let tuple = #expect(throws: ResolutionError.self) {
      try container.resolve(\.argumentPairSingleton, argument: (1, 2))
    }
    #expect(tuple?.kind == .factoryMismatch)
    // Nested, where a graph-scoped instance would be shared with the rest of the resolution.
    let nested = #expect(throws: ResolutionError.self) { try container[\.argumentPairGraphUser] }
    #expect(nested?.kind == .factoryMismatch)
    #expect(nested?.path.map(\.name) == ["\\.argumentPairGraphUser", "\\.argumentPairGraph"])
    let object = #expect(throws: ResolutionError.self) {
      try container.resolve(\.argumentCursorSingleton, argument: Cursor(next: nil))
    }
    #expect(object?.description.contains("Cursor is not Hashable") == true)
    let async = await #expect(throws: ResolutionError.self) {
      try await container.resolve(\.argumentAsyncPairSingleton, argument: (1, 2))
    }
    #expect(async?.kind == .factoryMismatch)
  }

  @Test func anAnySendableArgumentIsKeptPerHashableValue() throws {
    let container = Container()
    let one = try container.resolve(\.argumentAnyCached, argument: 1)
    #expect(try container.resolve(\.argumentAnyCached, argument: 1) === one)
    #expect(try container.resolve(\.argumentAnyCached, argument: 2) !== one)
    #expect(try container.resolve(\.argumentAnyCached, argument: "1") !== one)
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.argumentAnyCached, argument: (1, 2)) }
    #expect(error?.kind == .factoryMismatch)
  }

  @Test func validationReportsASharedScopeWithATupleSample() async throws {
    let container = Container()
    container.register(\.argumentPair, scope: .singleton) { _, pair in Token("\(pair.0)") }
    let report = await container.validate(arguments: [\.argumentPair: (1, 2)])
    let problem = try #require(report.problems(.factoryMismatch).first { $0.dependency.name == "\\.argumentPair" })
    #expect(problem.message.contains("not Hashable"))
  }
}

/// What an argument's instance is: the instance made for it, and the argument its factory saw.
final class TaggedInstance: Sendable {
  let tag: String
  init(_ argument: any Sendable) { tag = "\(type(of: argument))=\(argument)" }
}

struct NotHashableArgument: Sendable {}

extension Dependencies {
  var anyArgumentInstance: ArgumentKey<any Sendable, TaggedInstance> {
    ArgumentKey { _, argument in TaggedInstance(argument) }.scope(.singleton)
  }
  /// Asks for itself once more with the same number as a `Double`: a different argument.
  var anyArgumentWidening: ArgumentKey<any Sendable, String> {
    ArgumentKey { r, argument in
      guard let whole = argument as? Int else { return "\(type(of: argument))=\(argument)" }
      return try r.resolve(\.anyArgumentWidening, argument: Double(whole))
    }
  }
}

/// Arguments of an `any Sendable` key are told apart by type as well as value: `AnyHashable`
/// alone finds `1`, `Int8(1)` and `1.0` equal.
@Suite struct ExistentialArgumentTests {
  @Test func equalNumbersOfDifferentTypesAreDifferentArguments() throws {
    let container = Container()
    let whole = try container.resolve(\.anyArgumentInstance, argument: 1)
    let small = try container.resolve(\.anyArgumentInstance, argument: Int8(1))
    let real = try container.resolve(\.anyArgumentInstance, argument: 1.0)
    #expect([whole.tag, small.tag, real.tag] == ["Int=1", "Int8=1", "Double=1.0"])
    #expect(try container.resolve(\.anyArgumentInstance, argument: 1) === whole)
    #expect(try container.resolve(\.anyArgumentInstance, argument: Int8(1)) === small)
    #expect(try container.resolve(\.anyArgumentInstance, argument: "1") !== whole)
  }

  @Test func askingAgainWithAnEqualNumberOfAnotherTypeIsNoCycle() throws {
    #expect(try Container().resolve(\.anyArgumentWidening, argument: 1) == "Double=1.0")
  }

  @Test func anArgumentThatIsNotHashableIsNamedByItsOwnType() throws {
    let error = try #require(throws: ResolutionError.self) {
      try Container().resolve(\.anyArgumentInstance, argument: NotHashableArgument())
    }
    #expect(error.kind == .factoryMismatch)
    #expect(error.description.contains("NotHashableArgument is not Hashable"), "\(error)")
  }
}
