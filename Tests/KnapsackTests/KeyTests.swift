import Foundation
import Knapsack
import Testing

// Keys declared in this (test) module: keys live next to their abstraction, in any module, not in
// Knapsack. That a key path to a missing key, or a value of the wrong type, does not compile is
// checked by the compiler and cannot be a run-time test: for example
// `let s: String = try container[\.keyNumber]` and `container.register(\.keyNumber) { "text" }` are
// compile errors.
extension Dependencies {
  var keyNumber: Key<Int> { Key { 42 } }
  var keyToken: Key<Token> { Key { Token("default") } }
  var keySingletonToken: Key<Token> { Key { Token("default singleton") }.scope(.singleton) }
  var keyRequiredToken: Key<Token> { .required() }
  var keyDependent: Key<String> { Key { r in "number \(try r[\.keyNumber])" } }
  var keyUnnamedRequired: Key<Int> { .required() }
  /// Required keys that declare the scope their registrations take.
  var keyRequiredSingleton: Key<Token> { .required().scope(.singleton) }
  var keyRequiredAsyncSingleton: AsyncKey<Token> { .required().scope(.singleton) }
  var keyRequiredMainActorSingleton: MainActorKey<Token> { .required().scope(.singleton) }
  var keyRequiredArgumentSingleton: ArgumentKey<Int, Token> { .required().scope(.singleton) }
}

@Suite struct KeyTests {
  @Test func defaultFactoryIsUsedUntilSomethingIsRegistered() async throws {
    let container = Container()
    #expect(try container[\.keyNumber] == 42)
    #expect(try container.resolve(\.keyNumber) == 42)
    #expect(try container[\.keyToken].label == "default")
  }

  @Test func defaultScopeIsUniqueUnlessTheKeySaysOtherwise() async throws {
    let container = Container()
    #expect(try container[\.keyToken] !== container[\.keyToken])
    #expect(try container[\.keySingletonToken] === container[\.keySingletonToken])
  }

  /// A required key's `.scope(_:)` is the scope of the registrations that provide it and name
  /// none, for every kind; a registration's own `scope:` wins.
  @Test func aRequiredKeysDeclaredScopeIsItsRegistrationsDefault() async throws {
    let container = Container()
    container.register(\.keyRequiredSingleton) { Token("registered") }
    container.register(\.keyRequiredAsyncSingleton) { Token("registered async") }
    container.register(\.keyRequiredMainActorSingleton) { Token("registered on the main actor") }
    container.register(\.keyRequiredArgumentSingleton) { _, number in Token("registered for \(number)") }
    #expect(try container[\.keyRequiredSingleton] === container[\.keyRequiredSingleton])
    #expect(try await container.resolve(\.keyRequiredAsyncSingleton) === container.resolve(\.keyRequiredAsyncSingleton))
    #expect(
      try await container.resolve(\.keyRequiredMainActorSingleton)
        === container.resolve(\.keyRequiredMainActorSingleton))
    #expect(
      try container.resolve(\.keyRequiredArgumentSingleton, argument: 1)
        === container.resolve(\.keyRequiredArgumentSingleton, argument: 1))
    #expect(
      try container.resolve(\.keyRequiredArgumentSingleton, argument: 1)
        !== container.resolve(\.keyRequiredArgumentSingleton, argument: 2))
    let unique = Container()
    unique.register(\.keyRequiredSingleton, scope: .unique) { Token("unique") }
    #expect(try unique[\.keyRequiredSingleton] !== unique[\.keyRequiredSingleton])
  }

  @Test func defaultFactoryReceivesAResolverOfTheSameContainer() async throws {
    let container = Container()
    #expect(try container[\.keyDependent] == "number 42")
    container.register(\.keyNumber) { 7 }
    #expect(try container[\.keyDependent] == "number 7")
  }

  @Test func registrationReplacesTheDefault() async throws {
    let container = Container()
    container.register(\.keyToken) { Token("registered") }
    #expect(try container[\.keyToken].label == "registered")
  }

  @Test func laterRegistrationReplacesAnEarlierOne() async throws {
    let container = Container()
    container.register(\.keyNumber) { 1 }
    #expect(try container[\.keyNumber] == 1)
    container.register(\.keyNumber) { 2 }
    #expect(try container[\.keyNumber] == 2)
  }

  @Test func registrationWithoutScopeKeepsTheKeysDefaultScope() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.keySingletonToken) { () -> Token in
      counter.increment()
      return Token("registered")
    }
    let first = try container[\.keySingletonToken]
    #expect(first.label == "registered")
    #expect(try container[\.keySingletonToken] === first)
    #expect(counter.count == 1)
  }

  @Test func registrationChoosesItsOwnScope() async throws {
    let container = Container()
    container.register(\.keySingletonToken, scope: .unique) { Token("unique") }
    #expect(try container[\.keySingletonToken] !== container[\.keySingletonToken])
    container.register(\.keyToken, scope: .singleton) { Token("singleton") }
    #expect(try container[\.keyToken] === container[\.keyToken])
  }

  @Test func registeredFactoryReceivesAResolver() async throws {
    let container = Container()
    container.register(\.keyNumber) { 5 }
    container.register(\.keyToken) { r in Token("made with \(try r[\.keyNumber])") }
    #expect(try container[\.keyToken].label == "made with 5")
  }

  @Test func requiredKeyResolvesOnceRegistered() async throws {
    let container = Container()
    #expect(throws: ResolutionError.self) { try container[\.keyRequiredToken] }
    container.register(\.keyRequiredToken) { Token("provided") }
    #expect(try container[\.keyRequiredToken].label == "provided")
  }

  @Test func requiredKeyErrorNamesTheKeyAndItsType() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.keyRequiredToken] }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.keyRequiredToken")
    #expect(error?.dependency.typeName == "Token")
    #expect(error?.dependency.description == "\\.keyRequiredToken")
  }

  @Test func everyRequiredKeyRecordsWhereItWasDeclared() async throws {
    // The parameterless `.required` is gone: every required key records its name and site.
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.keyUnnamedRequired] }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.keyUnnamedRequired")
    #expect(error?.dependency.location?.fileID == "KnapsackTests/KeyTests.swift")
  }

  @Test func isRegisteredIgnoresDefaultsAndSeesRegistrations() async {
    let container = Container()
    #expect(!container.isRegistered(\.keyNumber))
    #expect(!container.isRegistered(\.keyRequiredToken))
    container.register(\.keyNumber) { 1 }
    #expect(container.isRegistered(\.keyNumber))
    #expect(!Container().isRegistered(\.keyNumber))
  }

  @Test func scopesDescribeThemselvesAndRoundTripThroughCodable() async throws {
    let scopes: [Scope] = [.unique, .graph, .weak, .cached, .singleton]
    #expect(scopes.map(\.description) == ["unique", "graph", "weak", "cached", "singleton"])
    #expect(Set(scopes).count == 5)
    let data = try JSONEncoder().encode(scopes)
    #expect(try JSONDecoder().decode([Scope].self, from: data) == scopes)
  }

  @Test func sourceLocationDescribesItself() async {
    let location = CodeLocation(fileID: "Module/File.swift", line: 12)
    #expect(location.description == "Module/File.swift:12")
  }

  @Test func keyPathsBuiltAtRunTimeNameTheSameKey() async throws {
    // A key path made with `appending` is a new object each time; it must still be the same key.
    let container = Container()
    container.register(\.keyNumber) { 9 }
    for _ in 0..<100 {
      let built: KeyPath<Dependencies, Key<Int>> = (\Dependencies.self).appending(path: \Dependencies.keyNumber)
      #expect(try container.resolve(built) == 9)
      #expect(container.isRegistered(built))
    }
  }
}
