import Knapsack
import Synchronization
import Testing

/// Stands for something with asynchronous set-up, such as a database connection.
final class AsyncDatabase: Sendable {
  let name: String
  init(name: String) { self.name = name }

  static func open(_ name: String) async throws -> AsyncDatabase {
    // A real suspension point: other tasks run while this one waits.
    try await Task.sleep(for: .milliseconds(5))
    return AsyncDatabase(name: name)
  }
}

extension Dependencies {
  var asyncDatabase: AsyncKey<AsyncDatabase> {
    AsyncKey { _ in try await AsyncDatabase.open("default") }.scope(.singleton)
  }
  var asyncUnique: AsyncKey<AsyncDatabase> { AsyncKey { r in AsyncDatabase(name: "unique \(try r[\.keyNumber])") } }
  var asyncRequired: AsyncKey<AsyncDatabase> { .required() }
  /// A default factory that needs no other dependency, as a `Key`'s may.
  var asyncPlain: AsyncKey<AsyncDatabase> { AsyncKey { try await AsyncDatabase.open("plain") } }
  var asyncDependent: AsyncKey<String> {
    AsyncKey { r in "uses \(try await r.resolve(\.asyncDatabase).name)" }
  }
  var asyncPair: AsyncKey<[Token]> {
    AsyncKey { r in
      let first = try r[\.scopeLeaf]
      try await Task.sleep(for: .milliseconds(1))
      return [first, try r[\.scopeLeaf]]
    }
  }
  var asyncNeedsRequired: AsyncKey<String> {
    AsyncKey { r in "uses \(try await r.resolve(\.asyncRequired).name)" }
  }
}

@Suite struct AsyncTests {
  @Test func factoriesThatNeedNoOtherDependencyAreAwaited() async throws {
    let container = Container()
    #expect(try await container.resolve(\.asyncPlain).name == "plain")
    container.register(\.asyncRequired, scope: .singleton) { try await AsyncDatabase.open("registered") }
    let registered = try await container.resolve(\.asyncRequired)
    #expect(registered.name == "registered")
    #expect(try await container.resolve(\.asyncRequired) === registered)
  }

  @Test func defaultAsyncFactoryResolves() async throws {
    let container = Container()
    let database = try await container.resolve(\.asyncDatabase)
    #expect(database.name == "default")
    #expect(try await container.resolve(\.asyncDatabase) === database)
  }

  /// The subscript of an asynchronous key awaits, on a container and on a factory's resolver.
  @Test func anAsyncKeyResolvesThroughItsSubscript() async throws {
    let container = Container()
    let database = try await container[\.asyncDatabase]
    #expect(try await container.resolve(\.asyncDatabase) === database)
    container.register(\.asyncUnique) { r in AsyncDatabase(name: "via \(try await r[\.asyncDatabase].name)") }
    #expect(try await container[\.asyncUnique].name == "via default")
  }

  @Test func registeredAsyncFactoryReplacesTheDefault() async throws {
    let container = Container()
    container.register(\.asyncDatabase) { r async throws in
      try await AsyncDatabase.open("registered \(try r[\.keyNumber])")
    }
    #expect(try await container.resolve(\.asyncDatabase).name == "registered 42")
  }

  @Test func registrationWithoutScopeKeepsTheKeysSingletonScope() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.asyncDatabase) { _ async throws in
      counter.increment()
      return try await AsyncDatabase.open("counted")
    }
    let first = try await container.resolve(\.asyncDatabase)
    #expect(try await container.resolve(\.asyncDatabase) === first)
    #expect(counter.count == 1)
  }

  @Test func uniqueAsyncKeyMakesNewInstancesAndUsesSyncKeys() async throws {
    let container = Container()
    let first = try await container.resolve(\.asyncUnique)
    let second = try await container.resolve(\.asyncUnique)
    #expect(first !== second)
    #expect(first.name == "unique 42")
  }

  @Test func asyncFactoriesResolveOtherAsyncKeys() async throws {
    let container = Container()
    #expect(try await container.resolve(\.asyncDependent) == "uses default")
  }

  @Test func thousandConcurrentFirstResolutionsMakeOneAsyncSingleton() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.asyncDatabase, scope: .singleton) { _ async throws in
      counter.increment()
      // Suspends while the other 999 tasks arrive.
      try await Task.sleep(for: .milliseconds(20))
      await Task.yield()
      return AsyncDatabase(name: "once")
    }
    let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
      for _ in 0..<1_000 {
        group.addTask { ObjectIdentifier(try await container.resolve(\.asyncDatabase)) }
      }
      var identities: [ObjectIdentifier] = []
      for try await identity in group { identities.append(identity) }
      return identities
    }
    #expect(counter.count == 1)
    #expect(identities.count == 1_000)
    #expect(Set(identities).count == 1)
  }

  @Test func failedAsyncSingletonCreationIsNotCached() async throws {
    let container = Container()
    let attempts = Counter()
    container.register(\.asyncDatabase, scope: .singleton) { _ async throws in
      let attempt = attempts.increment()
      try await Task.sleep(for: .milliseconds(1))
      if attempt == 1 { throw PlannedFailure("connection refused") }
      return AsyncDatabase(name: "attempt \(attempt)")
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.asyncDatabase) }
    #expect(error?.kind == .factoryFailed)
    #expect(error?.underlying == "connection refused")
    #expect(error?.dependency.name == "\\.asyncDatabase")
    let database = try await container.resolve(\.asyncDatabase)
    #expect(database.name == "attempt 2")
    #expect(try await container.resolve(\.asyncDatabase) === database)
    #expect(attempts.count == 2)
  }

  @Test func waitersRetryAfterAConcurrentCreationFails() async throws {
    let container = Container()
    let attempts = Counter()
    container.register(\.asyncDatabase, scope: .singleton) { _ async throws in
      let attempt = attempts.increment()
      try await Task.sleep(for: .milliseconds(10))
      if attempt == 1 { throw PlannedFailure("first creation fails") }
      return AsyncDatabase(name: "attempt \(attempt)")
    }
    let outcomes = await withTaskGroup(of: Outcome.self) { group in
      for _ in 0..<100 {
        group.addTask {
          do {
            return .value(ObjectIdentifier(try await container.resolve(\.asyncDatabase)))
          } catch {
            return .failure(error)
          }
        }
      }
      return await group.reduce(into: [Outcome]()) { $0.append($1) }
    }
    let failures = outcomes.compactMap(\.error)
    let values = Set(outcomes.compactMap { if case .value(let id) = $0 { id } else { nil } })
    // The failed creation fails only the task that ran it; the others retry and share one instance.
    #expect(failures.count == 1)
    #expect(values.count == 1)
    #expect(attempts.count == 2)
    let final = try await container.resolve(\.asyncDatabase)
    #expect(values == [ObjectIdentifier(final)])
  }

  @Test func cachedAsyncKeyResets() async throws {
    let container = Container()
    let counter = Counter()
    container.register(\.asyncDatabase, scope: .cached) { _ async throws in
      AsyncDatabase(name: "cached \(counter.increment())")
    }
    let first = try await container.resolve(\.asyncDatabase)
    #expect(try await container.resolve(\.asyncDatabase) === first)
    container.resetCached()
    let second = try await container.resolve(\.asyncDatabase)
    #expect(second !== first)
    #expect(second.name == "cached 2")
  }

  @Test func requiredAsyncKeyThrowsTheDocumentedError() async throws {
    let container = Container()
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.asyncNeedsRequired) }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(error?.dependency.name == "\\.asyncRequired")
    #expect(error?.path.map(\.name) == ["\\.asyncNeedsRequired", "\\.asyncRequired"])
    #expect(error?.dependency.location?.fileID == "KnapsackTests/AsyncTests.swift")
  }

  @Test func asyncSingletonOfTheParentIsSharedWithChildren() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let fromChild = try await child.resolve(\.asyncDatabase)
    #expect(try await parent.resolve(\.asyncDatabase) === fromChild)
  }

  @Test func asyncOverridesAreTaskLocal() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.asyncRequired) { _ async throws in AsyncDatabase(name: "fake") }
    } operation: { () async throws in
      #expect(try await container.resolve(\.asyncNeedsRequired) == "uses fake")
    }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.asyncRequired) }
  }

  @Test func cancelledCreationIsNotCachedAndDoesNotStrandWaiters() async throws {
    let container = Container()
    let attempts = Counter()
    let started = Counter()
    container.register(\.asyncDatabase, scope: .singleton) { _ async throws in
      if attempts.increment() == 1 {
        started.increment()
        // Long, but cancellable: the test cancels it.
        try await Task.sleep(for: .seconds(600))
      }
      return AsyncDatabase(name: "after cancellation")
    }
    let first = Task { try await container.resolve(\.asyncDatabase) }
    #expect(await waitUntil(timeout: hangBound) { started.count == 1 })
    // A second resolution arrives while the first is still creating, then the first is cancelled.
    let waiter = Task { try await container.resolve(\.asyncDatabase) }
    // Gives the waiter time to start waiting (it passes either way; this only makes the
    // waiting case the likely one).
    try await Task.sleep(for: .milliseconds(20))
    first.cancel()
    let firstResult = await first.result
    #expect(throws: (any Error).self) { try firstResult.get() }
    let outcome = Collected<String>()
    Task {
      outcome.append((try? await waiter.value.name) ?? "failed")
      outcome.append((try? await container.resolve(\.asyncDatabase).name) ?? "failed")
    }
    #expect(
      await waitUntil(timeout: hangBound) { outcome.all.count == 2 }, "resolution hung after a cancelled creation")
    #expect(outcome.all == ["after cancellation", "after cancellation"])
    #expect(attempts.count == 2)
  }

  @Test func graphScopeIsSharedWithinOneAsyncResolution() async throws {
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("graph") }
    let pair = try await container.resolve(\.asyncPair)
    #expect(pair[0] === pair[1])
    let other = try await container.resolve(\.asyncPair)
    #expect(other[0] !== pair[0])
  }

  @Test func anAsyncResolutionLetsGoOfItsGraphScopedInstancesWhenItEnds() async throws {
    // An asynchronous resolution's graph store is released, not kept by a thread for the next
    // resolution: it must let go of what it holds as it goes.
    let container = Container()
    container.register(\.scopeLeaf, scope: .graph) { Token("graph") }
    weak var probe: Token?
    do {
      let pair = try await container.resolve(\.asyncPair)
      probe = pair[0]
      #expect(probe != nil)
    }
    #expect(await freedSoon { probe == nil }, "the asynchronous resolution's graph store kept its instance alive")
  }

  @Test func asyncSingletonIsCreatedOnceWithinAnOverrideScope() async throws {
    let container = Container()
    let counter = Counter()
    try await withOverrides {
      $0.register(\.asyncDatabase, scope: .singleton) { _ async throws in
        counter.increment()
        try await Task.sleep(for: .milliseconds(10))
        return AsyncDatabase(name: "scoped")
      }
    } operation: { () async throws in
      let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
        for _ in 0..<200 { group.addTask { ObjectIdentifier(try await container.resolve(\.asyncDatabase)) } }
        return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
      }
      #expect(identities.count == 1)
    }
    #expect(counter.count == 1)
    #expect(try await container.resolve(\.asyncDatabase).name == "default")
  }
}
