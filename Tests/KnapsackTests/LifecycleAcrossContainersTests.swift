import Foundation
import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var lifeA: Key<LcResource> { .required() }
  var lifeB: Key<LcResource> { .required() }
  var lifeMarker: Key<LcResource> { .required() }
  var lifeAsync: AsyncKey<LcResource> { .required() }
  var lifeMain: MainActorKey<LcResource> { .required() }
  var lifeArg: ArgumentKey<Int, LcResource> { .required() }
  var lifeGraph: Key<Token> { Key { Token("g") }.scope(.graph) }
  var lifeMainHolder: MainActorKey<[Token]> { MainActorKey { r in [try r[\.lifeGraph], try r[\.lifeGraph]] } }
  var lifeAsyncRoot: AsyncKey<[Token]> {
    AsyncKey { r in
      let main = try await r.resolve(\.lifeMainHolder)
      return main + [try r[\.lifeGraph]]
    }
  }
}

/// Lifecycle and scope behaviour a demanding user relies on, across kinds, scopes and containers.
@Suite struct LifecycleAcrossContainersTests {

  @Test func aReplacedSingletonIsStillDisposedAfterTheNewOne() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lifeA, scope: .singleton) { LcResource("old", log: log) }
    let old = try container[\.lifeA]
    container.register(\.lifeA, scope: .singleton) { LcResource("new", log: log) }
    let new = try container[\.lifeA]
    #expect(old !== new)
    try await container.dispose()
    #expect(log.all == ["new", "old"])
  }

  @Test func aReplacedNonDisposableSingletonIsFreed() async throws {
    let container = Container()
    container.register(\.lifeGraph, scope: .singleton) { Token("old") }
    weak let old = try container[\.lifeGraph]
    container.register(\.lifeGraph, scope: .singleton) { Token("new") }
    _ = try container[\.lifeGraph]
    _ = try container[\.lifeGraph]
    #expect(await freedSoon { old == nil })
  }

  @Test func handlesResolvingAfterDisposalThrowContainerDisposed() async throws {
    let container = Container()
    container.register(\.lifeA, scope: .singleton) { LcResource("a", log: Collected()) }
    container.register(\.lifeAsync, scope: .singleton) { LcResource("async", log: Collected()) }
    let provider = container.provider(\.lifeA)
    let lazy = container.lazy(\.lifeAsync)
    _ = try provider.get()
    try await container.dispose()
    let e1 = #expect(throws: ResolutionError.self) { try provider.get() }
    #expect(e1?.kind == .containerDisposed)
    let e2 = await #expect(throws: ResolutionError.self) { try await lazy.value }
    #expect(e2?.kind == .containerDisposed)
    let child = container.makeChild()
    let e3 = #expect(throws: ResolutionError.self) { try child[\.lifeA] }
    #expect(e3?.kind == .containerDisposed)
  }

  @Test func graphIsSharedAcrossAsyncAndMainActorSteps() async throws {
    let container = Container()
    let tokens = try await container.resolve(\.lifeAsyncRoot)
    #expect(tokens.count == 3)
    #expect(tokens[0] === tokens[1] && tokens[1] === tokens[2])
    let again = try await container.resolve(\.lifeAsyncRoot)
    #expect(again[0] !== tokens[0])
  }

  @Test func concurrentResetsAndResolutionsDisposeEveryCachedInstanceOnce() async throws {
    let log = Collected<String>()
    let container = Container()
    let made = Collected<LcResource>()
    let number = Counter()
    container.register(\.lifeA, scope: .cached) { () -> LcResource in
      let r = LcResource("a\(number.increment())", log: log)
      made.append(r)
      return r
    }
    let group = ThreadGroup(count: 8) { i in
      for _ in 0..<200 {
        if i % 4 == 0 { container.resetCached() } else { _ = try? container[\.lifeA] }
      }
    }
    #expect(await group.join())
    try await container.dispose()
    #expect(await waitUntil(timeout: hangBound) { made.all.allSatisfy { $0.disposals.count >= 1 } })
    #expect(made.all.allSatisfy { $0.disposals.count == 1 })
  }

}

@Suite struct LifecycleStressTests {
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
    container.register(\.lifeA, scope: .singleton) { make("a") }
    container.register(\.lifeB, scope: .cached) { r in
      _ = try r[\.lifeA]
      return make("b")
    }
    container.register(\.lifeAsync, scope: .singleton) { r in
      await Task.yield()
      _ = try r[\.lifeB]
      return make("async")
    }
    container.register(\.lifeArg, scope: .singleton) { r, n in
      _ = try r[\.lifeA]
      return make("arg\(n)")
    }
    let child = container.makeChild()
    child.register(\.lifeMarker, scope: .singleton) { r in
      _ = try r[\.lifeB]
      return make("childMarker")
    }
    let received = Collected<LcResource>()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for i in 0..<12 {
        group.addTask {
          for j in 0..<20 {
            do {
              switch (i + j) % 6 {
              case 0: received.append(try container[\.lifeA])
              case 1: received.append(try container[\.lifeB])
              case 2: received.append(try await container.resolve(\.lifeAsync))
              case 3: received.append(try container.resolve(\.lifeArg, argument: j % 3))
              case 4: received.append(try child[\.lifeMarker])
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
  var lifeGraphAsync: AsyncKey<Token> { AsyncKey { Token("ga") }.scope(.graph) }
  var lifeFanOut: AsyncKey<[Token]> {
    AsyncKey { r in
      async let a = r.resolve(\.lifeGraphAsync)
      async let b = r.resolve(\.lifeGraphAsync)
      async let c = r.resolve(\.lifeGraph)
      async let d = r.resolve(\.lifeGraph)
      return try await [a, b, c, d]
    }
  }
  var lifeCachedToken: Key<Token> { .required() }
}

@Suite struct LifecycleAcrossTasksAndChildrenTests {
  @Test(arguments: 0..<20)
  func graphInChildTasksIsOnePerResolution(round: Int) async throws {
    let container = Container()
    let tokens = try await container.resolve(\.lifeFanOut)
    #expect(tokens[0] === tokens[1])
    #expect(tokens[2] === tokens[3])
  }

  @Test func aChildDecoratingAParentsCachedKeyResetsOnlyItsOwn() async throws {
    let log = Collected<String>()
    let parent = Container()
    let made = Counter()
    parent.register(\.lifeA, scope: .cached) { LcResource("a\(made.increment())", log: log) }
    let child = parent.makeChild()
    child.decorate(\.lifeA) { _, r in r }
    let p = try parent[\.lifeA]
    let c = try child[\.lifeA]
    #expect(p !== c)
    parent.resetCached()
    #expect(try child[\.lifeA] === c)
    #expect(await waitUntil(timeout: hangBound) { p.disposals.count == 1 })
    child.resetCached()
    #expect(await waitUntil(timeout: hangBound) { c.disposals.count == 1 })
    #expect(try child[\.lifeA] !== c)
    try await parent.dispose()
    #expect(log.all.count == 3)
  }

  @MainActor @Test func aResolutionRacingDisposalThroughTheMainActorGetsADisposedInstanceOrAnError() async throws {
    let log = Collected<String>()
    let container = Container()
    let entered = Counter()
    container.register(\.lifeAsync, scope: .singleton) { r in
      entered.increment()
      let main = try await r.resolve(\.lifeMain)
      return LcResource("async(\(main.label))", log: log)
    }
    container.register(\.lifeMain, scope: .singleton) { LcResource("main", log: log) }
    let resolution = Task.detached { try await container.resolve(\.lifeAsync) }
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
    container.register(\.lifeCachedToken, scope: .singleton) { Token("a") }
    _ = try container[\.lifeCachedToken]
    try await container.dispose()
    container.register(\.lifeCachedToken, scope: .singleton) { Token("b") }
    let error = #expect(throws: ResolutionError.self) { try container[\.lifeCachedToken] }
    #expect(error?.kind == .containerDisposed)
    container.resetCached()
    let child = container.makeChild()
    child.register(\.lifeCachedToken) { Token("c") }
    #expect(throws: ResolutionError.self) { try child[\.lifeCachedToken] }
    try await child.dispose()
  }

  @Test func aChildsProviderFailsAfterTheChildAloneIsDisposed() async throws {
    let parent = Container()
    parent.register(\.lifeCachedToken, scope: .singleton) { Token("p") }
    let child = parent.makeChild()
    let childProvider = child.provider(\.lifeCachedToken)
    let parentProvider = parent.provider(\.lifeCachedToken)
    let t = try childProvider.get()
    try await child.dispose()
    let error = #expect(throws: ResolutionError.self) { try childProvider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(try parentProvider.get() === t)
  }
}

@Suite struct LifecycleOfReplacedRegistrationsTests {
  @Test func aReplacedParentRegistrationFreesTheChildsDecoratedInstance() async throws {
    let parent = Container()
    parent.register(\.lifeCachedToken, scope: .singleton) { Token("old") }
    let child = parent.makeChild()
    child.decorate(\.lifeCachedToken) { _, t in t }
    weak let old = try child[\.lifeCachedToken]
    weak let parentOld = try parent[\.lifeCachedToken]
    parent.register(\.lifeCachedToken, scope: .singleton) { Token("new") }
    #expect(try child[\.lifeCachedToken].label == "new")
    #expect(try parent[\.lifeCachedToken].label == "new")
    #expect(await freedSoon { old == nil })
    #expect(await freedSoon { parentOld == nil })
  }

  @Test func aReplacedCachedDisposableIsDisposedOnceAtDisposalNotByAReset() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.lifeA, scope: .cached) { LcResource("old", log: log) }
    let old = try container[\.lifeA]
    container.register(\.lifeA, scope: .cached) { LcResource("new", log: log) }
    let new = try container[\.lifeA]
    container.resetCached()
    #expect(await waitUntil(timeout: hangBound) { new.disposals.count == 1 })
    try await container.dispose()
    #expect(old.disposals.count == 1)
    #expect(log.all == ["new", "old"])
  }
}
