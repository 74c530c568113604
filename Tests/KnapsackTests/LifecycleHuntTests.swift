import Foundation
import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var lhA: Key<LcResource> { .required() }
  var lhB: Key<LcResource> { .required() }
  var lhMarker: Key<LcResource> { .required() }
  var lhAsync: AsyncKey<LcResource> { .required() }
  var lhMain: MainActorKey<LcResource> { .required() }
  var lhArg: ArgumentKey<Int, LcResource> { .required() }
  var lhGraph: Key<Token> { Key { Token("g") }.scope(.graph) }
  var lhMainHolder: MainActorKey<[Token]> { MainActorKey { r in [try r[\.lhGraph], try r[\.lhGraph]] } }
  var lhAsyncRoot: AsyncKey<[Token]> {
    AsyncKey { r in
      let main = try await r.resolve(\.lhMainHolder)
      return main + [try r[\.lhGraph]]
    }
  }
}

/// Lifecycle and scope behaviour a demanding user relies on, across kinds, scopes and containers.
@Suite struct LifecycleHuntTests {

  @Test func aReplacedSingletonIsStillDisposedAfterTheNewOne() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lhA, scope: .singleton) { LcResource("old", log: log) }
    let old = try container[\.lhA]
    container.register(\.lhA, scope: .singleton) { LcResource("new", log: log) }
    let new = try container[\.lhA]
    #expect(old !== new)
    try await container.dispose()
    #expect(log.all == ["new", "old"])
  }

  @Test func aReplacedNonDisposableSingletonIsFreed() async throws {
    let container = Container()
    container.register(\.lhGraph, scope: .singleton) { Token("old") }
    weak let old = try container[\.lhGraph]
    container.register(\.lhGraph, scope: .singleton) { Token("new") }
    _ = try container[\.lhGraph]
    _ = try container[\.lhGraph]
    #expect(await freedSoon { old == nil })
  }

  @Test func handlesResolvingAfterDisposalThrowContainerDisposed() async throws {
    let container = Container()
    container.register(\.lhA, scope: .singleton) { LcResource("a", log: Collected()) }
    container.register(\.lhAsync, scope: .singleton) { LcResource("async", log: Collected()) }
    let provider = container.provider(\.lhA)
    let lazy = container.lazy(\.lhAsync)
    _ = try provider.get()
    try await container.dispose()
    let e1 = #expect(throws: ResolutionError.self) { try provider.get() }
    #expect(e1?.kind == .containerDisposed)
    let e2 = await #expect(throws: ResolutionError.self) { try await lazy.value }
    #expect(e2?.kind == .containerDisposed)
    let child = container.makeChild()
    let e3 = #expect(throws: ResolutionError.self) { try child[\.lhA] }
    #expect(e3?.kind == .containerDisposed)
  }

  @Test func graphIsSharedAcrossAsyncAndMainActorSteps() async throws {
    let container = Container()
    let tokens = try await container.resolve(\.lhAsyncRoot)
    #expect(tokens.count == 3)
    #expect(tokens[0] === tokens[1] && tokens[1] === tokens[2])
    let again = try await container.resolve(\.lhAsyncRoot)
    #expect(again[0] !== tokens[0])
  }

  @Test func concurrentResetsAndResolutionsDisposeEveryCachedInstanceOnce() async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Collected<LcResource>()
    let number = Counter()
    container.register(\.lhA, scope: .cached) { () -> LcResource in
      let r = LcResource("a\(number.increment())", log: log)
      made.append(r)
      return r
    }
    let group = ThreadGroup(count: 8) { i in
      for _ in 0..<200 {
        if i % 4 == 0 { container.resetCached() } else { _ = try? container[\.lhA] }
      }
    }
    #expect(await group.join())
    try await container.dispose()
    #expect(await waitUntil(timeout: hangBound) { made.all.allSatisfy { $0.disposals.count >= 1 } })
    #expect(made.all.allSatisfy { $0.disposals.count == 1 })
  }

}

@Suite struct LifecycleHuntStressTests {
  @Test(arguments: 0..<30)
  func disposeWhileResolvingEveryKind(round: Int) async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Collected<LcResource>()
    @Sendable func make(_ label: String) -> LcResource {
      let r = LcResource(label, log: log)
      made.append(r)
      return r
    }
    container.register(\.lhA, scope: .singleton) { make("a") }
    container.register(\.lhB, scope: .cached) { r in
      _ = try r[\.lhA]
      return make("b")
    }
    container.register(\.lhAsync, scope: .singleton) { r in
      await Task.yield()
      _ = try r[\.lhB]
      return make("async")
    }
    container.register(\.lhArg, scope: .singleton) { r, n in
      _ = try r[\.lhA]
      return make("arg\(n)")
    }
    let child = container.makeChild()
    child.register(\.lhMarker, scope: .singleton) { r in
      _ = try r[\.lhB]
      return make("childMarker")
    }
    let received = Collected<LcResource>()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for i in 0..<12 {
        group.addTask {
          for j in 0..<20 {
            do {
              switch (i + j) % 6 {
              case 0: received.append(try container[\.lhA])
              case 1: received.append(try container[\.lhB])
              case 2: received.append(try await container.resolve(\.lhAsync))
              case 3: received.append(try container.resolve(\.lhArg, argument: j % 3))
              case 4: received.append(try child[\.lhMarker])
              default: container.resetCached()
              }
            } catch let error as ResolutionError {
              #expect(error.kind == .containerDisposed || error.kind == .factoryFailed, "\(error)")
            }
            await Task.yield()
          }
        }
      }
      group.addTask {
        for _ in 0..<(round % 5) { await Task.yield() }
        try await container.dispose()
      }
      try await group.waitForAll()
    }
    #expect(
      await waitUntil(timeout: hangBound) { made.all.allSatisfy { $0.disposals.count >= 1 } },
      "\(made.all.filter { $0.disposals.count == 0 }.map(\.label))")
    #expect(made.all.allSatisfy { $0.disposals.count == 1 })
    #expect(received.all.allSatisfy { $0.disposals.count == 1 })
  }
}

extension Dependencies {
  var lhGraphAsync: AsyncKey<Token> { AsyncKey { Token("ga") }.scope(.graph) }
  var lhFanOut: AsyncKey<[Token]> {
    AsyncKey { r in
      async let a = r.resolve(\.lhGraphAsync)
      async let b = r.resolve(\.lhGraphAsync)
      async let c = r.resolve(\.lhGraph)
      async let d = r.resolve(\.lhGraph)
      return try await [a, b, c, d]
    }
  }
  var lhCachedToken: Key<Token> { .required() }
}

@Suite struct LifecycleHuntMoreTests {
  @Test(arguments: 0..<20)
  func graphInChildTasksIsOnePerResolution(round: Int) async throws {
    let container = Container()
    let tokens = try await container.resolve(\.lhFanOut)
    #expect(tokens[0] === tokens[1])
    #expect(tokens[2] === tokens[3])
  }

  @Test func aChildDecoratingAParentsCachedKeyResetsOnlyItsOwn() async throws {
    let log = Collected<String>()
    let parent = Container()
    let made = Counter()
    parent.register(\.lhA, scope: .cached) { LcResource("a\(made.increment())", log: log) }
    let child = parent.makeChild()
    child.decorate(\.lhA) { _, r in r }
    let p = try parent[\.lhA]
    let c = try child[\.lhA]
    #expect(p !== c)
    parent.resetCached()
    #expect(try child[\.lhA] === c)
    #expect(await waitUntil(timeout: hangBound) { p.disposals.count == 1 })
    child.resetCached()
    #expect(await waitUntil(timeout: hangBound) { c.disposals.count == 1 })
    #expect(try child[\.lhA] !== c)
    try await parent.dispose()
    #expect(log.all.count == 3)
  }

  @MainActor @Test func aResolutionRacingDisposalThroughTheMainActorGetsADisposedInstanceOrAnError() async throws {
    let log = Collected<String>()
    let container = Container()
    let entered = Counter()
    container.register(\.lhAsync, scope: .singleton) { r in
      entered.increment()
      let main = try await r.resolve(\.lhMain)
      return LcResource("async(\(main.label))", log: log)
    }
    container.register(\.lhMain, scope: .singleton) { LcResource("main", log: log) }
    let resolution = Task.detached { try await container.resolve(\.lhAsync) }
    // The async factory hops to the main actor, which this test holds until disposal began.
    #expect(await waitUntil(timeout: hangBound) { entered.count == 1 })
    let disposal = Task.detached { try await container.dispose() }
    #expect(await waitUntil(timeout: hangBound) { container.isDisposed })
    let outcome = await resolution.result
    try await disposal.value
    switch outcome {
    case .success(let value): #expect(value.disposals.count == 1)
    case .failure(let error): #expect((error as? ResolutionError)?.kind == .containerDisposed, "\(error)")
    }
  }

  @Test func registeringAfterDisposalStillRefuses() async throws {
    let container = Container()
    container.register(\.lhCachedToken, scope: .singleton) { Token("a") }
    _ = try container[\.lhCachedToken]
    try await container.dispose()
    container.register(\.lhCachedToken, scope: .singleton) { Token("b") }
    let error = #expect(throws: ResolutionError.self) { try container[\.lhCachedToken] }
    #expect(error?.kind == .containerDisposed)
    container.resetCached()
    let child = container.makeChild()
    child.register(\.lhCachedToken) { Token("c") }
    #expect(throws: ResolutionError.self) { try child[\.lhCachedToken] }
    try await child.dispose()
  }

  @Test func aChildsProviderFailsAfterTheChildAloneIsDisposed() async throws {
    let parent = Container()
    parent.register(\.lhCachedToken, scope: .singleton) { Token("p") }
    let child = parent.makeChild()
    let childProvider = child.provider(\.lhCachedToken)
    let parentProvider = parent.provider(\.lhCachedToken)
    let t = try childProvider.get()
    try await child.dispose()
    let error = #expect(throws: ResolutionError.self) { try childProvider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(try parentProvider.get() === t)
  }
}

@Suite struct LifecycleHuntReplaceTests {
  @Test func aReplacedParentRegistrationFreesTheChildsDecoratedInstance() async throws {
    let parent = Container()
    parent.register(\.lhCachedToken, scope: .singleton) { Token("old") }
    let child = parent.makeChild()
    child.decorate(\.lhCachedToken) { _, t in t }
    weak let old = try child[\.lhCachedToken]
    weak let parentOld = try parent[\.lhCachedToken]
    parent.register(\.lhCachedToken, scope: .singleton) { Token("new") }
    #expect(try child[\.lhCachedToken].label == "new")
    #expect(try parent[\.lhCachedToken].label == "new")
    #expect(await freedSoon { old == nil })
    #expect(await freedSoon { parentOld == nil })
  }

  @Test func aReplacedCachedDisposableIsDisposedOnceAtDisposalNotByAReset() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lhA, scope: .cached) { LcResource("old", log: log) }
    let old = try container[\.lhA]
    container.register(\.lhA, scope: .cached) { LcResource("new", log: log) }
    let new = try container[\.lhA]
    container.resetCached()
    #expect(await waitUntil(timeout: hangBound) { new.disposals.count == 1 })
    try await container.dispose()
    #expect(old.disposals.count == 1)
    #expect(log.all == ["new", "old"])
  }
}
