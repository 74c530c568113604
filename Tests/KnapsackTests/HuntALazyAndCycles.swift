import Foundation
import Knapsack
import Testing

// Lazy handles of every kind read by many tasks at once, and cycles closed through a captured
// container, a provider, a lazy handle or a child task, for every kind (from the article
// "Property Wrappers, Lazy Values and Cycles").

/// A slot a factory reads a handle from, filled after the registration.
final class HuntABox<Value: Sendable>: Sendable {
  private let stored = Locked<Value?>(nil)
  var value: Value? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}

@Suite struct HuntALazyAndCycleTests {
  @Test func aLazyOfEveryKindReadByManyTasksAtOnceMakesItsValueOnce() async throws {
    let container = Container()
    let made = Counter()
    for kind in HuntAKind.all { kind.register(container, .unique, made, kind.name, nil) }
    let (sync, async, main, arg, asyncArg, mainArg) = huntALazies(of: container)
    let results = await huntAConcurrently(60) { index in
      switch index % 6 {
      case 0: return try sync.value
      case 1: return try await async.value
      case 2: return try await MainActor.run { try main.value }
      case 3: return try arg.value
      case 4: return try await asyncArg.value
      default: return try await main.value
      }
    }
    let tokens = try results.map { try $0.get() }
    _ = try await MainActor.run { try mainArg.value }
    #expect(Set(tokens.map(ObjectIdentifier.init)).count == 5, "one value per handle")
    #expect(made.count == 6, "each handle's factory ran once")
  }

  @Test func anAsyncFactoryThatReadsALazyOfItselfIsACycle() async throws {
    let container = Container()
    let handle = HuntABox<Lazy<AsyncKey<Token>>>()
    container.register(\.haAsync) { _ in
      let lazy = try #require(handle.value)
      return try await lazy.value
    }
    handle.value = container.lazy(\.haAsync)
    let error = await #expect(throws: ResolutionError.self) { try await handle.value?.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncArgumentFactoryThatReadsALazyOfItselfForItsArgumentIsACycle() async throws {
    let container = Container()
    let handle = HuntABox<Lazy<DependencyKey<AsyncKind, Int, Token>>>()
    container.register(\.haAsyncArg, scope: .singleton) { _, n in
      let lazy = try #require(handle.value)
      return try await lazy.value
    }
    handle.value = container.lazy(\.haAsyncArg, argument: 1)
    let error = await #expect(throws: ResolutionError.self) { try await handle.value?.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @MainActor @Test func aMainActorFactoryThatReadsALazyOfItselfIsACycle() async throws {
    let container = Container()
    let handle = HuntABox<Lazy<MainActorKey<Token>>>()
    container.register(\.haMain, scope: .singleton) { _ in
      let lazy = try #require(handle.value)
      return try lazy.value
    }
    handle.value = container.lazy(\.haMain)
    let lazy = try #require(handle.value)
    let error = #expect(throws: ResolutionError.self) { try lazy.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    // And resolved rather than read, the same.
    let resolved = #expect(throws: ResolutionError.self) { try container[\.haMain] }
    #expect(resolved?.kind == .cycle, "\(String(describing: resolved))")
  }

  @MainActor @Test func aMainActorFactoryThatResolvesItselfThroughACapturedContainerIsACycle() async throws {
    let container = Container()
    container.register(\.haMainArg, scope: .singleton) { [container] _, n in
      if n == 1 { return try container.resolve(\.haMainArg, argument: 1) }
      return Token("\(n)")
    }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.haMainArg, argument: 1) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    #expect(try container.resolve(\.haMainArg, argument: 2).label == "2")
  }

  @Test func aMainActorFactoryReachedByAsyncResolveThatResolvesItselfIsACycle() async throws {
    let container = Container()
    container.register(\.haMain, scope: .cached) { [container] _ in try container[\.haMain] }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.haMain) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func aMainActorArgumentFactoryThatCallsItsOwnProviderIsACycleOnlyForItsArgument() async throws {
    let container = Container()
    let handle = HuntABox<Provider<DependencyKey<MainActorKind, Int, Token>>>()
    container.register(\.haMainArg, scope: .weak) { _, n in
      let provider = try #require(handle.value)
      if n > 0 { return Token("\(n) over " + (try provider.get(n - 1)).label) }
      if n == 0 { return Token("zero") }
      return try provider.get(n)
    }
    handle.value = container.provider(\.haMainArg)
    #expect(try await container.resolve(\.haMainArg, argument: 2).label == "2 over 1 over zero")
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.haMainArg, argument: -1) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncArgumentFactoryThatAwaitsItselfInAChildTaskIsACycle() async throws {
    let container = Container()
    container.register(\.haAsyncArg, scope: .cached) { [container] _, n in
      async let again = container.resolve(\.haAsyncArg, argument: n)
      return try await again
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.haAsyncArg, argument: 4) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncFactoryThatAwaitsAMainActorKeyWhoseFactoryReadsTheAsyncKeysLazyFails() async throws {
    // \.haAsync (singleton) awaits \.haMain, whose factory reads a Lazy of \.haAsync: the lazy's
    // first read waits for the instance being made, which waits for it.
    let container = Container()
    let handle = HuntABox<Lazy<AsyncKey<Token>>>()
    container.register(\.haAsync, scope: .singleton) { r in Token("async over " + (try await r.resolve(\.haMain)).label)
    }
    container.register(\.haMain) { _ in
      let lazy = try #require(handle.value)
      // A main-actor factory cannot await: it reads the lazy's value from a task and waits
      // without blocking forever (bounded), so a missed cycle fails the test, not the run.
      let result = Locked<Result<Token, any Error>?>(nil)
      Task.detached {
        do {
          let token = try await lazy.value
          result.withLock { $0 = .success(token) }
        } catch { result.withLock { $0 = .failure(error) } }
      }
      _ = waitUntilSync(timeout: .seconds(1)) { result.withLock { $0 != nil } }
      switch result.withLock({ $0 }) {
      case .success(let token)?: return token
      case .failure(let error)?: throw error
      case nil: throw PlannedFailure("the lazy's read did not end")
      }
    }
    handle.value = container.lazy(\.haAsync)
    // The documented limit: a factory that waits for an unstructured task that waits for the
    // instance waits for ever; here the wait is bounded and fails, and nothing is kept.
    await #expect(throws: (any Error).self) { try await container.resolve(\.haAsync) }
    container.register(\.haMain) { _ in Token("main") }
    #expect(try await container.resolve(\.haAsync).label == "async over main")
  }
}

/// A main-actor inbox that reaches its asynchronous notifier lazily.
final class HuntAInbox: Sendable {
  let notifier: Lazy<AsyncKey<HuntANotifier>>
  init(notifier: Lazy<AsyncKey<HuntANotifier>>) { self.notifier = notifier }
}

final class HuntANotifier: Sendable {
  let inbox: HuntAInbox
  init(inbox: HuntAInbox) { self.inbox = inbox }
}

extension Dependencies {
  var haInbox: MainActorKey<HuntAInbox> {
    MainActorKey { r in HuntAInbox(notifier: r.lazy(\.haNotifier)) }.scope(.singleton)
  }
  var haNotifier: AsyncKey<HuntANotifier> {
    AsyncKey { r in HuntANotifier(inbox: try await r.resolve(\.haInbox)) }.scope(.singleton)
  }
  var haLoopMain: MainActorKey<Token> { MainActorKey { r in try r[\.haLoopSync] } }
  var haLoopSync: Key<Token> { Key { r in try MainActor.assumeIsolated { try r[\.haLoopMain] } } }
  var haLoopAsync: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.haLoopMain) } }
}

@Suite struct HuntACrossKindCycleTests {
  @Test func aLoopAcrossAsyncAndMainActorKeysBrokenByALazyIsValidAndResolves() async throws {
    let container = Container()
    let report = await container.validate(including: [\.haNotifier, \.haInbox])
    #expect(report.isValid, "\(report)")
    let notifier = try await container.resolve(\.haNotifier)
    #expect(try await notifier.inbox.notifier.value === notifier)
    #expect(try await container.resolve(\.haInbox) === notifier.inbox)
  }

  @Test func aLoopThroughAMainActorAndASynchronousKeyIsACycleFromEitherEnd() async throws {
    let container = Container()
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.haLoopAsync) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    #expect(
      error?.description.contains("\\.haLoopMain → \\.haLoopSync → \\.haLoopMain") == true,
      "\(String(describing: error))")
    let report = await container.validate(including: [\.haLoopAsync])
    #expect(report.problems(.cycle).count == 1, "\(report)")
  }
}
