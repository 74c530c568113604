import Foundation
import Knapsack
import Testing

// Lazy handles of every kind read by many tasks at once, and cycles closed through a captured
// container, a provider, a lazy handle or a child task, for every kind (from the article
// "Property Wrappers, Lazy Values and Cycles").

/// A slot a factory reads a handle from, filled after the registration.
final class KindBox<Value: Sendable>: Sendable {
  private let stored = Locked<Value?>(nil)
  var value: Value? {
    get { stored.withLock { $0 } }
    set { stored.withLock { $0 = newValue } }
  }
}

@Suite struct LazyAndCycleAcrossKindsTests {
  @Test func aLazyOfEveryKindReadByManyTasksAtOnceMakesItsValueOnce() async throws {
    let container = Container()
    let made = Counter()
    for kind in KeyKindCase.all { kind.register(container, .unique, made, kind.name, nil) }
    let (sync, async, main, arg, asyncArg, mainArg) = lazyOfEachKind(of: container)
    let results = await resolveConcurrently(60) { index in
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
    let handle = KindBox<Lazy<AsyncKey<Token>>>()
    container.register(\.kindAsync) { _ in
      let lazy = try #require(handle.value)
      return try await lazy.value
    }
    handle.value = container.lazy(\.kindAsync)
    let error = await #expect(throws: ResolutionError.self) { try await handle.value?.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncArgumentFactoryThatReadsALazyOfItselfForItsArgumentIsACycle() async throws {
    let container = Container()
    let handle = KindBox<Lazy<DependencyKey<AsyncKind, Int, Token>>>()
    container.register(\.kindAsyncArg, scope: .singleton) { _, n in
      let lazy = try #require(handle.value)
      return try await lazy.value
    }
    handle.value = container.lazy(\.kindAsyncArg, argument: 1)
    let error = await #expect(throws: ResolutionError.self) { try await handle.value?.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @MainActor @Test func aMainActorFactoryThatReadsALazyOfItselfIsACycle() async throws {
    let container = Container()
    let handle = KindBox<Lazy<MainActorKey<Token>>>()
    container.register(\.kindMain, scope: .singleton) { _ in
      let lazy = try #require(handle.value)
      return try lazy.value
    }
    handle.value = container.lazy(\.kindMain)
    let lazy = try #require(handle.value)
    let error = #expect(throws: ResolutionError.self) { try lazy.value }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    // And resolved rather than read, the same.
    let resolved = #expect(throws: ResolutionError.self) { try container[\.kindMain] }
    #expect(resolved?.kind == .cycle, "\(String(describing: resolved))")
  }

  @MainActor @Test func aMainActorFactoryThatResolvesItselfThroughACapturedContainerIsACycle() async throws {
    let container = Container()
    container.register(\.kindMainArg, scope: .singleton) { [container] _, n in
      if n == 1 { return try container.resolve(\.kindMainArg, argument: 1) }
      return Token("\(n)")
    }
    let error = #expect(throws: ResolutionError.self) { try container.resolve(\.kindMainArg, argument: 1) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    #expect(try container.resolve(\.kindMainArg, argument: 2).label == "2")
  }

  @Test func aMainActorFactoryReachedByAsyncResolveThatResolvesItselfIsACycle() async throws {
    let container = Container()
    container.register(\.kindMain, scope: .cached) { [container] _ in try container[\.kindMain] }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindMain) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func aMainActorArgumentFactoryThatCallsItsOwnProviderIsACycleOnlyForItsArgument() async throws {
    let container = Container()
    let handle = KindBox<Provider<DependencyKey<MainActorKind, Int, Token>>>()
    container.register(\.kindMainArg, scope: .weak) { _, n in
      let provider = try #require(handle.value)
      if n > 0 { return Token("\(n) over " + (try provider.get(n - 1)).label) }
      if n == 0 { return Token("zero") }
      return try provider.get(n)
    }
    handle.value = container.provider(\.kindMainArg)
    #expect(try await container.resolve(\.kindMainArg, argument: 2).label == "2 over 1 over zero")
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindMainArg, argument: -1) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncArgumentFactoryThatAwaitsItselfInAChildTaskIsACycle() async throws {
    let container = Container()
    container.register(\.kindAsyncArg, scope: .cached) { [container] _, n in
      async let again = container.resolve(\.kindAsyncArg, argument: n)
      return try await again
    }
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindAsyncArg, argument: 4) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
  }

  @Test func anAsyncFactoryThatAwaitsAMainActorKeyWhoseFactoryReadsTheAsyncKeysLazyFails() async throws {
    // \.kindAsync (singleton) awaits \.kindMain, whose factory reads a Lazy of \.kindAsync: the lazy's
    // first read waits for the instance being made, which waits for it.
    let container = Container()
    let handle = KindBox<Lazy<AsyncKey<Token>>>()
    container.register(\.kindAsync, scope: .singleton) { r in
      Token("async over " + (try await r.resolve(\.kindMain)).label)
    }
    container.register(\.kindMain) { _ in
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
    handle.value = container.lazy(\.kindAsync)
    // The documented limit: a factory that waits for an unstructured task that waits for the
    // instance waits for ever; here the wait is bounded and fails, and nothing is kept.
    await #expect(throws: (any Error).self) { try await container.resolve(\.kindAsync) }
    container.register(\.kindMain) { _ in Token("main") }
    #expect(try await container.resolve(\.kindAsync).label == "async over main")
  }
}

/// A main-actor inbox that reaches its asynchronous notifier lazily.
final class KindInbox: Sendable {
  let notifier: Lazy<AsyncKey<KindNotifier>>
  init(notifier: Lazy<AsyncKey<KindNotifier>>) { self.notifier = notifier }
}

final class KindNotifier: Sendable {
  let inbox: KindInbox
  init(inbox: KindInbox) { self.inbox = inbox }
}

extension Dependencies {
  var kindInbox: MainActorKey<KindInbox> {
    MainActorKey { r in KindInbox(notifier: r.lazy(\.kindNotifier)) }.scope(.singleton)
  }
  var kindNotifier: AsyncKey<KindNotifier> {
    AsyncKey { r in KindNotifier(inbox: try await r.resolve(\.kindInbox)) }.scope(.singleton)
  }
  var kindLoopMain: MainActorKey<Token> { MainActorKey { r in try r[\.kindLoopSync] } }
  var kindLoopSync: Key<Token> { Key { r in try MainActor.assumeIsolated { try r[\.kindLoopMain] } } }
  var kindLoopAsync: AsyncKey<Token> { AsyncKey { r in try await r.resolve(\.kindLoopMain) } }
}

@Suite struct CrossKindCycleTests {
  @Test func aLoopAcrossAsyncAndMainActorKeysBrokenByALazyIsValidAndResolves() async throws {
    let container = Container()
    let report = await container.validate(including: [\.kindNotifier, \.kindInbox])
    #expect(report.isValid, "\(report)")
    let notifier = try await container.resolve(\.kindNotifier)
    #expect(try await notifier.inbox.notifier.value === notifier)
    #expect(try await container.resolve(\.kindInbox) === notifier.inbox)
  }

  @Test func aLoopThroughAMainActorAndASynchronousKeyIsACycleFromEitherEnd() async throws {
    let container = Container()
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.kindLoopAsync) }
    #expect(error?.kind == .cycle, "\(String(describing: error))")
    #expect(
      error?.description.contains("\\.kindLoopMain → \\.kindLoopSync → \\.kindLoopMain") == true,
      "\(String(describing: error))")
    let report = await container.validate(including: [\.kindLoopAsync])
    #expect(report.problems(.cycle).count == 1, "\(report)")
  }
}
