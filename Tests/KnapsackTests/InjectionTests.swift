import Knapsack
import Testing

extension Dependencies {
  var injectionGreeting: Key<String> { Key { "default greeting" } }
  var injectionToken: Key<Token> { .required() }
  var injectionDeferred: Key<Deferred> { Key { r in Deferred(token: r.lazy(\.injectionToken)) } }
  var injectionFactory: Key<Factory> { Key { r in Factory(tokens: r.provider(\.injectionToken)) } }
  @MainActor var injectionModel: MainActorKey<InjectedModel> { MainActorKey { _ in InjectedModel() } }
}

/// A view model that takes its dependency with `@Injected`, made by a main-actor key.
@MainActor final class InjectedModel {
  @Injected(\.injectionToken) var token: Token
}

/// Holds a dependency it reads later.
final class Deferred: Sendable {
  let token: Lazy<Key<Token>>
  init(token: Lazy<Key<Token>>) { self.token = token }
}

/// Makes a dependency whenever asked.
final class Factory: Sendable {
  let tokens: Provider<Key<Token>>
  init(tokens: Provider<Key<Token>>) { self.tokens = tokens }
}

/// A type that cannot take constructor injection, using the app's container (`Container.shared`).
final class InjectedScreen {
  @Injected(\.injectionGreeting) var greeting: String
  @LazyInjected(\.injectionGreeting) var lazyGreeting: String
}

/// Keeps a `LazyInjected` made in one place and read in another.
struct LazyHolder {
  @LazyInjected var greeting: String
  init(container: Container) { _greeting = LazyInjected(\.injectionGreeting, container: container) }
}

// `@Injected` cannot throw, so a failed resolution stops the program (documented, the one crashing
// convenience); `injectedStopsWithTheFullErrorWhenItCannotResolve` checks that in a child process.
@Suite struct InjectionTests {
  private func counting(_ scope: Scope = .unique) -> (Container, Counter) {
    let container = Container()
    let counter = Counter()
    container.register(\.injectionToken, scope: scope) { Token("made \(counter.increment())") }
    return (container, counter)
  }

  // MARK: @Injected

  @Test func injectedResolvesFromAnExplicitContainer() async throws {
    let container = Container()
    container.register(\.injectionGreeting) { "registered" }
    @Injected(\.injectionGreeting, container: container) var greeting: String
    #expect(greeting == "registered")
  }

  @Test func injectedResolvesRegisteredTypes() async throws {
    let container = Container()
    container.register(type: (any TypedService).self, name: "secure") { NamedService("secure") }
    @Injected(name: "secure", container: container) var service: any TypedService
    #expect(service.name == "secure")
  }

  @Test func injectedResolvesAtInitialization() async throws {
    let (container, counter) = counting()
    @Injected(\.injectionToken, container: container) var token: Token
    #expect(counter.count == 1)
    #expect(token === token)
    #expect(counter.count == 1)
  }

  @Test func injectedUsesTheOverrideScopeOfTheSharedContainer() async throws {
    // The only test that touches `Container.shared`: it registers nothing there, and reads it only
    // inside an override scope, which no other test can see.
    try await withOverrides {
      $0.register(\.injectionGreeting) { "from the override scope" }
    } operation: { () async throws in
      let screen = InjectedScreen()
      #expect(screen.greeting == "from the override scope")
      #expect(screen.lazyGreeting == "from the override scope")
    }
  }

  @Test func injectedWithAnExplicitContainerStillSeesOverrides() async throws {
    let container = Container()
    container.register(\.injectionGreeting) { "registered" }
    await withOverrides {
      $0.register(\.injectionGreeting) { "overridden" }
    } operation: { () async in
      @Injected(\.injectionGreeting, container: container) var greeting: String
      #expect(greeting == "overridden")
    }
  }

  // MARK: @LazyInjected

  @Test func lazyInjectedResolvesOnFirstAccessOnly() async throws {
    let (container, counter) = counting()
    @LazyInjected(\.injectionToken, container: container) var token: Token
    #expect(counter.count == 0)
    let first = token
    #expect(counter.count == 1)
    #expect(token === first)
    #expect(counter.count == 1)
  }

  @Test func lazyInjectedRemembersTheOverrideScopeOfItsInitialization() async throws {
    let container = Container()
    let holder = await withOverrides {
      $0.register(\.injectionGreeting) { "remembered" }
    } operation: { () async in
      LazyHolder(container: container)
    }
    #expect(holder.greeting == "remembered")
    #expect(LazyHolder(container: container).greeting == "default greeting")
  }

  // MARK: Lazy

  @Test func lazyDefersConstructionAndKeepsTheValue() async throws {
    let (container, counter) = counting()
    let deferred = try container[\.injectionDeferred]
    #expect(counter.count == 0)
    let first = try deferred.token.value
    #expect(counter.count == 1)
    #expect(try deferred.token.value === first)
    #expect(counter.count == 1)
  }

  @Test func lazyReportsErrorsWhenRead() async throws {
    let container = Container()
    let deferred = try container[\.injectionDeferred]
    let error = #expect(throws: ResolutionError.self) { try deferred.token.value }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.injectionToken")
    container.register(\.injectionToken) { Token("late") }
    #expect(try deferred.token.value.label == "late")
  }

  @Test func concurrentFirstReadsOfALazyResolveOnce() async throws {
    let container = Container()
    let counter = Counter()
    let arrivals = Counter()
    container.register(\.injectionToken) { () -> Token in
      counter.increment()
      // Blocks its thread of the pool, bounded (see `holdUntil`): the creation stays under way
      // while the other tasks arrive, which a synchronous factory cannot do by suspending.
      holdUntil(arrivals)
      return Token("lazy")
    }
    let lazy = container.lazy(\.injectionToken)
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<200 {
        group.addTask {
          arrivals.increment()
          return ObjectIdentifier(try lazy.value)
        }
      }
      return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
    }
    #expect(identities.count == 1)
    #expect(counter.count == 1)
  }

  @Test func lazyResolvesFromTheContainerThatMadeIt() async throws {
    let parent = Container()
    parent.register(\.injectionToken) { Token("parent") }
    let child = parent.makeChild()
    child.register(\.injectionToken) { Token("child") }
    #expect(try child[\.injectionDeferred].token.value.label == "child")
    #expect(try parent[\.injectionDeferred].token.value.label == "parent")
  }

  @Test func lazyMadeInAnOverrideScopeReadsFromItLater() async throws {
    let container = Container()
    let deferred = try await withOverrides {
      $0.register(\.injectionToken) { Token("scoped") }
    } operation: { () async throws in
      try container[\.injectionDeferred]
    }
    #expect(try deferred.token.value.label == "scoped")
  }

  @Test func lazyMadeOutsideAnyScopeDoesNotKeepAScopesOverrideAfterTheScope() async throws {
    // A long-lived object (say an app singleton) holds a Lazy made outside any scope; a test reads
    // it inside its override scope. Documented: a Lazy resolves from the container "and override
    // scope" it was made in, and nothing persists after a scope.
    let container = Container()
    container.register(\.injectionToken) { Token("real") }
    let deferred = try container[\.injectionDeferred]
    let inside = try await withOverrides {
      $0.register(\.injectionToken) { Token("fake") }
    } operation: { () async throws in
      try deferred.token.value
    }
    #expect(inside.label == "real")
    #expect(try deferred.token.value.label == "real", "an override leaked out of its scope through a Lazy")
  }

  // MARK: Provider

  @Test func providerResolvesEachTimeHonouringTheScope() async throws {
    let (unique, uniqueCounter) = counting(.unique)
    let factory = try unique[\.injectionFactory]
    #expect(uniqueCounter.count == 0)
    #expect(try factory.tokens.get() !== factory.tokens.get())
    #expect(uniqueCounter.count == 2)

    let (singleton, singletonCounter) = counting(.singleton)
    let shared = try singleton[\.injectionFactory]
    #expect(try shared.tokens.get() === shared.tokens.get())
    #expect(try shared.tokens.get() === singleton[\.injectionToken])
    #expect(singletonCounter.count == 1)
  }

  @Test func providerFromTheContainerItself() async throws {
    let (container, counter) = counting()
    let provider = container.provider(\.injectionToken)
    #expect(counter.count == 0)
    #expect(try provider.get().label == "made 1")
    #expect(try provider.get().label == "made 2")
  }

  @Test func providerSeesRegistrationsMadeAfterIt() async throws {
    let container = Container()
    let provider = container.provider(\.injectionToken)
    #expect(throws: ResolutionError.self) { try provider.get() }
    container.register(\.injectionToken) { Token("now") }
    #expect(try provider.get().label == "now")
  }

  @Test func injectedStopsWithTheFullErrorWhenItCannotResolve() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      @Injected(\.injectionToken, container: Container()) var token: Token
      _ = token
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("required key \\.injectionToken (Token) was never provided."))
    #expect(output.contains("declared at KnapsackTests/InjectionTests.swift:"))
    #expect(output.contains("fix: register it"))
  }

  /// The message says which container the property used, since `Container.shared` is easy to
  /// resolve from by mistake when the app built a container of its own.
  @Test func injectedFailuresSayWhichContainerTheyUsed() async throws {
    let shared = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      @Injected(\.injectionToken) var token: Token
      _ = token
    }
    let sharedOutput = String(decoding: shared?.standardErrorContent ?? [], as: UTF8.self)
    #expect(sharedOutput.contains("from Container.current, which is Container.shared here"), "\(sharedOutput)")
    #expect(sharedOutput.contains("pass `container:`, or make this instance inside withContainer(_:)"))
    let task = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      withContainer(Container()) {
        @LazyInjected(\.injectionToken) var token: Token
        _ = token
      }
    }
    let taskOutput = String(decoding: task?.standardErrorContent ?? [], as: UTF8.self)
    #expect(taskOutput.contains("from Container.current, the task's container"), "\(taskOutput)")
    let given = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      @Injected(\.injectionToken, container: Container()) var token: Token
      _ = token
    }
    let givenOutput = String(decoding: given?.standardErrorContent ?? [], as: UTF8.self)
    #expect(givenOutput.contains("from the container passed as `container:`"), "\(givenOutput)")
  }

  @Test func injectedFailuresNameThePropertysOwnFileAndLine() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @Injected(\.injectionToken, container: Container()) var token: Token
      }
      _ = Screen().token
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    let propertyLine = #line - 7
    #expect(
      output.contains("@Injected at KnapsackTests/InjectionTests.swift:\(propertyLine) could not resolve"), "\(output)")
  }

  /// A type or key the property asks for is asked for at the property's line, not in the library.
  @Test func injectionFailuresSayTheDependencyWasAskedForAtTheProperty() async throws {
    // (An exit test's body is compiled apart: its lines are all the line of its `#expect`.)
    let eagerLine = #line + 1
    let eager = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @Injected(type: Token.self, name: "missing", container: Container()) var token: Token
      }
      _ = Screen().token
    }
    let lazyLine = #line + 1
    let lazy = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @LazyInjected(type: Token.self, name: "missing", container: Container()) var token: Token
      }
      _ = Screen().token
    }
    let keyLine = #line + 1
    let key = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @Injected(\.injectionToken, container: Container()) var token: Token
      }
      _ = Screen().token
    }
    let lazyKeyLine = #line + 1
    let lazyKey = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @LazyInjected(\.injectionToken, container: Container()) var token: Token
      }
      _ = Screen().token
    }
    for (result, line) in [(eager, eagerLine), (lazy, lazyLine), (key, keyLine), (lazyKey, lazyKeyLine)] {
      let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(output.contains("asked for at KnapsackTests/InjectionTests.swift:\(line)"), "\(output)")
      #expect(!output.contains("asked for at Knapsack/"), "\(output)")
    }
  }

  /// A dry run makes the model; its `@Injected` resolves from the container being validated
  /// (through the run's copy), not from `Container.shared`, which registers nothing here.
  @Test @MainActor func validationResolvesInjectedPropertiesFromTheValidatedContainer() async throws {
    let container = Container()
    container.register(\.injectionToken) { Token("registered") }
    let report = await container.validate(including: [\Dependencies.injectionModel])
    #expect(report.isValid, "\(report)")
    let graph = await container.graph(including: [\Dependencies.injectionModel])
    #expect(graph.edges.contains(.init(from: "\\.injectionModel", to: "\\.injectionToken")), "\(graph.edges)")
  }

  @Test func lazyInjectedFailuresNameThePropertysOwnFileAndLine() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      struct Screen {
        @LazyInjected(\.injectionToken, container: Container()) var token: Token
      }
      let screen = Screen()
      _ = screen.token
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    let propertyLine = #line - 8
    #expect(
      output.contains("@LazyInjected at KnapsackTests/InjectionTests.swift:\(propertyLine) could not resolve"),
      "\(output)")
  }
}
