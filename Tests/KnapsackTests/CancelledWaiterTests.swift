import Knapsack
import Testing

/// A gate that an asynchronous factory waits at, ignoring cancellation (as a network call in
/// flight may), until the test opens it. Each test makes its own.
final class FactoryGate: Sendable {
  private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
  /// How many times a factory reached the gate.
  let arrivals = Counter()

  func wait() async {
    arrivals.increment()
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let isOpen = state.withLock { state -> Bool in
        if state.open { return true }
        state.waiters.append(waiter)
        return false
      }
      if isOpen { waiter.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

extension Dependencies {
  fileprivate var slowSession: AsyncKey<Token> { AsyncKey { _ in Token("session") }.scope(.singleton) }
  fileprivate var slowProfile: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { _, id in Token("profile \(id)") }.scope(.cached)
  }
  fileprivate var sessionUser: AsyncKey<Token> {
    AsyncKey { r in Token("user of \(try await r.resolve(\.slowSession).label)") }
  }
}

/// A task cancelled while it waits for a shared instance (or a `Lazy`'s first read) that another
/// task is making: it stops waiting and throws `CancellationError`, while the making goes on for
/// the others. It used to stay suspended until the other task's factory returned, however long
/// that took (a screen's task, cancelled when the screen closed, hung on a slow log-in).
@Suite struct CancelledWaiterTests {
  /// How long a test waits for a cancelled waiter to end. It ends as soon as it runs; the bound
  /// only keeps a waiter that hangs from hanging the test past its time limit.
  let waiterBound: Duration = .seconds(50)

  @Test(.hangGuard, arguments: [Scope.singleton, .cached, .weak])
  func aCancelledWaiterStopsWaitingForAnotherTasksCreation(scope: Scope) async throws {
    let container = Container()
    let gate = FactoryGate()
    let made = Counter()
    container.register(\.slowSession, scope: scope) { _ async throws in
      made.increment()
      await gate.wait()
      return Token("session")
    }
    let creator = Task { try await container.resolve(\.slowSession) }
    #expect(await waitUntil(timeout: hangBound) { gate.arrivals.count == 1 })
    let ended = Counter()
    let waiter = Task {
      defer { ended.increment() }
      return try await container.resolve(\.slowSession)
    }
    waiter.cancel()
    let stoppedWaiting = await waitUntil(timeout: waiterBound) { ended.count == 1 }
    // Whatever happened, let the creation end, so that nothing is left suspended.
    gate.open()
    #expect(stoppedWaiting, "a cancelled waiter waited for the factory another task runs")
    let result = await waiter.result
    #expect(throws: CancellationError.self) { try result.get() }
    // The creation went on, and its instance is the one everybody gets.
    let session = try await creator.value
    #expect(try await container.resolve(\.slowSession) === session)
    #expect(made.count == 1)
  }

  @Test(.hangGuard)
  func aCancelledWaiterForOneArgumentLeavesTheOthersAlone() async throws {
    let container = Container()
    let gate = FactoryGate()
    container.register(\.slowProfile, scope: .cached) { _, id async throws in
      if id == 1 { await gate.wait() }
      return Token("profile \(id)")
    }
    let creator = Task { try await container.resolve(\.slowProfile, argument: 1) }
    #expect(await waitUntil(timeout: hangBound) { gate.arrivals.count == 1 })
    let ended = Counter()
    let waiter = Task {
      defer { ended.increment() }
      return try await container.resolve(\.slowProfile, argument: 1)
    }
    waiter.cancel()
    let stoppedWaiting = await waitUntil(timeout: waiterBound) { ended.count == 1 }
    #expect(try await container.resolve(\.slowProfile, argument: 2).label == "profile 2")
    gate.open()
    #expect(stoppedWaiting, "a cancelled waiter waited for the factory another task runs")
    await #expect(throws: CancellationError.self) { try await waiter.value }
    let profile = try await creator.value
    #expect(try await container.resolve(\.slowProfile, argument: 1) === profile)
  }

  @Test(.hangGuard)
  func aFactoryWhoseTaskIsCancelledWhileItWaitsFailsAndIsTriedAgainLater() async throws {
    let container = Container()
    let gate = FactoryGate()
    container.register(\.slowSession, scope: .singleton) { _ async throws in
      await gate.wait()
      return Token("session")
    }
    let creator = Task { try await container.resolve(\.slowSession) }
    #expect(await waitUntil(timeout: hangBound) { gate.arrivals.count == 1 })
    let ended = Counter()
    // A unique key whose factory waits for the singleton: its cancelled task stops waiting.
    let dependent = Task {
      defer { ended.increment() }
      return try await container.resolve(\.sessionUser)
    }
    dependent.cancel()
    let stoppedWaiting = await waitUntil(timeout: waiterBound) { ended.count == 1 }
    gate.open()
    #expect(stoppedWaiting, "a cancelled factory waited for the factory another task runs")
    await #expect(throws: (any Error).self) { try await dependent.value }
    _ = try await creator.value
    #expect(try await container.resolve(\.sessionUser).label == "user of session")
  }

  @Test(.hangGuard)
  func aCancelledReaderOfALazyStopsWaitingForItsFirstRead() async throws {
    let container = Container()
    let gate = FactoryGate()
    let made = Counter()
    container.register(\.slowSession, scope: .unique) { _ async throws in
      made.increment()
      await gate.wait()
      return Token("session")
    }
    let lazy = container.lazy(\.slowSession)
    let first = Task { try await lazy.value }
    #expect(await waitUntil(timeout: hangBound) { gate.arrivals.count == 1 })
    let ended = Counter()
    let reader = Task {
      defer { ended.increment() }
      return try await lazy.value
    }
    reader.cancel()
    let stoppedWaiting = await waitUntil(timeout: waiterBound) { ended.count == 1 }
    gate.open()
    #expect(stoppedWaiting, "a cancelled reader waited for the first read another task makes")
    await #expect(throws: CancellationError.self) { try await reader.value }
    let value = try await first.value
    #expect(try await lazy.value === value)
    #expect(made.count == 1)
  }

  @Test(.hangGuard)
  func aCancelledTaskStillGetsAnInstanceThatExists() async throws {
    let container = Container()
    let session = try await container.resolve(\.slowSession)
    let lazy = container.lazy(\.slowSession)
    let read = try await lazy.value
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return (try await container.resolve(\.slowSession), try await lazy.value)
    }
    let (resolved, lazyValue) = try await task.value
    #expect(resolved === session)
    #expect(lazyValue === read)
  }
}
