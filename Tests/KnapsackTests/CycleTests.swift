import Foundation
import Knapsack
import Synchronization
import Testing

/// A node of a dependency graph that may loop back on itself.
final class CycleNode: Sendable {
  let label: String
  let next: CycleNode?
  init(_ label: String, next: CycleNode? = nil) {
    self.label = label
    self.next = next
  }
}

/// Types for a cycle through type registrations, as in the issue: view model → repository → cache.
final class CycleViewModel: Sendable {}
final class CycleRepository: Sendable {}
final class CycleCache: Sendable {}

/// The two sides of a cycle broken with `Lazy` or `Provider`.
final class CycleOwner: Sendable {
  let helper: CycleHelper
  init(helper: CycleHelper) { self.helper = helper }
}

final class CycleHelper: Sendable {
  let lazyOwner: Lazy<Key<CycleOwner>>?
  let ownerProvider: Provider<Key<CycleOwner>>?
  init(lazyOwner: Lazy<Key<CycleOwner>>? = nil, ownerProvider: Provider<Key<CycleOwner>>? = nil) {
    self.lazyOwner = lazyOwner
    self.ownerProvider = ownerProvider
  }
}

extension Dependencies {
  var cycleSelf: Key<CycleNode> { Key { r in CycleNode("self", next: try r[\.cycleSelf]) } }
  var cycleA: Key<CycleNode> { Key { r in CycleNode("a", next: try r[\.cycleB]) } }
  var cycleB: Key<CycleNode> { Key { r in CycleNode("b", next: try r[\.cycleC]) } }
  var cycleC: Key<CycleNode> { Key { r in CycleNode("c", next: try r[\.cycleA]) } }
  var cycleEntry: Key<CycleNode> { Key { r in CycleNode("entry", next: try r[\.cycleA]) } }
  // Registered by each test.
  var cycleLeft: Key<CycleNode> { .required() }
  var cycleRight: Key<CycleNode> { .required() }
  var cycleOwner: Key<CycleOwner> { .required() }
  var cycleHelper: Key<CycleHelper> { .required() }
  var cycleAsyncLeft: AsyncKey<CycleNode> { .required() }
  var cycleAsyncRight: AsyncKey<CycleNode> { .required() }
  var cycleAsyncCountdown: DependencyKey<AsyncKind, Int, CycleNode> { .required() }
  var cycleArgument: ArgumentKey<Int, CycleNode> {
    ArgumentKey { r, _ in CycleNode("argument", next: try r[\.cycleViaArgument]) }
  }
  var cycleViaArgument: Key<CycleNode> { Key { r in try r.resolve(\.cycleArgument, argument: 1) } }
  /// A multibinding whose contribution needs a key that reads the multibinding.
  var cyclePlugins: Multibinding<CycleNode> { Multibinding() }
  var cyclePluginHost: Key<CycleNode> { Key { r in CycleNode("host", next: try r[\.cyclePlugins].first) } }
  var cycleThroughOwnProvider: Key<CycleNode> {
    Key { r in CycleNode("provider", next: try r.provider(\.cycleThroughOwnProvider).get()) }
  }
  var cycleThroughOwnLazy: Key<CycleNode> {
    Key { r in CycleNode("lazy", next: try r.lazy(\.cycleThroughOwnLazy).value) }
  }
  @MainActor var cycleMain: MainActorKey<CycleNode> {
    MainActorKey { r in CycleNode("main", next: try r[\.cycleMain]) }.scope(.singleton)
  }
}

/// Whether `path` is one walk that ends where it closes a loop: the last element appears exactly
/// once before it, and nothing else repeats.
private func isSimpleLoop(_ path: [String]) -> Bool {
  guard let last = path.last, path.count >= 2 else { return false }
  let earlier = path.dropLast()
  guard earlier.filter({ $0 == last }).count == 1 else { return false }
  return Set(earlier).count == earlier.count
}

@Suite struct CycleTests {
  @Test func selfDependencyIsACycle() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleSelf] }
    #expect(error?.kind == .cycle)
    #expect(error?.pathDescription == "\\.cycleSelf → \\.cycleSelf")
  }

  @Test func cycleErrorShowsTheWholeLoop() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleA] }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleA", "\\.cycleB", "\\.cycleC", "\\.cycleA"])
    #expect(error?.pathDescription == "\\.cycleA → \\.cycleB → \\.cycleC → \\.cycleA")
    let description = error?.description ?? ""
    #expect(description.contains("dependency cycle: \\.cycleA → \\.cycleB → \\.cycleC → \\.cycleA"))
    #expect(description.contains("fix: break the loop with `r.lazy(...)` or `r.provider(...)`"))
  }

  @Test func cycleErrorPathStartsAtTheTopLevelRequest() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleEntry] }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleEntry", "\\.cycleA", "\\.cycleB", "\\.cycleC", "\\.cycleA"])
    // The message shows the loop, and apart from it the step that led into it (not a member:
    // a `Lazy` there would not break the loop).
    #expect(
      error?.description.hasPrefix(
        #"Knapsack: dependency cycle: \.cycleA → \.cycleB → \.cycleC → \.cycleA (reached from \.cycleEntry)."#)
        == true, "\(String(describing: error))")
  }

  @Test func validationShowsTheLoopApartFromTheStepsLeadingIntoIt() async throws {
    let report = await Container().validate(including: [\Dependencies.cycleEntry])
    let cycles = report.problems(.cycle).map(\.message)
    #expect(
      cycles.contains(
        #"\.cycleA depends on itself: \.cycleA → \.cycleB → \.cycleC → \.cycleA (reached from \.cycleEntry)"#),
      "\(cycles)")
  }

  @Test func cycleThroughTypeRegistrationsShowsTheTypes() async throws {
    let container = Container()
    container.register(type: CycleViewModel.self) { r in
      _ = try r.resolve(type: CycleRepository.self)
      return CycleViewModel()
    }
    container.register(type: CycleRepository.self) { r in
      _ = try r.resolve(type: CycleCache.self)
      return CycleRepository()
    }
    container.register(type: CycleCache.self) { r in
      _ = try r.resolve(type: CycleViewModel.self)
      return CycleCache()
    }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(type: CycleViewModel.self) }
    #expect(error?.kind == .cycle)
    #expect(error?.pathDescription == "CycleViewModel → CycleRepository → CycleCache → CycleViewModel")
  }

  @Test func singletonCycleOnOneThreadIsAnErrorNotADeadlock() async throws {
    let container = Container()
    container.register(\.cycleLeft, scope: .singleton) { r in CycleNode("left", next: try r[\.cycleRight]) }
    container.register(\.cycleRight, scope: .singleton) { r in CycleNode("right", next: try r[\.cycleLeft]) }
    let outcome = Collected<Outcome>()
    // On its own thread, so that a regression to a deadlock fails the test instead of hanging it.
    let thread = ThreadGroup(count: 1) { _ in
      do {
        outcome.append(.value(ObjectIdentifier(try container[\.cycleLeft])))
      } catch {
        outcome.append(.failure(error))
      }
    }
    #expect(await thread.join(timeout: hangBound), "resolving a singleton cycle deadlocked")
    let error = outcome.all.first?.error as? ResolutionError
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleLeft", "\\.cycleRight", "\\.cycleLeft"])
    // Nothing was cached by the failed attempt.
    container.register(\.cycleRight, scope: .singleton) { CycleNode("right") }
    #expect(try container[\.cycleLeft].next?.label == "right")
  }

  @Test(arguments: [Scope.unique, .graph, .weak, .cached, .singleton])
  func twoStepCycleIsDetectedInEveryScope(scope: Scope) async throws {
    let container = Container()
    container.register(\.cycleLeft, scope: scope) { r in CycleNode("left", next: try r[\.cycleRight]) }
    container.register(\.cycleRight, scope: scope) { r in CycleNode("right", next: try r[\.cycleLeft]) }
    let outcome = Collected<Outcome>()
    let thread = ThreadGroup(count: 1) { _ in
      do {
        outcome.append(.value(ObjectIdentifier(try container[\.cycleLeft])))
      } catch {
        outcome.append(.failure(error))
      }
    }
    #expect(await thread.join(timeout: hangBound), "a \(scope) cycle deadlocked")
    let error = outcome.all.first?.error as? ResolutionError
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleLeft", "\\.cycleRight", "\\.cycleLeft"])
  }

  @Test func longCycleThroughNamedTypesPrintsEveryStep() async throws {
    let container = Container()
    let length = 50
    for step in 0..<length {
      let next = "step \((step + 1) % length)"
      container.register(type: Int.self, name: "step \(step)") { r in try r.resolve(type: Int.self, name: next) + 1 }
    }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "step 0") }
    #expect(error.kind == .cycle)
    let expected = (0...length).map { "Int (name: \"step \($0 % length)\")" }
    #expect(error.path.map(\.name) == expected)
  }

  @Test func longChainWithoutACycleResolves() async throws {
    let container = Container()
    let length = 300
    container.register(type: Int.self, name: "link \(length)") { 0 }
    for link in 0..<length {
      let next = "link \(link + 1)"
      container.register(type: Int.self, name: "link \(link)") { r in try r.resolve(type: Int.self, name: next) + 1 }
    }
    #expect(try container.resolve(type: Int.self, name: "link 0") == length)
  }

  @Test func mixedScopeCycleIsDetected() async throws {
    let container = Container()
    container.register(\.cycleLeft, scope: .singleton) { r in CycleNode("left", next: try r[\.cycleRight]) }
    container.register(\.cycleRight, scope: .unique) { r in CycleNode("right", next: try r[\.cycleLeft]) }
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleRight] }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleRight", "\\.cycleLeft", "\\.cycleRight"])
  }

  @Test func twoThreadsResolvingTheTwoEndsOfASingletonCycleBothFinish() async throws {
    let container = Container()
    let meet = Rendezvous(parties: 2)
    // Each factory waits until the other end's factory has started too, which forces the
    // interleaving that deadlocks a naive per-singleton lock: each thread holds one end and asks
    // for the other.
    container.register(\.cycleLeft, scope: .singleton) { r in
      meet.arriveAndWait()
      return CycleNode("left", next: try r[\.cycleRight])
    }
    container.register(\.cycleRight, scope: .singleton) { r in
      meet.arriveAndWait()
      return CycleNode("right", next: try r[\.cycleLeft])
    }
    let outcomes = Collected<Outcome>()
    let threads = ThreadGroup(count: 2) { index in
      do {
        let node = try index == 0 ? container[\.cycleLeft] : container[\.cycleRight]
        outcomes.append(.value(ObjectIdentifier(node)))
      } catch {
        outcomes.append(.failure(error))
      }
    }
    #expect(await threads.join(timeout: hangBound), "two threads resolving a singleton cycle deadlocked")
    let results = outcomes.all
    #expect(results.count == 2)
    for result in results {
      guard let error = result.error else { continue }
      let resolutionError = error as? ResolutionError
      #expect(resolutionError?.kind == .cycle, "unexpected error: \(error)")
      let path = resolutionError?.path.map(\.name) ?? []
      #expect(isSimpleLoop(path), "cycle path is not one loop: \(path)")
    }
  }

  @Test func twoTasksResolvingTheTwoEndsOfAnAsyncSingletonCycleBothFinish() async throws {
    let container = Container()
    let meet = Rendezvous(parties: 2)
    container.register(\.cycleAsyncLeft, scope: .singleton) { r async throws in
      await meet.arrive()
      return CycleNode("left", next: try await r.resolve(\.cycleAsyncRight))
    }
    container.register(\.cycleAsyncRight, scope: .singleton) { r async throws in
      await meet.arrive()
      return CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft))
    }
    let outcomes = Collected<Outcome>()
    for index in 0..<2 {
      // Unstructured, so that a hung task cannot keep this test from finishing.
      Task {
        do {
          let node =
            try await index == 0 ? container.resolve(\.cycleAsyncLeft) : container.resolve(\.cycleAsyncRight)
          outcomes.append(.value(ObjectIdentifier(node)))
        } catch {
          outcomes.append(.failure(error))
        }
      }
    }
    let finished = await waitUntil(timeout: hangBound) { outcomes.all.count == 2 }
    #expect(finished, "two tasks resolving an async singleton cycle never finished")
    for result in outcomes.all {
      guard let error = result.error else { continue }
      let resolutionError = error as? ResolutionError
      #expect(resolutionError?.kind == .cycle, "unexpected error: \(error)")
      let path = resolutionError?.path.map(\.name) ?? []
      #expect(isSimpleLoop(path), "cycle path is not one loop: \(path)")
    }
  }

  @Test func asyncCycleIsDetected() async throws {
    let container = Container()
    container.register(\.cycleAsyncLeft) { r async throws in
      CycleNode("left", next: try await r.resolve(\.cycleAsyncRight))
    }
    container.register(\.cycleAsyncRight) { r async throws in
      CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft))
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.cycleAsyncLeft) }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleAsyncLeft", "\\.cycleAsyncRight", "\\.cycleAsyncLeft"])
  }

  @Test func asyncSingletonCycleInOneTaskIsAnError() async throws {
    let container = Container()
    container.register(\.cycleAsyncLeft, scope: .singleton) { r async throws in
      CycleNode("left", next: try await r.resolve(\.cycleAsyncRight))
    }
    container.register(\.cycleAsyncRight, scope: .singleton) { r async throws in
      CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft))
    }
    let outcome = Collected<Outcome>()
    Task {
      do {
        outcome.append(.value(ObjectIdentifier(try await container.resolve(\.cycleAsyncLeft))))
      } catch {
        outcome.append(.failure(error))
      }
    }
    #expect(await waitUntil(timeout: hangBound) { !outcome.all.isEmpty }, "the async singleton cycle hung")
    let error = outcome.all.first?.error as? ResolutionError
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleAsyncLeft", "\\.cycleAsyncRight", "\\.cycleAsyncLeft"])
  }

  @Test func cycleThroughAnArgumentKeyIsDetected() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.cycleArgument, argument: 1) }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleArgument", "\\.cycleViaArgument", "\\.cycleArgument"])
    // The key's name alone cannot tell a loop from a walk over other arguments: the argument is said.
    #expect(error?.underlying == "asked again for the same argument, 1")
    #expect(
      error?.description.contains(
        "\\.cycleArgument(1) → \\.cycleViaArgument → \\.cycleArgument(1): asked again for the same argument, 1.")
        == true, "\(String(describing: error))")
  }

  @Test func aCycleListsEachOfItsKeysOnceThoughTheStepsIntoItPassOne() async throws {
    let container = Container()
    container.contribute(to: \.cyclePlugins) { r in CycleNode("plugin", next: try r[\.cyclePluginHost]) }
    let error = try #require(throws: ResolutionError.self) { try container[\.cyclePlugins] }
    #expect(error.kind == .cycle)
    let listed = error.description.split(separator: "\n").filter { $0.hasPrefix("  \\.cyclePlugins:") }
    #expect(listed.count == 1, "\(error)")
    let problems = await container.validate().problems(.cycle)
    try #require(problems.count == 1, "\(problems)")
    #expect(
      problems[0].description.split(separator: "\n").count { $0.hasPrefix("    \\.cyclePlugins:") } == 1,
      "\(problems[0])")
  }

  @MainActor @Test func mainActorSingletonCycleIsDetected() async throws {
    let container = Container()
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleMain] }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == ["\\.cycleMain", "\\.cycleMain"])
  }

  // MARK: Broken cycles

  @Test func cycleBrokenWithLazyWorks() async throws {
    let container = Container()
    container.register(\.cycleOwner, scope: .singleton) { r in CycleOwner(helper: try r[\.cycleHelper]) }
    container.register(\.cycleHelper) { r in CycleHelper(lazyOwner: r.lazy(\.cycleOwner)) }
    let owner = try container[\.cycleOwner]
    #expect(try owner.helper.lazyOwner?.value === owner)
  }

  @Test func cycleBrokenWithProviderWorks() async throws {
    let container = Container()
    container.register(\.cycleOwner, scope: .singleton) { r in CycleOwner(helper: try r[\.cycleHelper]) }
    container.register(\.cycleHelper, scope: .singleton) { r in CycleHelper(ownerProvider: r.provider(\.cycleOwner)) }
    let owner = try container[\.cycleOwner]
    #expect(try owner.helper.ownerProvider?.get() === owner)
    #expect(try container[\.cycleHelper] === owner.helper)
  }

  @Test func cycleBrokenWithLazyWorksFromTheOtherEnd() async throws {
    let container = Container()
    container.register(\.cycleOwner, scope: .singleton) { r in CycleOwner(helper: try r[\.cycleHelper]) }
    container.register(\.cycleHelper, scope: .singleton) { r in CycleHelper(lazyOwner: r.lazy(\.cycleOwner)) }
    let helper = try container[\.cycleHelper]
    let owner = try #require(try helper.lazyOwner?.value)
    #expect(owner.helper === helper)
  }

  @Test func readingTheLazyWhileTheCycleIsBeingBuiltIsAnErrorNotADeadlock() async throws {
    let container = Container()
    container.register(\.cycleOwner, scope: .singleton) { r in
      let helper = try r[\.cycleHelper]
      // Too early: the owner is still being made.
      _ = try helper.lazyOwner?.value
      return CycleOwner(helper: helper)
    }
    container.register(\.cycleHelper) { r in CycleHelper(lazyOwner: r.lazy(\.cycleOwner)) }
    let outcome = Collected<Outcome>()
    let thread = ThreadGroup(count: 1) { _ in
      do {
        outcome.append(.value(ObjectIdentifier(try container[\.cycleOwner])))
      } catch {
        outcome.append(.failure(error))
      }
    }
    #expect(await thread.join(timeout: hangBound), "reading a lazy inside its own cycle deadlocked")
    let error = outcome.all.first?.error as? ResolutionError
    #expect(error?.kind == .cycle)
  }

  // MARK: Cycles that would overflow the stack
  //
  // These run in a child process (exit tests): if the engine recursed until the stack overflowed,
  // the child would crash and the test would fail, instead of the whole test run crashing.

  @Test func readingItsOwnProviderInsideTheFactoryIsACycleErrorNotAStackOverflow() async {
    await #expect(processExitsWith: .success) {
      let error = try? #require(throws: ResolutionError.self) { try Container()[\.cycleThroughOwnProvider] }
      if error?.kind != .cycle { fatalError("expected a cycle error, got \(String(describing: error))") }
    }
  }

  @Test func readingItsOwnLazyInsideTheFactoryIsACycleErrorNotAStackOverflow() async {
    await #expect(processExitsWith: .success) {
      let error = try? #require(throws: ResolutionError.self) { try Container()[\.cycleThroughOwnLazy] }
      if error?.kind != .cycle { fatalError("expected a cycle error, got \(String(describing: error))") }
    }
  }

  @Test func factoryResolvingItselfThroughItsCapturedContainerIsACycleErrorNotAStackOverflow() async {
    await #expect(processExitsWith: .success) {
      let container = Container()
      // A common mistake: the factory uses the container it captured instead of its resolver.
      container.register(\.cycleLeft) { _ in CycleNode("left", next: try container[\.cycleLeft]) }
      let error = try? #require(throws: ResolutionError.self) { try container[\.cycleLeft] }
      if error?.kind != .cycle { fatalError("expected a cycle error, got \(String(describing: error))") }
    }
  }

  @Test func aCycleThroughAnAsyncLazyIsReportedNotAHang() async throws {
    let container = Container()
    container.register(\.cycleAsyncLeft, scope: .singleton) { r in
      CycleNode("left", next: try await r.resolve(\.cycleAsyncRight))
    }
    // The lazy is read where it is made, inside the resolution of the singleton it names.
    container.register(\.cycleAsyncRight) { r in CycleNode("right", next: try await r.lazy(\.cycleAsyncLeft).value) }
    let outcome = Mutex<ResolutionError?>(nil)
    Task {
      do { _ = try await container.resolve(\.cycleAsyncLeft) } catch let error as ResolutionError {
        outcome.withLock { $0 = error }
      }
    }
    // Unstructured and polled, so that a hang fails the test instead of stopping the run.
    #expect(await waitUntil(timeout: hangBound) { outcome.withLock { $0 != nil } }, "the resolution hung")
    let error = outcome.withLock { $0 }
    #expect(error?.kind == .cycle)
    // The loop as it ran: left's factory asked for right, whose lazy read asked for left.
    #expect(error?.path.map(\.name) == ["\\.cycleAsyncLeft", "\\.cycleAsyncRight", "\\.cycleAsyncLeft"])
  }

  @Test func aCycleThroughALazyNamesEveryStepOfTheLoop() throws {
    let container = Container()
    container.register(\.cycleLeft, scope: .singleton) { r in CycleNode("left", next: try r[\.cycleRight]) }
    container.register(\.cycleRight) { r in CycleNode("right", next: try r.lazy(\.cycleLeft).value) }
    let error = #expect(throws: ResolutionError.self) { try container[\.cycleLeft] }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == [#"\.cycleLeft"#, #"\.cycleRight"#, #"\.cycleLeft"#])
  }

  @Test func readingALazyWhileItIsBeingMadeIsACycleNotADeadlock() async throws {
    let container = Container()
    let handle = Mutex<Lazy<Key<CycleNode>>?>(nil)
    // The factory reads the very handle whose first read is making it.
    container.register(\.cycleLeft) { _ in CycleNode("left", next: try handle.withLock { $0 }?.value) }
    let lazy = container.lazy(\.cycleLeft)
    handle.withLock { $0 = lazy }
    let outcome = await onThreadOutsideAnyTask { () -> ResolutionError.Kind? in
      do {
        _ = try lazy.value
        return nil
      } catch {
        return (error as? ResolutionError)?.kind
      }
    }
    #expect(outcome == .cycle, "nil: the read hung or succeeded")
    // A failure is not kept: with the loop gone, the same handle makes its value.
    handle.withLock { $0 = nil }
    #expect(try lazy.value.label == "left")
  }

  @Test func readingAnAsyncLazyOfAUniqueKeyWhileItIsBeingMadeIsACycle() async throws {
    let container = Container()
    let handle = Mutex<Lazy<AsyncKey<CycleNode>>?>(nil)
    // Unique scope: no shared instance whose creation the engine could see waited for, and each
    // read from a handle starts a path of its own.
    container.register(\.cycleAsyncLeft) { _ in
      let lazy = handle.withLock { $0 }
      return CycleNode("left", next: try await lazy?.value)
    }
    let lazy = container.lazy(\.cycleAsyncLeft)
    handle.withLock { $0 = lazy }
    let outcome = Mutex<ResolutionError?>(nil)
    Task {
      do { _ = try await lazy.value } catch let error as ResolutionError { outcome.withLock { $0 = error } }
    }
    #expect(await waitUntil(timeout: hangBound) { outcome.withLock { $0 != nil } }, "the read never ended")
    let error = outcome.withLock { $0 }
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == [#"\.cycleAsyncLeft"#, #"\.cycleAsyncLeft"#])
    // The loop's member names where it was registered, as every cycle error does.
    #expect(
      error?.description.contains("registered at KnapsackTests/CycleTests.swift:") == true,
      "\(String(describing: error))")
    #expect(error?.description.contains("its Lazy was read while the Lazy's first read was making it") == true)
    // A failure is not kept: with the loop gone, the same handle makes its value.
    handle.withLock { $0 = nil }
    #expect(try await lazy.value.label == "left")
  }

  @Test func concurrentFirstReadsOfAnAsyncLazyShareOneValue() async throws {
    let container = Container()
    let made = Counter()
    container.register(\.cycleAsyncLeft) { _ in
      made.increment()
      try await Task.sleep(for: .milliseconds(20))
      return CycleNode("made")
    }
    let lazy = container.lazy(\.cycleAsyncLeft)
    let values = try await withThrowingTaskGroup(of: CycleNode.self) { group in
      for _ in 0..<16 { group.addTask { try await lazy.value } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(made.count == 1)
    #expect(values.allSatisfy { $0 === values[0] })
  }
}

/// A meeting point that spins instead of sleeping, so that both parties leave it within
/// nanoseconds of each other (bounded: a party goes on after two seconds).
private final class SpinBarrier: Sendable {
  private let arrived = Atomic<Int>(0)
  let parties: Int
  init(parties: Int) { self.parties = parties }

  func arrive() {
    arrived.add(1, ordering: .acquiringAndReleasing)
    let deadline = ContinuousClock.now + .seconds(2)
    while arrived.load(ordering: .acquiring) < parties, ContinuousClock.now < deadline {}
  }
}

/// A `Lazy` whose first read is under way is waited for like a shared instance being made: a
/// loop through it across threads or tasks is a cycle error, not a hang.
@Suite struct LazyWaitCycleTests {
  /// `right` (through its `Lazy`) → `left` (a singleton) → the same `Lazy`: each thread holds one
  /// end and asks for the other.
  @Test func aLoopThroughALazyAcrossTwoThreadsIsACycle() async throws {
    let container = Container()
    let meet = Rendezvous(parties: 2)
    let handle = Locked<Lazy<Key<CycleNode>>?>(nil)
    container.register(\.cycleRight) { r in
      meet.arriveAndWait()
      return CycleNode("right", next: try r[\.cycleLeft])
    }
    container.register(\.cycleLeft, scope: .singleton) { () throws in
      meet.arriveAndWait()
      return CycleNode("left", next: try handle.withLock { $0 }?.value)
    }
    let lazy = container.lazy(\.cycleRight)
    handle.withLock { $0 = lazy }
    let outcomes = Collected<ResolutionError?>()
    let threads = ThreadGroup(count: 2) { index in
      do {
        _ = try index == 0 ? lazy.value : container[\.cycleLeft]
        outcomes.append(nil)
      } catch {
        outcomes.append(error as? ResolutionError)
      }
    }
    #expect(await threads.join(timeout: hangBound), "a loop through a Lazy across threads deadlocked")
    let errors = outcomes.all.compactMap { $0 }
    #expect(errors.contains { $0.kind == .cycle }, "\(errors)")
    for error in errors where error.kind == .cycle {
      #expect(isSimpleLoop(error.path.map(\.name)), "cycle path is not one loop: \(error.path.map(\.name))")
    }
    // Nothing failed is kept: with the loop gone, the handle and the singleton are made.
    handle.withLock { $0 = nil }
    #expect(try lazy.value.next?.label == "left")
  }

  /// The asynchronous form: one task reads the `Lazy`, another makes the singleton that reads it.
  @Test func aLoopThroughAnAsyncLazyAcrossTwoTasksIsACycle() async throws {
    let container = Container()
    let meet = Rendezvous(parties: 2)
    let handle = Locked<Lazy<AsyncKey<CycleNode>>?>(nil)
    container.register(\.cycleAsyncRight) { r async throws in
      await meet.arrive()
      return CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft))
    }
    container.register(\.cycleAsyncLeft, scope: .singleton) { () async throws in
      await meet.arrive()
      let lazy = handle.withLock { $0 }
      return CycleNode("left", next: try await lazy?.value)
    }
    let lazy = container.lazy(\.cycleAsyncRight)
    handle.withLock { $0 = lazy }
    let outcomes = Collected<ResolutionError?>()
    for index in 0..<2 {
      // Unstructured, so that a hung task cannot keep this test from finishing.
      Task {
        do {
          _ = try await index == 0 ? lazy.value : container.resolve(\.cycleAsyncLeft)
          outcomes.append(nil)
        } catch {
          outcomes.append(error as? ResolutionError)
        }
      }
    }
    #expect(await waitUntil(timeout: hangBound) { outcomes.all.count == 2 }, "a loop through a Lazy hung")
    let errors = outcomes.all.compactMap { $0 }
    #expect(errors.contains { $0.kind == .cycle }, "\(errors)")
  }

  /// A singleton's factory awaits a child task that reads a `Lazy` of the singleton, whose first
  /// read (in another task) is what asked for the singleton.
  @Test func aLazyReadInAChildTaskItsMakerAwaitsIsACycle() async throws {
    let container = Container()
    let handle = Locked<Lazy<AsyncKey<CycleNode>>?>(nil)
    container.register(\.cycleAsyncLeft, scope: .singleton) { () async throws in
      let lazy = handle.withLock { $0 }
      async let inner = lazy?.value
      return CycleNode("left", next: try await inner)
    }
    let lazy = container.lazy(\.cycleAsyncLeft)
    handle.withLock { $0 = lazy }
    let outcome = Locked<(ended: Bool, error: (any Error)?)>((false, nil))
    Task {
      do {
        _ = try await lazy.value
        outcome.withLock { $0 = (true, nil) }
      } catch {
        outcome.withLock { $0 = (true, error) }
      }
    }
    #expect(await waitUntil(timeout: hangBound) { outcome.withLock { $0.ended } }, "the Lazy's first read hung")
    let error = outcome.withLock { $0.error } as? ResolutionError
    #expect(error?.kind == .cycle, "\(String(describing: outcome.withLock { $0.error }))")
    #expect(error?.path.first?.name == #"\.cycleAsyncLeft"#)
    #expect(error?.path.last?.name == #"\.cycleAsyncLeft"#)
    // The Lazy already breaks the loop between factories: the fix is where it is read.
    #expect(error?.description.contains("the first read of its Lazy, under way in another thread or task") == true)
    #expect(error?.description.contains("fix: keep the `Lazy`, but read it after the factories on this loop") == true)
  }

  /// The two threads of the loop above released at the same instant, many times: the reader
  /// that loses the race for the `Lazy`'s first read waits through the wait graph too.
  @Test func aLoopThroughALazyIsACycleHoweverTheFirstReadsRace() async throws {
    for iteration in 0..<200 {
      let container = Container()
      let barrier = SpinBarrier(parties: 2)
      let handle = Locked<Lazy<Key<CycleNode>>?>(nil)
      container.register(\.cycleRight) { r in CycleNode("right", next: try r[\.cycleLeft]) }
      container.register(\.cycleLeft, scope: .singleton) { () throws in
        let lazy = handle.withLock { $0 }
        barrier.arrive()
        return CycleNode("left", next: try lazy?.value)
      }
      let lazy = container.lazy(\.cycleRight)
      handle.withLock { $0 = lazy }
      let kinds = Collected<ResolutionError.Kind?>()
      let threads = ThreadGroup(count: 2) { index in
        if index == 0 { barrier.arrive() }
        do {
          _ = try index == 0 ? lazy.value : container[\.cycleLeft]
          kinds.append(nil)
        } catch {
          kinds.append((error as? ResolutionError)?.kind)
        }
      }
      let finished = await threads.join(timeout: hangBound)
      #expect(finished, "iteration \(iteration): a loop through a Lazy deadlocked")
      guard finished else { return }
      #expect(kinds.all.contains(.cycle), "iteration \(iteration): \(kinds.all)")
    }
  }

  /// A factory that awaits a handle's resolution, which needs the factory's own instance: the
  /// path goes through the handle's resolution back to where it started, one closed loop.
  @Test(arguments: [false, true])
  func aLoopThroughAnAwaitedHandleNamesTheWholeLoop(throughLazy: Bool) async throws {
    let container = Container()
    container.register(\.cycleAsyncLeft, scope: .singleton) { r async throws in
      let right =
        throughLazy ? try await r.lazy(\.cycleAsyncRight).value : try await r.provider(\.cycleAsyncRight).get()
      return CycleNode("left", next: right)
    }
    container.register(\.cycleAsyncRight) { r in CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft)) }
    let outcome = Locked<(ended: Bool, error: (any Error)?)>((false, nil))
    Task {
      do {
        _ = try await container.resolve(\.cycleAsyncLeft)
        outcome.withLock { $0 = (true, nil) }
      } catch {
        outcome.withLock { $0 = (true, error) }
      }
    }
    #expect(await waitUntil(timeout: hangBound) { outcome.withLock { $0.ended } }, "the resolution hung")
    let error = outcome.withLock { $0.error } as? ResolutionError
    #expect(error?.kind == .cycle)
    #expect(error?.path.map(\.name) == [#"\.cycleAsyncLeft"#, #"\.cycleAsyncRight"#, #"\.cycleAsyncLeft"#])
  }

  /// Not every wait is a loop: a factory that reads a `Lazy` another thread is making, which
  /// does not need that factory's instance, waits for it and gets its value.
  @Test func waitingForALazyThatIsNotInALoopGetsItsValue() async throws {
    let container = Container()
    let meet = Rendezvous(parties: 2)
    let made = Counter()
    container.register(\.cycleRight) { () throws in
      made.increment()
      meet.arriveAndWait()
      usleep(20_000)  // the other thread is waiting for this read by now
      return CycleNode("right")
    }
    let lazy = container.lazy(\.cycleRight)
    container.register(\.cycleLeft, scope: .singleton) { () throws in
      meet.arriveAndWait()
      return CycleNode("left", next: try lazy.value)
    }
    let outcomes = Collected<String>()
    let threads = ThreadGroup(count: 2) { index in
      do {
        let node = try index == 0 ? lazy.value : container[\.cycleLeft].next
        outcomes.append(node?.label ?? "nil")
      } catch {
        outcomes.append("\(error)")
      }
    }
    #expect(await threads.join(timeout: hangBound), "waiting for a Lazy deadlocked")
    #expect(outcomes.all.sorted() == ["right", "right"])
    #expect(made.count == 1)
  }
}

/// An asynchronous factory that reaches its own step again through a resolution of its own (a
/// handle, or the container it captured) is a cycle, whatever the scope: each such resolution
/// would otherwise start another, without end. Each factory counts its calls and gives up after
/// 500, so that a regression fails instead of using memory until the process dies.
@Suite struct AsyncHandleLoopTests {
  enum Edge: CaseIterable, Sendable { case provider, lazy, capturedContainer }

  @Test(arguments: Edge.allCases, [Scope.unique, .graph, .singleton])
  func anAsyncStepReachingItselfThroughANewResolutionIsACycle(edge: Edge, scope: Scope) async throws {
    let container = Container()
    let calls = Counter()
    container.register(\.cycleAsyncLeft, scope: scope) { r async throws in
      if calls.increment() > 500 { throw PlannedFailure("runaway: 500 nested resolutions") }
      let again: CycleNode =
        switch edge {
        case .provider: try await r.provider(\.cycleAsyncLeft).get()
        case .lazy: try await r.lazy(\.cycleAsyncLeft).value
        case .capturedContainer: try await container.resolve(\.cycleAsyncLeft)
        }
      return CycleNode("left", next: again)
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.cycleAsyncLeft) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    #expect(error?.path.map(\.name) == [#"\.cycleAsyncLeft"#, #"\.cycleAsyncLeft"#])
    #expect(calls.count == 1)
  }

  @Test(arguments: [Scope.unique, .graph])
  func aLoopOfTwoAsyncStepsThroughAProviderIsACycle(scope: Scope) async throws {
    let container = Container()
    let calls = Counter()
    container.register(\.cycleAsyncLeft, scope: scope) { r async throws in
      if calls.increment() > 500 { throw PlannedFailure("runaway: 500 nested resolutions") }
      return CycleNode("left", next: try await r.provider(\.cycleAsyncRight).get())
    }
    container.register(\.cycleAsyncRight) { r in CycleNode("right", next: try await r.resolve(\.cycleAsyncLeft)) }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.cycleAsyncLeft) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    // Found where a step repeats, which may be a lap in: the loop, from either of its members.
    let path = error?.path.map(\.name) ?? []
    #expect(isSimpleLoop(path) && Set(path) == [#"\.cycleAsyncLeft"#, #"\.cycleAsyncRight"#], "\(path)")
    #expect(calls.count <= 2)
  }

  /// Not a loop: a key that asks a provider for itself with another argument each time ends.
  @Test func anAsyncKeyAskingAProviderForItselfWithAnotherArgumentIsNoCycle() async throws {
    let container = Container()
    container.register(\.cycleAsyncCountdown) { r, count async throws in
      guard count > 0 else { return CycleNode("zero") }
      return CycleNode("\(count)", next: try await r.provider(\.cycleAsyncCountdown).get(count - 1))
    }
    var node: CycleNode? = try await container.resolve(\.cycleAsyncCountdown, argument: 5)
    var labels: [String] = []
    while let current = node {
      labels.append(current.label)
      node = current.next
    }
    #expect(labels == ["5", "4", "3", "2", "1", "zero"])
  }
}
