import Foundation
import Knapsack
import Testing

extension Dependencies {
  fileprivate var raceText: Key<String> { Key { "default" } }
  fileprivate var raceShared: Key<Token> { Key { Token("shared") }.scope(.singleton) }
  fileprivate var raceMain: MainActorKey<Token> { MainActorKey { r in Token(try r[\.raceShared].label) } }
  fileprivate var raceAsync: DependencyKey<AsyncKind, Int, Token> {
    DependencyKey { _, n in Token("\(n)") }.scope(.cached)
  }
  fileprivate var raceA: AsyncKey<Token> { AsyncKey { _ in Token("a") }.scope(.singleton) }
  fileprivate var raceB: AsyncKey<Token> { AsyncKey { _ in Token("b") }.scope(.singleton) }
  fileprivate var raceC: AsyncKey<Token> { AsyncKey { _ in Token("c") }.scope(.singleton) }
  fileprivate var raceWeak: Key<Token> { Key { Token("weak") }.scope(.weak) }
}

/// Lifetimes and task-locals under concurrency: what held (regression guards).
@Suite struct LifetimeRaceTests {
  @Test(.hangGuard) func syncScopeOnAThreadReachesATaskItStarts() async throws {
    let container = Container()
    let seen = Collected<String>()
    let thread = Thread {
      withOverrides {
        $0.register(\.raceText) { "overridden" }
      } operation: {
        seen.append((try? container[\.raceText]) ?? "failed")
        Task { seen.append((try? container[\.raceText]) ?? "failed") }
        _ = withContainer(container) {
          Task { seen.append(Container.current === container ? "current" : "not current") }
        }
      }
    }
    thread.start()
    #expect(await waitUntil(timeout: hangBound) { seen.all.count == 3 })
    #expect(Set(seen.all) == ["overridden", "current"])
  }

  @Test(.hangGuard) func aChildAndItsProviderRefuseOnceTheParentIsDisposed() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.raceShared, scope: .singleton) { Token("child") }
    let before = try child[\.raceShared]
    try await parent.dispose()
    #expect(throws: ResolutionError.self) { try child[\.raceShared] }
    let late = parent.makeChild()
    late.register(\.raceShared, scope: .singleton) { Token("late") }
    #expect(throws: ResolutionError.self) { try late[\.raceShared] }
    #expect(late.isDisposed)
    _ = before
    let provider = child.provider(\.raceShared)
    #expect(throws: ResolutionError.self) { try provider.get() }
  }

  @Test(.hangGuard) func everyCachedInstanceMadeWhileResolveRacesDisposeAndResetIsDisposed() async throws {
    for _ in 0..<20 {
      let container = Container()
      let closed = Counter()
      let made = Counter()
      container.register(\.raceShared, scope: .cached, dispose: { _ in closed.increment() }) {
        made.increment()
        return Token("c")
      }
      await withTaskGroup(of: Void.self) { group in
        for i in 0..<40 {
          group.addTask {
            if i == 20 { try? await container.dispose() }
            if i % 7 == 0 { container.resetCached() }
            _ = try? container[\.raceShared]
          }
        }
      }
      try? await container.dispose()
      #expect(closed.count == made.count, "made \(made.count) closed \(closed.count)")
    }
  }

  @Test(.hangGuard) func mainActorFactoryWaitsForASyncSingletonAnotherThreadMakes() async throws {
    let container = Container()
    let arrivals = Counter()
    container.register(\.raceShared, scope: .singleton) { () -> Token in
      arrivals.increment()
      holdUntil(arrivals, reaches: 2, timeout: .milliseconds(200))
      return Token("slow")
    }
    let threads = ThreadGroup(count: 1) { _ in _ = try? container[\.raceShared] }
    #expect(await waitUntil(timeout: hangBound) { arrivals.count == 1 })
    let model = try await container.resolve(\.raceMain)
    #expect(model.label == "slow")
    #expect(await threads.join())
    #expect(arrivals.count == 1)
  }

  @Test(.hangGuard) func throwFirstThenSucceedWithCancelledAndLiveWaiters() async throws {
    let container = Container()
    let attempts = Counter()
    container.register(\.raceAsync, scope: .cached) { _, n async throws in
      if attempts.increment() == 1 {
        try await Task.sleep(for: .milliseconds(20))
        throw PlannedFailure()
      }
      return Token("\(n)")
    }
    let results = await withTaskGroup(of: String.self) { group in
      for i in 0..<50 {
        group.addTask {
          if i % 5 == 4 { withUnsafeCurrentTask { $0?.cancel() } }
          do { return try await container.resolve(\.raceAsync, argument: 1).label } catch is CancellationError {
            return "cancelled"
          } catch { return "failed" }
        }
      }
      return await group.reduce(into: [String]()) { $0.append($1) }
    }
    // Only the first attempt fails; every other resolution gets the instance, or is cancelled.
    #expect(results.filter { $0 == "failed" }.count <= 1)
    #expect(results.allSatisfy { ["1", "cancelled", "failed"].contains($0) })
    #expect(try await container.resolve(\.raceAsync, argument: 1).label == "1")
    #expect(attempts.count >= 2)
  }

  @Test(.hangGuard) func aWeakInstanceIsSharedWhileHeldUnderConcurrentResolutions() async throws {
    let container = Container()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<200 {
        group.addTask {
          let a = try? container[\.raceWeak]
          let b = try? container[\.raceWeak]
          #expect(a != nil && b != nil)
          if let a, let b { #expect(a === b) }
        }
      }
    }
  }

  @Test(.hangGuard) func asyncCrossTaskCycleIsAnError() async throws {
    let container = Container()
    let arrivals = Counter()
    container.register(\.raceA, scope: .singleton) { r async throws in
      arrivals.increment()
      while arrivals.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
      return Token("a \(try await r.resolve(\.raceB).label)")
    }
    container.register(\.raceB, scope: .singleton) { r async throws in
      arrivals.increment()
      while arrivals.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
      return Token("b \(try await r.resolve(\.raceA).label)")
    }
    let ta = Task { try await container.resolve(\.raceA) }
    let tb = Task { try await container.resolve(\.raceB) }
    let (ra, rb) = (await ta.result, await tb.result)
    var kinds: [String] = []
    for r in [ra, rb] {
      switch r {
      case .success: kinds.append("ok")
      case .failure(let e): kinds.append("\((e as? ResolutionError).map { "\($0.kind)" } ?? "\(e)")")
      }
    }
    #expect(kinds.contains { $0 != "ok" }, "\(kinds)")
  }

  @Test(.hangGuard) func asyncDiamondAcrossTasksIsNoCycle() async throws {
    let container = Container()
    let arrivals = Counter()
    container.register(\.raceB, scope: .singleton) { _ async throws in
      arrivals.increment()
      while arrivals.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
      try await Task.sleep(for: .milliseconds(5))
      return Token("b")
    }
    container.register(\.raceC, scope: .singleton) { r async throws in
      arrivals.increment()
      return Token("c \(try await r.resolve(\.raceB).label)")
    }
    container.register(\.raceA, scope: .singleton) { r async throws in
      Token("a \(try await r.resolve(\.raceB).label) \(try await r.resolve(\.raceC).label)")
    }
    async let a = container.resolve(\.raceA)
    async let c = container.resolve(\.raceC)
    let (va, vc) = try await (a, c)
    #expect(va.label == "a b c b")
    #expect(vc.label == "c b")
  }
}
