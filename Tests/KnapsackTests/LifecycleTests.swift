import Foundation
import Knapsack
import Synchronization
import Testing

/// An asynchronously closed resource, such as a database connection.
actor LcDatabase: Disposable {
  private let log: Collected<String>
  private(set) var isClosed = false
  init(log: Collected<String>) { self.log = log }

  func dispose() async throws {
    // Suspend, as real asynchronous closing would, before recording.
    await Task.yield()
    isClosed = true
    log.append("database")
  }
}

/// A service that writes to the database: made after it, so disposed before it.
final class LcSyncService: Disposable {
  let database: LcDatabase
  private let log: Collected<String>
  init(database: LcDatabase, log: Collected<String>) {
    self.database = database
    self.log = log
  }
  func dispose() async throws { log.append("sync") }
}

/// Records its own label when disposed, and optionally fails.
final class LcResource: Disposable {
  let label: String
  private let log: Collected<String>
  private let failure: String?
  let disposals = Counter()
  init(_ label: String, log: Collected<String>, failing failure: String? = nil) {
    self.label = label
    self.log = log
    self.failure = failure
  }
  func dispose() async throws {
    disposals.increment()
    log.append(label)
    if let failure { throw PlannedFailure(failure) }
  }
}

/// A resource whose disposal waits until the test opens it: a test sees what happens while a
/// disposal runs.
final class LcGatedResource: Disposable {
  private let state = Locked<(started: Bool, isOpen: Bool, closed: Bool, waiter: CheckedContinuation<Void, Never>?)>(
    (false, false, false, nil))
  var hasStarted: Bool { state.withLock { $0.started } }
  var isClosed: Bool { state.withLock { $0.closed } }

  func dispose() async throws {
    await withCheckedContinuation { waiter in
      let goOn = state.withLock { state -> Bool in
        state.started = true
        if !state.isOpen { state.waiter = waiter }
        return state.isOpen
      }
      if goOn { waiter.resume() }
    }
    state.withLock { $0.closed = true }
  }

  /// Lets the disposal finish.
  func open() {
    state.withLock { state in
      state.isOpen = true
      state.waiter?.resume()
      state.waiter = nil
    }
  }

  /// Waits, up to 10 seconds, until the disposal has started.
  func waitUntilStarted() async {
    for _ in 0..<10_000 where !hasStarted { try? await Task.sleep(for: .milliseconds(1)) }
  }
}

/// A value that does not conform to `Disposable`; its registration closes it.
final class LcFileHandle: Sendable {
  let name: String
  init(_ name: String) { self.name = name }
}

extension Dependencies {
  var lcDatabase: AsyncKey<LcDatabase> { .required() }
  var lcSync: AsyncKey<LcSyncService> { .required() }
  var lcSession: Key<LcResource> { .required() }
  var lcA: Key<LcResource> { .required() }
  var lcB: Key<LcResource> { .required() }
  var lcC: Key<LcResource> { .required() }
  var lcFile: Key<LcFileHandle> { .required() }
  var lcNumber: Key<Int> { Key { 42 } }
  var lcPerUser: ArgumentKey<Int, LcResource> { .required() }
  var lcTyped: Key<String> { .required() }
  var lcUnrelatedResource: Key<Resource> { .required() }
  var lcSessionResource: Key<Resource> { .required() }
  var lcGated: Key<LcGatedResource> { .required() }
  var lcDefaultDatabase: Key<Resource> { Key { Resource("default database", log: Collected()) }.scope(.singleton) }
}

final class LcTypedService: Sendable {}

@Suite struct LifecycleTests {
  // MARK: Order

  @Test func disposesInReverseOrderWithAnAsyncSingletonAndASessionChild() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcDatabase, scope: .singleton) { _ async throws in LcDatabase(log: log) }
    container.register(\.lcSync, scope: .singleton) { r async throws in
      LcSyncService(database: try await r.resolve(\.lcDatabase), log: log)
    }
    let session = container.makeChild()
    session.register(\.lcSession, scope: .singleton) { LcResource("session", log: log) }

    let sync = try await container.resolve(\.lcSync)
    _ = try session[\.lcSession]
    #expect(log.all.isEmpty)

    try await container.dispose()
    #expect(log.all == ["session", "sync", "database"])
    #expect(await sync.database.isClosed)
    #expect(container.isDisposed)
    #expect(session.isDisposed)
  }

  @Test func orderIsCreationOrderNotRegistrationOrder() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    container.register(\.lcB, scope: .singleton) { LcResource("b", log: log) }
    container.register(\.lcC, scope: .singleton) { LcResource("c", log: log) }
    _ = try container[\.lcC]
    _ = try container[\.lcA]
    _ = try container[\.lcB]
    try await container.dispose()
    #expect(log.all == ["b", "a", "c"])
  }

  @Test func dependentsAreDisposedBeforeTheirDependencies() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    container.register(\.lcB, scope: .singleton) { r in
      _ = try r[\.lcA]
      return LcResource("b uses a", log: log)
    }
    _ = try container[\.lcB]
    try await container.dispose()
    #expect(log.all == ["b uses a", "a"])
  }

  @Test func childrenAreDisposedFirstMostRecentFirst() async throws {
    let log = Collected<String>()
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("parent", log: log) }
    let first = parent.makeChild()
    first.register(\.lcSession, scope: .singleton) { LcResource("first session", log: log) }
    let second = parent.makeChild()
    second.register(\.lcSession, scope: .singleton) { LcResource("second session", log: log) }
    let grandchild = first.makeChild()
    grandchild.register(\.lcC, scope: .singleton) { LcResource("grandchild", log: log) }
    _ = try parent[\.lcA]
    _ = try second[\.lcSession]
    _ = try first[\.lcSession]
    _ = try grandchild[\.lcC]
    try await parent.dispose()
    #expect(log.all == ["second session", "grandchild", "first session", "parent"])
  }

  // MARK: What is disposed

  @Test func perRegistrationDisposeClosureClosesNonDisposableValues() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcFile, scope: .singleton, dispose: { file in log.append("closed \(file.name)") }) {
      LcFileHandle("export.csv")
    }
    container.register(type: LcTypedService.self, scope: .singleton, dispose: { _ in log.append("closed typed") }) {
      LcTypedService()
    }
    _ = try container[\.lcFile]
    _ = try container.resolve(type: LcTypedService.self)
    try await container.dispose()
    #expect(log.all == ["closed typed", "closed export.csv"])
  }

  @Test func asyncRegistrationDisposeClosureRuns() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcDatabase, scope: .singleton, dispose: { _ in log.append("closure") }) { _ async throws in
      LcDatabase(log: log)
    }
    _ = try await container.resolve(\.lcDatabase)
    try await container.dispose()
    #expect(log.all.filter { $0 == "closure" }.count == 1)
  }

  @Test func anInstanceWithBothAClosureAndConformanceIsDisposedOnce() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton, dispose: { _ in log.append("closure") }) {
      LcResource("conformance", log: log)
    }
    _ = try container[\.lcA]
    try await container.dispose()
    // Documented: the closure is used instead of `Disposable.dispose()`.
    #expect(log.all == ["closure"])
  }

  @Test func cachedInstancesAreDisposedButUniqueGraphAndWeakAreNot() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .cached) { LcResource("cached", log: log) }
    container.register(\.lcB, scope: .unique) { LcResource("unique", log: log) }
    container.register(\.lcC, scope: .graph) { LcResource("graph", log: log) }
    container.register(\.lcSession, scope: .weak) { LcResource("weak", log: log) }
    let held = (try container[\.lcA], try container[\.lcB], try container[\.lcC], try container[\.lcSession])
    try await container.dispose()
    #expect(log.all == ["cached"])
    withExtendedLifetime(held) {}
  }

  @Test func neverResolvedInstancesAreNotMade() async throws {
    let made = Counter()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { () -> LcResource in
      made.increment()
      return LcResource("a", log: Collected())
    }
    try await container.dispose()
    #expect(made.count == 0)
  }

  @Test func aFailedAsyncCreationLeavesNothingToDispose() async throws {
    let log = Collected<String>()
    let attempts = Counter()
    let container = Container()
    container.register(\.lcDatabase, scope: .singleton) { _ async throws -> LcDatabase in
      if attempts.increment() == 1 { throw PlannedFailure("network down") }
      return LcDatabase(log: log)
    }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.lcDatabase) }
    let database = try await container.resolve(\.lcDatabase)
    try await container.dispose()
    #expect(attempts.count == 2)
    #expect(log.all == ["database"])
    #expect(await database.isClosed)
  }

  @Test func aDroppedChildIsSkipped() async throws {
    let log = Collected<String>()
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("parent", log: log) }
    do {
      let child = parent.makeChild()
      child.register(\.lcSession, scope: .singleton) { LcResource("dropped session", log: log) }
      _ = try child[\.lcSession]
    }
    _ = try parent[\.lcA]
    try await parent.dispose()
    // The dropped child is gone (its instances went with it); the parent's own are disposed.
    #expect(log.all.last == "parent")
    #expect(log.all.filter { $0 == "parent" }.count == 1)
  }

  @Test func disposingAChildLeavesTheParentAlone() async throws {
    let log = Collected<String>()
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("parent singleton", log: log) }
    let child = parent.makeChild()
    child.register(\.lcSession, scope: .singleton) { LcResource("session", log: log) }
    let shared = try child[\.lcA]
    _ = try child[\.lcSession]
    try await child.dispose()
    #expect(log.all == ["session"])
    #expect(!parent.isDisposed)
    #expect(try parent[\.lcA] === shared)
    // The parent later disposes only what is left: its own singleton.
    try await parent.dispose()
    #expect(log.all == ["session", "parent singleton"])
    #expect(shared.disposals.count == 1)
  }

  // MARK: Override scopes

  @Test func anOverrideScopeDisposesWhatItMadeWhenItEnds() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("container's", log: log) }
    let own = try container[\.lcA]
    let inside = try await withOverrides {
      $0.register(\.lcA, scope: .singleton) { LcResource("override", log: log) }
    } operation: {
      // An `await` makes this the asynchronous scope, the one that disposes (a synchronous
      // operation closure selects the synchronous overload, which cannot).
      await Task.yield()
      let made = try container[\.lcA]
      #expect(log.all.isEmpty, "nothing is disposed while the scope is open")
      return made
    }
    #expect(inside !== own)
    #expect(log.all == ["override"])
    #expect(inside.disposals.count == 1)
    // The container's own instance is untouched, and the container still works.
    #expect(own.disposals.count == 0)
    #expect(try container[\.lcA] === own)
    #expect(!container.isDisposed)
  }

  @Test func anOverrideScopeThatThrowsStillDisposesWhatItMade() async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Collected<LcResource>()
    await #expect(throws: PlannedFailure.self) {
      try await withOverrides {
        $0.register(\.lcA, scope: .singleton) { LcResource("override", log: log) }
      } operation: {
        await Task.yield()
        made.append(try container[\.lcA])
        throw PlannedFailure("test failed half-way")
      }
    }
    #expect(made.all.count == 1)
    #expect(log.all == ["override"], "an instance made inside a failed scope must not leak")
  }

  @Test func anOverrideScopeDisposesChildrenFirstInReverseOrder() async throws {
    // Several rounds, each with new containers, so that an order that depends on hashing shows.
    for round in 0..<20 {
      let log = Collected<String>()
      let parent = Container()
      let child = parent.makeChild()
      child.register(\.lcSession, scope: .singleton) { LcResource("session", log: log) }
      try await withOverrides {
        $0.register(\.lcA, scope: .singleton) { LcResource("first", log: log) }
        $0.register(\.lcB, scope: .singleton) { LcResource("second", log: log) }
      } operation: {
        await Task.yield()
        _ = try parent[\.lcA]
        _ = try parent[\.lcB]
        _ = try child[\.lcSession]
      }
      #expect(log.all == ["session", "second", "first"], "round \(round)")
      if log.all != ["session", "second", "first"] { break }
    }
  }

  @Test func aSingletonStillBeingMadeWhenDisposalStartsIsDisposedToo() async throws {
    let log = Collected<String>()
    let container = Container()
    let creating = Rendezvous(parties: 2)
    let disposeReturned = Locked(false)
    container.register(\.lcA, scope: .singleton) { () -> LcResource in
      creating.arriveAndWait()
      // Finish only once `dispose()` has returned. Bounded, in case disposal waits for this
      // creation (a valid fix): then the factory goes on after the deadline.
      let deadline = ContinuousClock.now + .seconds(1)
      while !disposeReturned.withLock({ $0 }), ContinuousClock.now < deadline { usleep(200) }
      return LcResource("made during disposal", log: log)
    }
    let outcome = Collected<String>()
    let resolving = ThreadGroup(count: 1) { _ in
      do {
        _ = try container[\.lcA]
        outcome.append("resolved")
      } catch let error as ResolutionError {
        outcome.append("\(error.kind)")
      } catch {
        outcome.append("\(error)")
      }
    }
    #expect(await creating.arrive(timeout: hangBound))
    try? await container.dispose()
    disposeReturned.withLock { $0 = true }
    #expect(await resolving.join())
    // Whether the resolution succeeded or reported the disposal, the instance must not leak.
    #expect(outcome.all.count == 1)
    let closed = await waitUntil(timeout: .seconds(2)) { log.all == ["made during disposal"] }
    #expect(closed, "outcome \(outcome.all), disposed \(log.all)")
  }

  @Test func aWaiterThatLooksAgainAfterDisposalBeganMakesNothing() async throws {
    // The first creation fails once disposal has begun; a resolution waiting for it then looks
    // again. Making the instance now would hand out one that disposal, already past its wait,
    // never closes: it is refused instead.
    let log = Collected<String>()
    let container = Container()
    let calls = Counter()
    let creating = Rendezvous(parties: 2)
    container.register(\.lcA, scope: .cached) { () -> LcResource in
      if calls.increment() == 1 {
        // Long bounds: they only end a hang, and a loaded machine may be slow to get here.
        creating.arriveAndWait(timeout: threadWaitBound)
        _ = waitUntilSync(timeout: threadWaitBound) { container.isDisposed }
        throw PlannedFailure("interrupted by disposal")
      }
      return LcResource("made after disposal began", log: log)
    }
    let outcomes = Collected<String>()
    let first = ThreadGroup(count: 1) { _ in outcomes.append(Self.outcome { try container[\.lcA] }) }
    #expect(await creating.arrive(timeout: hangBound))
    let waiter = ThreadGroup(count: 1) { _ in outcomes.append(Self.outcome { try container[\.lcA] }) }
    // Let the second resolution reach the wait for the first one's creation.
    try await Task.sleep(for: .milliseconds(50))
    try await container.dispose()
    #expect(await first.join())
    #expect(await waiter.join())
    #expect(outcomes.all.sorted() == ["containerDisposed", "factoryFailed"])
    #expect(calls.count == 1)
    #expect(log.all.isEmpty)
  }

  @Test func everyInstanceHandedOutWhileDisposalRunsIsDisposed() async throws {
    // Resolutions racing `dispose()` each get an instance that is disposed, or an error.
    for _ in 0..<20 {
      let log = Collected<String>()
      let container = Container()
      let next = Atomic<Int>(0)
      container.register(\.lcPerUser, scope: .singleton) { _, user in LcResource("user \(user)", log: log) }
      let stop = Atomic<Bool>(false)
      let handedOut = Collected<LcResource>()
      let resolving = ThreadGroup(count: 2) { _ in
        while !stop.load(ordering: .acquiring) {
          let user = next.add(1, ordering: .relaxed).newValue
          if let resource = try? container.resolve(\.lcPerUser, argument: user) { handedOut.append(resource) }
        }
      }
      try await Task.sleep(for: .milliseconds(Int.random(in: 1...3)))
      try await container.dispose()
      stop.store(true, ordering: .releasing)
      #expect(await resolving.join())
      let leaked = handedOut.all.filter { $0.disposals.count == 0 }
      #expect(leaked.isEmpty, "\(leaked.count) of \(handedOut.all.count) instances never disposed")
    }
  }

  private static func outcome(_ resolve: () throws -> LcResource) -> String {
    do {
      return try resolve().label
    } catch let error as ResolutionError {
      return "\(error.kind)"
    } catch {
      return "\(error)"
    }
  }

  // MARK: Exactly once

  @Test func hundredConcurrentDisposeCallsDisposeEachInstanceOnce() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    container.register(\.lcB, scope: .singleton) { LcResource("b", log: log) }
    container.register(\.lcDatabase, scope: .singleton) { _ async throws in LcDatabase(log: log) }
    let session = container.makeChild()
    session.register(\.lcSession, scope: .singleton) { LcResource("session", log: log) }
    let a = try container[\.lcA]
    _ = try await container.resolve(\.lcDatabase)
    let b = try container[\.lcB]
    let s = try session[\.lcSession]

    let finished = Counter()
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<100 {
        group.addTask {
          // Some callers dispose the child directly while others dispose the parent.
          if index % 10 == 0 { try? await session.dispose() } else { try? await container.dispose() }
          finished.increment()
        }
      }
    }
    #expect(finished.count == 100)
    #expect(a.disposals.count == 1)
    #expect(b.disposals.count == 1)
    #expect(s.disposals.count == 1)
    #expect(log.all.filter { $0 == "database" }.count == 1)
    #expect(log.all.count == 4)
    // The parent's own instances still go in reverse order of creation.
    #expect(log.all.filter { $0 != "session" } == ["b", "database", "a"])
  }

  @Test func everyConcurrentCallerWaitsForTheSameDisposal() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcDatabase, scope: .singleton) { _ async throws in LcDatabase(log: log) }
    let database = try await container.resolve(\.lcDatabase)
    let closedWhenReturned = Collected<Bool>()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<100 {
        group.addTask {
          try await container.dispose()
          closedWhenReturned.append(await database.isClosed)
        }
      }
      try await group.waitForAll()
    }
    #expect(closedWhenReturned.all.count == 100)
    #expect(closedWhenReturned.all.allSatisfy { $0 })
    #expect(log.all == ["database"])
  }

  @Test func disposingAgainDoesNothing() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    let a = try container[\.lcA]
    try await container.dispose()
    try await container.dispose()
    #expect(a.disposals.count == 1)
    #expect(log.all == ["a"])
  }

  @Test(arguments: [Scope.singleton, .cached])
  func anInstanceTwoSharedKeysReturnIsDisposedOnceWhereItWasMade(scope: Scope) async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    // \.lcB hands out \.lcA's instance (an alias); \.lcC is made between the two.
    container.register(\.lcC, scope: .singleton) { LcResource("c", log: log) }
    container.register(\.lcB, scope: scope) { r in try r[\.lcA] }
    let a = try container[\.lcA]
    _ = try container[\.lcC]
    #expect(try container[\.lcB] === a)
    container.resetCached()
    #expect(try container[\.lcB] === a)
    try await container.dispose()
    #expect(a.disposals.count == 1)
    #expect(log.all == ["c", "a"])
  }

  /// A reset lets go of what it drops: a cached instance the container disposes of is disposed
  /// then (in the background), not kept until the container is disposed, however often the
  /// cache is reset; the instance made after the reset is the container's to dispose.
  @Test func resettingTheCacheDisposesWhatItDrops() async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Counter()
    container.register(\.lcA, scope: .cached) { LcResource("a\(made.increment())", log: log) }
    let first = try container[\.lcA]
    container.resetCached()
    #expect(await waitUntil(timeout: hangBound) { first.disposals.count == 1 }, "the dropped instance was kept")
    let second = try container[\.lcA]
    #expect(second !== first)
    for _ in 0..<100 {
      _ = try container[\.lcA]
      container.resetCached()
    }
    #expect(await waitUntil(timeout: hangBound) { log.all.count == 101 }, "\(log.all.count) disposed")
    let last = try container[\.lcA]
    try await container.dispose()
    #expect(first.disposals.count == 1 && second.disposals.count == 1 && last.disposals.count == 1)
    #expect(log.all.count == 102)
  }

  /// Inside an override scope the scope's copy serves the resolutions: a reset there clears the
  /// copy's cached instances, and leaves alone the container's own, which other tasks (tests
  /// running in parallel) use.
  @Test func resettingTheCacheInsideAScopeLeavesTheContainersOwnInstancesAlone() async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Counter()
    container.register(\.lcA, scope: .cached) { LcResource("a\(made.increment())", log: log) }
    let outside = try container[\.lcA]
    let inside = try await withOverrides { _ in
    } operation: {
      let first = try container[\.lcA]
      #expect(first !== outside)
      container.resetCached()
      let second = try container[\.lcA]
      #expect(second !== first)
      return first
    }
    #expect(
      await waitUntil(timeout: hangBound) { inside.disposals.count == 1 }, "the scope's dropped instance was kept")
    #expect(try container[\.lcA] === outside)
    #expect(outside.disposals.count == 0)
    try await container.dispose()
    #expect(outside.disposals.count == 1)
  }

  @Test(arguments: [false, true])
  func aParentsInstanceAChildsKeyReturnsIsTheParentsToDispose(disposingTheChildFirst: Bool) async throws {
    let log = Collected<String>()
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    // \.lcC holds \.lcA: made after it, so disposed before it.
    parent.register(\.lcC, scope: .singleton) { r in LcResource("c (holds \(try r[\.lcA].label))", log: log) }
    let child = parent.makeChild()
    child.register(\.lcB, scope: .singleton) { r in try r[\.lcA] }
    let a = try child[\.lcB]
    _ = try child[\.lcC]
    if disposingTheChildFirst {
      // A session ends: the parent's instance stays open for the parent.
      try await child.dispose()
      #expect(a.disposals.count == 0)
    }
    try await parent.dispose()
    withExtendedLifetime(child) {}
    #expect(a.disposals.count == 1)
    #expect(log.all == ["c (holds a)", "a"])
  }

  @Test func anAliasWithADisposeClosureLeavesTheObjectToWhereItWasMade() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    container.register(\.lcB, scope: .singleton, dispose: { _ in log.append("alias closure") }) { r in try r[\.lcA] }
    _ = try container[\.lcB]
    try await container.dispose()
    #expect(log.all == ["a"])
  }

  // MARK: Errors

  @Test func errorsAreCollectedAndEveryInstanceIsStillDisposed() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: log) }
    container.register(\.lcB, scope: .singleton) { LcResource("b", log: log, failing: "disk full") }
    container.register(\.lcC, scope: .singleton) { LcResource("c", log: log, failing: "socket closed") }
    _ = try container[\.lcA]
    _ = try container[\.lcB]
    _ = try container[\.lcC]
    let error = await #expect(throws: DisposalError.self) { try await container.dispose() }
    #expect(log.all == ["c", "b", "a"])
    let failures = try #require(error?.failures)
    #expect(failures.map(\.dependency.name) == ["\\.lcC", "\\.lcB"])
    #expect(failures.map(\.error) == ["socket closed", "disk full"])
    #expect(failures.map(\.description) == ["\\.lcC: socket closed", "\\.lcB: disk full"])
    #expect(
      error?.description == """
        Knapsack: 2 instance(s) failed to dispose:
          \\.lcC: socket closed
          \\.lcB: disk full
        """)
  }

  /// A parent with an instance, and a session child whose instance fails to dispose; both made.
  private func parentWithAFailingSession(_ log: Collected<String>) throws -> (parent: Container, child: Container) {
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("parent", log: log) }
    let child = parent.makeChild()
    child.register(\.lcSession, scope: .singleton) { LcResource("session", log: log, failing: "token revoked") }
    _ = try parent[\.lcA]
    _ = try child[\.lcSession]
    return (parent, child)
  }

  @Test func aChildsDisposalErrorsReachTheParentsCaller() async throws {
    let log = Collected<String>()
    let (parent, child) = try parentWithAFailingSession(log)
    let error = await #expect(throws: DisposalError.self) { try await parent.dispose() }
    // The session was alive until now (a parent does not keep its children).
    withExtendedLifetime(child) {}
    #expect(error?.failures.map(\.description) == ["\\.lcSession: token revoked"])
    #expect(log.all == ["session", "parent"])
  }

  @Test func aChildDisposedEarlierIsNotReportedAgainByItsParent() async throws {
    let log = Collected<String>()
    let (parent, child) = try parentWithAFailingSession(log)
    // Sign-out: the session's caller handles its failure.
    let signOut = await #expect(throws: DisposalError.self) { try await child.dispose() }
    #expect(signOut?.failures.map(\.description) == ["\\.lcSession: token revoked"])
    // Shut-down: the parent's caller is not handed the session's failure again.
    try await parent.dispose()
    #expect(log.all == ["session", "parent"])
  }

  @Test func aDisposeClosureErrorIsReported() async throws {
    let container = Container()
    container.register(\.lcFile, scope: .singleton, dispose: { _ in throw PlannedFailure("read-only volume") }) {
      LcFileHandle("log.txt")
    }
    _ = try container[\.lcFile]
    let error = await #expect(throws: DisposalError.self) { try await container.dispose() }
    #expect(error?.failures.map(\.description) == ["\\.lcFile: read-only volume"])
  }

  @Test func concurrentCallersAllSeeTheErrors() async throws {
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: Collected(), failing: "stuck") }
    let a = try container[\.lcA]
    let errors = Collected<String>()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<100 {
        group.addTask {
          do {
            try await container.dispose()
          } catch {
            errors.append("\(error)")
          }
        }
      }
    }
    #expect(a.disposals.count == 1)
    #expect(errors.all.count == 100)
    #expect(Set(errors.all).count == 1)
  }

  // MARK: After disposal

  @Test func resolvingFromADisposedContainerIsAClearError() async throws {
    let container = Container()
    container.register(\.lcA, scope: .singleton) { LcResource("a", log: Collected()) }
    container.register(type: LcTypedService.self) { LcTypedService() }
    container.register(\.lcDatabase, scope: .singleton) { _ async throws in LcDatabase(log: Collected()) }
    _ = try container[\.lcA]
    _ = try container[\.lcA]
    try await container.dispose()

    let singleton = #expect(throws: ResolutionError.self) { try container[\.lcA] }
    #expect(singleton?.kind == .containerDisposed)
    #expect(singleton?.dependency.name == "\\.lcA")
    #expect(singleton?.description.contains("the container was disposed") == true)
    let byDefault = #expect(throws: ResolutionError.self) { try container[\.lcNumber] }
    #expect(byDefault?.kind == .containerDisposed)
    let typed = #expect(throws: ResolutionError.self) { try container.resolve(type: LcTypedService.self) }
    #expect(typed?.kind == .containerDisposed)
    let async = await #expect(throws: ResolutionError.self) { try await container.resolve(\.lcDatabase) }
    #expect(async?.kind == .containerDisposed)
  }

  @Test func resolvingFromAChildOfADisposedContainerIsAClearError() async throws {
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("a", log: Collected()) }
    let child = parent.makeChild()
    child.register(\.lcSession) { LcResource("session", log: Collected()) }
    _ = try child[\.lcA]
    try await parent.dispose()
    for container in [child, child.makeChild()] {
      #expect(container.isDisposed)
      let inherited = #expect(throws: ResolutionError.self) { try container[\.lcA] }
      #expect(inherited?.kind == .containerDisposed)
      let own = #expect(throws: ResolutionError.self) { try container[\.lcSession] }
      #expect(own?.kind == .containerDisposed)
    }
  }

  @Test func aDisposedChildIsAnErrorButItsParentStillWorks() async throws {
    let parent = Container()
    parent.register(\.lcA, scope: .singleton) { LcResource("a", log: Collected()) }
    let child = parent.makeChild()
    try await child.dispose()
    let error = #expect(throws: ResolutionError.self) { try child[\.lcA] }
    #expect(error?.kind == .containerDisposed)
    #expect(try parent[\.lcA].label == "a")
    #expect(!parent.isDisposed)
  }

  @Test func aLiveContainerIsNotDisposed() async throws {
    let container = Container()
    #expect(!container.isDisposed)
    #expect(!container.makeChild().isDisposed)
    #expect(try container[\.lcNumber] == 42)
  }

  // MARK: Decorators

  @Test(arguments: [Scope.singleton, .cached])
  func whatTheFactoryMadeIsDisposedWhenADecoratorOfItThrows(scope: Scope) async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA, scope: scope) { LcResource("made", log: log) }
    let attempts = Counter()
    container.decorate(\.lcA) { _, resource in
      if attempts.increment() == 1 { throw PlannedFailure("decorator") }
      return resource
    }
    #expect(throws: ResolutionError.self) { try container[\.lcA] }
    // Not cached: the next resolution makes and decorates a new one.
    #expect(try container[\.lcA].label == "made")
    try await container.dispose()
    #expect(log.all == ["made", "made"])
  }

  @Test func anAsynchronousDecoratorThatThrowsLeavesTheFactorysValueToTheContainer() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcDatabase, scope: .singleton) { _ async throws in LcDatabase(log: log) }
    container.decorate(\.lcDatabase) { _, _ async throws -> LcDatabase in throw PlannedFailure("decorator") }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.lcDatabase) }
    try await container.dispose()
    #expect(log.all == ["database"])
  }

  @Test func aUniqueValueWhoseDecoratorThrowsIsNotTheContainers() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lcA) { LcResource("unique", log: log) }
    container.decorate(\.lcA) { _, _ -> LcResource in throw PlannedFailure("decorator") }
    #expect(throws: ResolutionError.self) { try container[\.lcA] }
    try await container.dispose()
    #expect(log.all.isEmpty)
  }

  // MARK: dispose() inside an override scope

  @Test func disposeInsideAnOverrideScopeClosesWhatTheContainerHandedOutThere() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.containerResource, scope: .singleton) { Resource("a", log: log) }
    let made = try await withOverrides {
      $0.register(\.containerOtherResource, scope: .cached) { Resource("b, overridden", log: log) }
    } operation: {
      (try container[\.containerResource], try container[\.containerOtherResource], try container[\.lcDefaultDatabase])
    }
    // Made outside the scope: the container's own.
    let outside = try container[\.containerResource]
    let inScope = try await withOverrides {
      $0.register(\.lcUnrelatedResource) { Resource("unrelated", log: log) }
    } operation: { () async throws -> [Resource] in
      let a = try container[\.containerResource]
      let database = try container[\.lcDefaultDatabase]
      let session = container.makeChild()
      session.register(\.lcSessionResource, scope: .singleton) { Resource("session", log: log) }
      let own = try session[\.lcSessionResource]
      try await container.dispose()
      #expect(
        [a, database, own, outside].allSatisfy { $0.closeCount == 1 }, "closed by dispose(), not by the scope's end")
      #expect(log.all.contains("session") && log.all.contains("a"))
      let error = #expect(throws: ResolutionError.self) { try container[\.containerResource] }
      #expect(error?.kind == .containerDisposed)
      #expect(error?.underlying?.contains("override scope") != true, "the container was disposed, not the scope")
      return [a, database, own]
    }
    // Once each, also after the scope ended; what another scope made is its own.
    #expect((inScope + [outside]).allSatisfy { $0.closeCount == 1 })
    #expect([made.0, made.1, made.2].allSatisfy { $0.closeCount == 1 }, "the scope that made them closed them")
  }

  @Test func aChildDisposedInsideAnOverrideScopeClosesWhatItHandedOutThere() async throws {
    let parent = Container()
    try await withOverrides {
      $0.register(\.lcNumber) { 7 }
    } operation: {
      let session = parent.makeChild()
      session.register(\.lcSessionResource, scope: .singleton) { Resource("session", log: Collected()) }
      let own = try session[\.lcSessionResource]
      // The parent's singleton lives in the parent: the child's disposal leaves it open.
      let shared = try session[\.lcDefaultDatabase]
      try await session.dispose()
      #expect(own.closeCount == 1)
      #expect(shared.closeCount == 0)
      #expect(!parent.isDisposed)
      #expect(try parent[\.lcNumber] == 7)
      #expect(try parent[\.lcDefaultDatabase] === shared)
    }
  }

  @Test func aContainerDisposedInsideAScopeRefusesEveryResolutionWhileItsCopiesClose() async throws {
    let container = Container()
    let gated = LcGatedResource()
    container.register(\.lcGated, scope: .singleton) { gated }
    container.register(\.containerResource, scope: .singleton) { Resource("other", log: Collected()) }
    try await withOverrides { _ in
    } operation: {
      _ = try container[\.lcGated]
      let disposal = Task { try await container.dispose() }
      await gated.waitUntilStarted()
      // The copy's instance is closing: nothing new is made, and the error names the container.
      for error in [
        #expect(throws: ResolutionError.self) { try container[\.lcGated] },
        #expect(throws: ResolutionError.self) { try container[\.containerResource] },
      ] {
        #expect(error?.kind == .containerDisposed)
        #expect(error?.underlying?.contains("override scope") != true, "\(String(describing: error))")
      }
      gated.open()
      try await disposal.value
    }
  }

  @Test func twoDisposalsInsideAScopeBothWaitForTheCopiesThenTheContainersOwn() async throws {
    let container = Container()
    let gated = LcGatedResource()
    container.register(\.lcGated, scope: .singleton) { gated }
    container.register(\.containerResource, scope: .singleton) { Resource("own", log: Collected()) }
    let own = try container[\.containerResource]
    try await withOverrides { _ in
    } operation: {
      _ = try container[\.lcGated]
      let first = Task { try await container.dispose() }
      await gated.waitUntilStarted()
      let second = Task { try await container.dispose() }
      // Neither returns, nor is the older instance closed, while the newer one is closing.
      try? await Task.sleep(for: .milliseconds(50))
      #expect(own.closeCount == 0)
      gated.open()
      try await second.value
      #expect(gated.isClosed && own.closeCount == 1)
      try await first.value
    }
  }

  @Test(arguments: 0..<10)
  func tasksDisposingAndResolvingInOneScopeCloseEachInstanceOnce(round: Int) async throws {
    let container = Container()
    container.register(\.containerResource, scope: .singleton) { Resource("singleton", log: Collected()) }
    container.register(\.containerOtherResource, scope: .cached) { Resource("cached", log: Collected()) }
    let made = Collected<Resource>()
    await withOverrides { _ in
    } operation: {
      await withTaskGroup(of: Void.self) { group in
        for task in 0..<8 {
          group.addTask {
            if task % 3 == 0 {
              _ = try? await container.dispose()
            } else {
              for key in [\Dependencies.containerResource, \.containerOtherResource] {
                if let resource = try? container[key] { made.append(resource) }
              }
            }
          }
        }
      }
    }
    #expect(made.all.allSatisfy { $0.closeCount == 1 }, "round \(round)")
  }
}
