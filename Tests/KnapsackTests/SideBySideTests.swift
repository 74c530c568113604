import Foundation
import Knapsack
import Testing

struct SideBySideFailure: Error {}

/// Two dependencies made in parallel by one factory's child tasks.
struct SideBySidePair: Sendable {
  let first: Token
  let second: Token
}

/// Runs `first` and `second` with `r` in two child tasks at once: what the factories below do.
private func inParallel(
  _ r: Resolver, _ first: @escaping @Sendable (Resolver) async throws -> Token,
  _ second: @escaping @Sendable (Resolver) async throws -> Token
) async throws -> SideBySidePair {
  async let one = first(r)
  async let two = second(r)
  return SideBySidePair(first: try await one, second: try await two)
}

extension Dependencies {
  var sideShared: Key<Token> { .required() }
  var sideSharedAsync: AsyncKey<Token> { .required() }
  var sideServiceA: AsyncKey<Token> { AsyncKey { r in Token("A uses " + (try r[\.sideShared]).label) } }
  var sideServiceB: AsyncKey<Token> { AsyncKey { r in Token("B uses " + (try r[\.sideShared]).label) } }
  /// Makes service A and service B in two child tasks at once; both need `sideShared`.
  var sideApp: AsyncKey<SideBySidePair> {
    AsyncKey { r in
      try await inParallel(r, { try await $0.resolve(\.sideServiceA) }, { try await $0.resolve(\.sideServiceB) })
    }
  }
  /// Resolves `sideSharedAsync` in two child tasks at once.
  var sideFanOut: AsyncKey<SideBySidePair> {
    AsyncKey { r in
      try await inParallel(r, { try await $0.resolve(\.sideSharedAsync) }, { try await $0.resolve(\.sideSharedAsync) })
    }
  }
  var sideSelf: AsyncKey<Token> { .required() }
  var sideGraphAsync: AsyncKey<Token> { .required() }
  var sideGraphSync: Key<Token> { .required() }
  /// Resolves the graph-scoped `sideGraphAsync` in two child tasks at once.
  var sideGraphFanOut: AsyncKey<SideBySidePair> {
    AsyncKey { r in
      try await inParallel(r, { try await $0.resolve(\.sideGraphAsync) }, { try await $0.resolve(\.sideGraphAsync) })
    }
  }
  /// Resolves `sideGraphAsync` in two child tasks at once, each turning a failure into "failed".
  var sideGraphTolerantFanOut: AsyncKey<[String]> {
    AsyncKey { r in
      async let first = (try? await r.resolve(\.sideGraphAsync))?.label ?? "failed"
      async let second = (try? await r.resolve(\.sideGraphAsync))?.label ?? "failed"
      return await [first, second]
    }
  }
  /// Resolves the synchronous graph-scoped `sideGraphSync` in two child tasks at once.
  var sideGraphSyncFanOut: AsyncKey<SideBySidePair> {
    AsyncKey { r in try await inParallel(r, { try $0[\.sideGraphSync] }, { try $0[\.sideGraphSync] }) }
  }
  var sideLeft: AsyncKey<Token> { .required() }
  var sideRight: AsyncKey<Token> { .required() }
  /// Makes `sideLeft` and `sideRight` side by side; each of them needs the other.
  var sideBoth: AsyncKey<SideBySidePair> {
    AsyncKey { r in
      try await inParallel(r, { try await $0.resolve(\.sideLeft) }, { try await $0.resolve(\.sideRight) })
    }
  }
}

/// Child tasks of one resolution that need the same shared instance at the same time: the steps
/// run side by side, so one waits for the other's creation. Neither is the other's cycle.
@Suite(.hangGuard) struct SideBySideTests {
  @Test(arguments: [Scope.singleton, .cached, .weak])
  func childTasksOfOneFactoryShareASynchronousInstanceMadeOnce(scope: Scope) async throws {
    let container = Container()
    let made = Collected<Int>()
    container.register(\.sideShared, scope: scope) {
      made.append(1)
      // The two creations overlap. A synchronous factory cannot suspend: it holds its thread,
      // for 50 ms only.
      usleep(50_000)
      return Token("client")
    }
    let pair = try await container.resolve(\.sideApp)
    #expect(pair.first.label == "A uses client" && pair.second.label == "B uses client")
    // Nothing keeps a weak instance once its user is made: the second user may need a new one.
    if scope != .weak { #expect(made.all.count == 1) }
  }

  @Test(arguments: [Scope.singleton, .cached, .weak])
  func childTasksOfOneFactoryShareAnAsynchronousInstanceMadeOnce(scope: Scope) async throws {
    let container = Container()
    let made = Collected<Int>()
    container.register(\.sideSharedAsync, scope: scope) { _ in
      made.append(1)
      try await Task.sleep(for: .milliseconds(50))
      return Token("shared")
    }
    let pair = try await container.resolve(\.sideFanOut)
    #expect(pair.first === pair.second)
    #expect(made.all.count == 1)
  }

  /// A graph-scoped instance is one per top-level resolution, also when child tasks of that
  /// resolution ask for it at the same time; the next resolution gets a new one.
  @Test func childTasksOfOneResolutionShareOneGraphScopedInstance() async throws {
    let container = Container()
    let made = Collected<Int>()
    container.register(\.sideGraphAsync, scope: .graph) { _ in
      made.append(1)
      try await Task.sleep(for: .milliseconds(30))
      return Token("graph")
    }
    container.register(\.sideGraphSync, scope: .graph) {
      made.append(2)
      usleep(30_000)  // so that the other step asks while this one makes it (bounded, 30 ms)
      return Token("graph")
    }
    let pair = try await container.resolve(\.sideGraphFanOut)
    #expect(pair.first === pair.second)
    let syncPair = try await container.resolve(\.sideGraphSyncFanOut)
    #expect(syncPair.first === syncPair.second)
    #expect(made.all.sorted() == [1, 2])
    let next = try await container.resolve(\.sideGraphFanOut)
    #expect(next.first !== pair.first)
    #expect(made.all.sorted() == [1, 1, 2])
  }

  /// A graph-scoped instance that failed is made again by the next step that asks for it.
  @Test func aGraphScopedFailureInOneChildTaskIsNotKept() async throws {
    let container = Container()
    let attempts = Collected<Int>()
    container.register(\.sideGraphAsync, scope: .graph) { _ in
      attempts.append(1)
      if attempts.all.count == 1 { throw SideBySideFailure() }
      return Token("second try")
    }
    let labels = try await container.resolve(\.sideGraphTolerantFanOut)
    // The step that ran the failing factory failed; the other one made it again.
    #expect(labels.sorted() == ["failed", "second try"])
    #expect(attempts.all.count == 2)
  }

  /// Ten first resolutions of one shared instance at once: one made it, nine waited and reused
  /// it, and tracing says so (`created` means the factory ran).
  @Test(arguments: [Scope.singleton, .cached, .weak])
  func tracingTellsTheStepThatMadeAnInstanceFromTheStepsThatWaitedForIt(scope: Scope) async throws {
    let container = Container()
    let observer = RecordingObserver()
    container.observe(observer)
    let made = Collected<Int>()
    let release = Collected<Token>()  // keeps a weak instance alive for the whole test
    container.register(\.sideSharedAsync, scope: scope) { _ in
      made.append(1)
      try await Task.sleep(for: .milliseconds(50))
      return Token("async")
    }
    container.register(\.sideShared, scope: scope) {
      made.append(2)
      usleep(50_000)  // so that the other resolutions wait for this creation (bounded, 50 ms)
      return Token("sync")
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<10 {
        group.addTask { release.append(try await container.resolve(\.sideSharedAsync)) }
        group.addTask { release.append(try container.resolve(\.sideShared)) }
      }
      try await group.waitForAll()
    }
    #expect(made.all.sorted() == [1, 2])
    for name in [#"\.sideSharedAsync"#, #"\.sideShared"#] {
      let outcomes = observer.events.all.filter { $0.dependency.name == name }.map(\.outcome)
      #expect(outcomes.filter { $0 == .created }.count == 1, "\(name): \(outcomes)")
      #expect(outcomes.filter { $0 == .reused }.count == 9, "\(name): \(outcomes)")
    }
  }

  @Test func validationPassesAGraphWhoseChildTasksShareASingleton() async throws {
    let container = Container()
    container.register(\.sideShared, scope: .singleton) {
      usleep(20_000)  // the two child tasks' creations overlap (bounded, 20 ms)
      return Token("client")
    }
    let report = await container.validate(including: [\.sideApp])
    #expect(report.isValid, "\(report)")
  }

  /// Two singletons that need each other, made side by side: each child task waits for the
  /// other's creation, so the wait closes a cycle. It throws, and does not hang.
  @Test func twoSingletonsThatNeedEachOtherMadeSideBySideAreACycleNotAHang() async throws {
    let container = Container()
    container.register(\.sideLeft, scope: .singleton) { r in
      try await Task.sleep(for: .milliseconds(30))
      return Token("left needs " + (try await r.resolve(\.sideRight)).label)
    }
    container.register(\.sideRight, scope: .singleton) { r in
      try await Task.sleep(for: .milliseconds(30))
      return Token("right needs " + (try await r.resolve(\.sideLeft)).label)
    }
    #expect(await outcome { try await container.resolve(\.sideBoth).first } == ["cycle"])
  }

  /// Runs `resolve` in a detached task and reports how it ended: "made", an error kind, or
  /// nothing if it hung (the suite's time limit stopped the wait). No clock of its own: with the
  /// whole suite on two cores, a detached task may wait long for a thread, and a deadline on the
  /// clock ran out while it was still queued; the wait ends as soon as the resolution does.
  private func outcome(_ resolve: @escaping @Sendable () async throws -> Token) async -> [String] {
    let outcome = await ended { () async -> String in
      do {
        _ = try await resolve()
        return "made"
      } catch let error as ResolutionError {
        return error.kind.rawValue
      } catch {
        return "\(error)"
      }
    }
    return outcome.map { [$0] } ?? []
  }

  /// An asynchronous singleton whose factory resolves it again through the container it
  /// captured (not its resolver): the factory awaits its own creation.
  @Test(arguments: [Scope.singleton, .cached, .weak])
  func anAsyncSharedInstanceResolvingItselfThroughItsCapturedContainerIsACycleNotAHang(scope: Scope) async {
    let container = Container()
    container.register(\.sideSelf, scope: scope) { _ in
      Token("self " + (try await container.resolve(\.sideSelf)).label)
    }
    #expect(await outcome { try await container.resolve(\.sideSelf) } == ["cycle"])
  }

  @Test func anAsyncSingletonReadingItsOwnProviderInItsFactoryIsACycleNotAHang() async {
    let container = Container()
    container.register(\.sideSelf, scope: .singleton) { r in
      let provider = r.provider(\.sideSelf)
      return Token("self " + (try await provider.get()).label)
    }
    #expect(await outcome { try await container.resolve(\.sideSelf) } == ["cycle"])
  }

  /// Two asynchronous singletons that reach each other through the container they captured:
  /// each factory awaits the other's creation, in its own task or in a child task it awaits.
  @Test(arguments: [false, true])
  func twoAsyncSingletonsThatReachEachOtherThroughACapturedContainerAreACycleNotAHang(inAChildTask: Bool) async {
    let container = Container()
    container.register(\.sideLeft, scope: .singleton) { _ in
      guard inAChildTask else { return Token("left needs " + (try await container.resolve(\.sideRight)).label) }
      async let right = container.resolve(\.sideRight)
      return Token("left needs " + (try await right).label)
    }
    container.register(\.sideRight, scope: .singleton) { _ in
      Token("right needs " + (try await container.resolve(\.sideLeft)).label)
    }
    #expect(await outcome { try await container.resolve(\.sideLeft) } == ["cycle"])
  }

  /// A factory that awaits child tasks (`async let`, a task group) which resolve the instance the
  /// factory is making, through the container it captured: the factory cannot return before its
  /// children do, so their wait is a cycle. Also when the resolution starts in the body of a
  /// task group, where the runtime copies task-local bindings for child tasks.
  @Test(arguments: [false, true], [false, true])
  func anAsyncSingletonWhoseChildTaskResolvesItThroughACapturedContainerIsACycleNotAHang(
    inAGroup: Bool, fromAGroupBody: Bool
  ) async {
    let container = Container()
    container.register(\.sideSelf, scope: .singleton) { _ in
      guard inAGroup else {
        async let again = container.resolve(\.sideSelf)
        return Token("self " + (try await again).label)
      }
      return try await withThrowingTaskGroup(of: Token.self) { group in
        group.addTask { try await container.resolve(\.sideSelf) }
        var labels: [String] = []
        for try await token in group { labels.append(token.label) }
        return Token("self " + labels.joined())
      }
    }
    #expect(
      await outcome {
        guard fromAGroupBody else { return try await container.resolve(\.sideSelf) }
        return try await withThrowingTaskGroup(of: Void.self) { _ in try await container.resolve(\.sideSelf) }
      } == ["cycle"])
  }

  /// A factory that resolves another key in the body of a task group of its own, whose factory
  /// reaches back to the first through a child task: a cycle, not a hang. The same graph without
  /// the loop resolves.
  @Test(arguments: [true, false])
  func aFactoryCallMadeInATaskGroupBodyStillSeesItsChildTasks(loops: Bool) async {
    let container = Container()
    container.register(\.sideLeft, scope: .singleton) { r in
      try await withThrowingTaskGroup(of: Void.self) { _ in
        Token("left needs " + (try await r.resolve(\.sideRight)).label)
      }
    }
    container.register(\.sideRight) { _ in
      async let other = container.resolve(loops ? \.sideLeft : \.sideSelf)
      return Token("right needs " + (try await other).label)
    }
    container.register(\.sideSelf) { _ in Token("self") }
    #expect(await outcome { try await container.resolve(\.sideLeft) } == [loops ? "cycle" : "made"])
  }

  @Test func validationStartedInATaskGroupBodyFindsACycleClosedByAChildTask() async {
    let container = Container()
    container.register(\.sideSelf, scope: .singleton) { _ in
      async let again = container.resolve(\.sideSelf)
      return Token("self " + (try await again).label)
    }
    let kinds = await ended { await withDiscardingTaskGroup { _ in await container.validate().problems.map(\.kind) } }
    #expect(kinds != nil, "validate() hung")
    #expect(kinds == [.cycle])
  }

  /// A factory that starts an unstructured task, which resolves an instance still being made
  /// above it (itself, or in a child task of its own), does not await that task: the task waits
  /// for the instance, and no cycle is reported.
  @Test(arguments: [false, true])
  func anUnstructuredTaskThatResolvesAnInstanceStillBeingMadeWaitsForIt(inAChildTask: Bool) async throws {
    let container = Container()
    let background = Collected<Task<Token, any Error>>()
    container.register(\.sideLeft, scope: .singleton) { r in
      Token("left with " + (try await r.resolve(\.sideRight)).label)
    }
    container.register(\.sideRight) { _ in
      background.append(
        Task {
          guard inAChildTask else { return try await container.resolve(\.sideLeft) }
          async let left = container.resolve(\.sideLeft)
          return try await left
        })
      try await Task.sleep(for: .milliseconds(20))
      return Token("right")
    }
    let left = try await container.resolve(\.sideLeft)
    let task = try #require(background.all.first)
    // Bounded by the suite's time limit: a background resolution that hangs fails the test.
    let seen = await ended { try? await task.value } ?? nil
    #expect(seen === left)
  }

}
