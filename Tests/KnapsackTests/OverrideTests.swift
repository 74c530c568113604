import Dispatch
import Foundation
import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var overrideValue: Key<String> { Key { "default" } }
  var overrideShared: Key<Token> { Key { Token("default singleton") }.scope(.singleton) }
  var overrideHolder: Key<OvHolder> { .required() }
  var overrideRepository: Key<Repository> { Key { r in Repository(storage: try r[\.storage]) }.scope(.singleton) }
  var overrideAsyncResource: AsyncKey<Resource> { .required() }
  var overrideResourceNamed: ArgumentKey<String, Resource> { .required() }
  var overrideAsyncResourceNamed: DependencyKey<AsyncKind, String, Resource> { .required() }
  var overrideSource: Key<Resource> { .required() }
  var overrideAliasOfSource: Key<Resource> { .required() }
}

/// Keeps a handle to a token and the storage its factory resolved through a captured container.
final class OvHolder: Sendable {
  let token: Lazy<Key<Token>>
  let storage: any LocalStorage
  init(token: Lazy<Key<Token>>, storage: any LocalStorage) {
    self.token = token
    self.storage = storage
  }
}

@Suite struct OverrideTests {
  @Test func isRegisteredSeesWhatTheScopeRegisters() throws {
    let container = Container()
    #expect(!container.isRegistered(\.overrideHolder))
    #expect(!container.isRegistered(type: Token.self, name: "scoped"))
    withOverrides {
      $0.register(\.overrideHolder) { r in OvHolder(token: r.lazy(\.overrideShared), storage: InMemoryStorage()) }
      $0.register(type: Token.self, name: "scoped") { Token("scoped") }
    } operation: {
      // As a resolution here would find them.
      #expect(container.isRegistered(\.overrideHolder))
      #expect(container.isRegistered(type: Token.self, name: "scoped"))
    }
    #expect(!container.isRegistered(\.overrideHolder))
  }

  @Test func aHandleUsedAfterItsScopeEndedNeverHandsOutADisposedInstance() async throws {
    let container = Container()
    let log = Collected<String>()
    let (provider, holderProvider, inside) = try await withOverrides {
      $0.register(\.containerResource, scope: .singleton) { Resource("scoped", log: log) }
      $0.register(\.overrideHolder, scope: .singleton) { r in
        OvHolder(token: r.lazy(\.overrideShared), storage: InMemoryStorage())
      }
    } operation: { () async throws in
      (
        container.provider(\.containerResource), container.provider(\.overrideHolder),
        try container[\.containerResource]
      )
    }
    #expect(inside.closeCount == 1, "the scope disposes what it made when it ends")
    // The disposed singleton is refused by name, not handed out, nor split into a second one.
    let error = #expect(throws: ResolutionError.self) { try provider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(
      error?.description.contains("the override scope it was resolved in has ended and disposed its instance") == true)
    // The fix is about the scope, not about a disposed container.
    #expect(
      error?.description.contains("fix: use the instance while the scope is open") == true,
      "\(String(describing: error))")
    #expect(error?.description.contains("a disposed one stays disposed") == false)
    // What the scope made and did not dispose is still its singleton, and what it had not made
    // yet is made in it.
    let holder = try holderProvider.get()
    #expect(try holderProvider.get() === holder)
  }

  @Test func asyncAndArgumentHandlesAfterTheScopeEnded() async throws {
    let container = Container()
    let log = Collected<String>()
    let (asyncProvider, named, asyncNamed, first) = try await withOverrides {
      $0.register(\.overrideAsyncResource, scope: .singleton) { _ in Resource("async", log: log) }
      $0.register(\.overrideResourceNamed, scope: .singleton) { _, name in Resource(name, log: log) }
      $0.register(\.overrideAsyncResourceNamed, scope: .cached) { _, name in Resource("async " + name, log: log) }
    } operation: { () async throws in
      _ = try await container.resolve(\.overrideAsyncResource)
      _ = try await container.resolve(\.overrideAsyncResourceNamed, argument: "a")
      return (
        container.provider(\.overrideAsyncResource), container.provider(\.overrideResourceNamed),
        container.provider(\.overrideAsyncResourceNamed), try container.resolve(\.overrideResourceNamed, argument: "a")
      )
    }
    #expect(Set(log.all) == ["async", "a", "async a"])
    // An asynchronous resolution is refused with the same message.
    let error = await #expect(throws: ResolutionError.self) { try await asyncProvider.get() }
    #expect(error?.description.contains("the override scope it was resolved in has ended") == true)
    // An argument key is refused per argument: the argument whose instance the scope disposed
    // gets the same error, an argument the scope never made an instance for is made.
    #expect(first.closeCount == 1)
    let refused = #expect(throws: ResolutionError.self) { try named.get("a") }
    #expect(refused?.kind == .containerDisposed)
    #expect(refused?.description.contains("the override scope it was resolved in has ended") == true)
    let asyncRefused = await #expect(throws: ResolutionError.self) { try await asyncNamed.get("a") }
    #expect(asyncRefused?.kind == .containerDisposed)
    #expect(try await asyncNamed.get("b").name == "async b")
    let made = try named.get("b")
    #expect(made.closeCount == 0)
    #expect(try named.get("b") === made, "still the scope's singleton for that argument")
  }

  @Test func aDecoratorThatFailedInTheScopeLeavesNothingToRefuseAfterIt() async throws {
    let container = Container()
    let log = Collected<String>()
    let made = Collected<String>()
    let fails = Atomic<Bool>(true)
    let provider = try await withOverrides {
      $0.register(\.containerResource, scope: .singleton) {
        made.append("made")
        return Resource("made", log: log)
      }
      $0.decorate(\.containerResource) { _, resource in
        if fails.load(ordering: .relaxed) { throw PlannedFailure("decorator fails") }
        return resource
      }
    } operation: { () async throws in
      #expect(throws: (any Error).self) { try container[\.containerResource] }
      return container.provider(\.containerResource)
    }
    // What the factory made before its decorator failed was disposed with the scope, but nobody
    // received it, so the key was never handed out: it is made, not refused, afterwards.
    #expect(log.all == ["made"], "disposed with the scope")
    fails.store(false, ordering: .relaxed)
    let after = try provider.get()
    #expect(after.closeCount == 0)
    #expect(made.all.count == 2)
  }

  /// An alias (a shared key whose factory returns another key's instance) in a nested scope, of
  /// an instance the enclosing scope keeps: the enclosing scope made it, and disposes it, once,
  /// when it ends; the nested scope's end leaves it alive.
  @Test func aNestedScopesAliasOfAnEnclosingScopesInstanceIsDisposedByTheEnclosingScopeOnly() async throws {
    let container = Container()
    let log = Collected<String>()
    try await withOverrides {
      $0.register(\.overrideSource, scope: .singleton) { Resource("source", log: log) }
    } operation: { () async throws in
      let source = try container[\.overrideSource]
      try await withOverrides {
        $0.register(\.overrideAliasOfSource, scope: .singleton) { r in try r[\.overrideSource] }
      } operation: { () async throws in
        #expect(try container[\.overrideAliasOfSource] === source)
      }
      #expect(source.closeCount == 0, "the enclosing scope's instance is still in use")
      #expect(try container[\.overrideSource] === source)
    }
    #expect(log.all == ["source"])
  }

  /// The same in one scope, across a child container's copy and its parent's: the parent's copy
  /// made the instance, and it is disposed once.
  @Test func aChildsAliasOfItsParentsInstanceInAScopeIsDisposedOnce() async throws {
    let parent = Container()
    let log = Collected<String>()
    parent.register(\.overrideSource, scope: .singleton) { Resource("source", log: log) }
    let child = parent.makeChild()
    child.register(\.overrideAliasOfSource, scope: .singleton) { r in try r[\.overrideSource] }
    try await withOverrides { _ in
    } operation: { () async throws in
      let source = try child[\.overrideSource]
      #expect(try child[\.overrideAliasOfSource] === source)
    }
    #expect(log.all == ["source"])
  }

  @Test func aKeyTheBaseRegistersAgainAfterTheScopeEndedIsNoLongerRefused() async throws {
    let container = Container()
    let log = Collected<String>()
    container.register(\.containerResource, scope: .singleton) { Resource("first", log: log) }
    let provider = try await withOverrides { _ in
    } operation: { () async throws in
      _ = try container[\.containerResource]
      return container.provider(\.containerResource)
    }
    // The scope's singleton of the first registration was disposed: refused.
    #expect(throws: ResolutionError.self) { try provider.get() }
    // A new registration is not what the scope disposed: the handle resolves it.
    container.register(\.containerResource, scope: .singleton) { Resource("second", log: log) }
    #expect(try provider.get().name == "second")
  }

  @Test func anInstanceAHandleMakesAfterItsScopeEndedIsDisposedWhenTheHandleGoes() async throws {
    let container = Container()
    let log = Collected<String>()
    var provider: Provider<Key<Resource>>? = try await withOverrides {
      $0.register(\.containerResource, scope: .singleton) { Resource("made later", log: log) }
    } operation: { () async throws in
      container.provider(\.containerResource)
    }
    let made = try provider?.get()
    #expect(made?.closeCount == 0)
    // The last reference to the scope goes with the handle; what its copy made later is disposed.
    provider = nil
    #expect(await waitUntil(timeout: hangBound) { made?.closeCount == 1 }, "never disposed")
  }

  /// A task made inside a scope keeps the scope bound after the scope's code has returned: the
  /// check that lets resolutions skip the task-local look-up while no scope is alive must count
  /// that scope as alive.
  @Test func aTaskMadeInAScopeStillSeesItsOverridesAfterTheScopeReturns() async throws {
    let container = Container()
    let (started, go) = AsyncStream.makeStream(of: Void.self)
    let task = await withOverrides {
      $0.register(\.overrideValue) { "inside" }
    } operation: {
      Task {
        for await _ in started { break }
        return try container.resolve(\.overrideValue)
      }
    }
    #expect(try container.resolve(\.overrideValue) == "default")
    go.yield()
    #expect(try await task.value == "inside")
    #expect(try container.resolve(\.overrideValue) == "default")
  }

  @Test func overridesAreVisibleInsideTheScopeOnly() async throws {
    let container = Container()
    #expect(try container[\.overrideValue] == "default")
    let inside = try await withOverrides {
      $0.register(\.overrideValue) { "overridden" }
    } operation: { () async throws in
      try container[\.overrideValue]
    }
    #expect(inside == "overridden")
    #expect(try container[\.overrideValue] == "default")
    #expect(!container.isRegistered(\.overrideValue))
  }

  /// Inside a scope, the scope's copy of a container serves it: `resetCached()` on the container
  /// clears the copy's cached instances too, for overrides and for the app's registrations.
  @Test func resetCachedInsideAScopeClearsWhatTheScopeCached() async throws {
    let container = Container()
    container.register(\.overrideShared, scope: .cached) { Token("app") }
    try await withOverrides {
      $0.register(\.overrideValue, scope: .cached) { UUID().uuidString }
    } operation: { () async throws in
      let token = try container.resolve(\.overrideShared)
      let value = try container.resolve(\.overrideValue)
      #expect(try container.resolve(\.overrideShared) === token)
      container.resetCached()
      #expect(try container.resolve(\.overrideShared) !== token)
      #expect(try container.resolve(\.overrideValue) != value)
    }
  }

  @Test func synchronousScopeWorksToo() async throws {
    let container = Container()
    let inside = try await withOverrides {
      $0.register(\.overrideValue) { "sync" }
    } operation: { () throws in
      try container[\.overrideValue]
    }
    #expect(inside == "sync")
    #expect(try container[\.overrideValue] == "default")
  }

  @Test func aSynchronousScopeOnAThreadOutsideAnyTaskIsSeenOnThatThreadOnly() async throws {
    // Outside a task the runtime keeps task-local values per thread: the engine's direct read
    // of the scope must find them there, and another thread must not.
    let container = Container()
    let seen = Mutex<[String]>([])
    let inScope = DispatchSemaphore(value: 0)
    let otherDone = DispatchSemaphore(value: 0)
    let scoped = Thread {
      let value = try? withOverrides {
        $0.register(\.overrideValue) { "thread scope" }
      } operation: { () throws -> String in
        inScope.signal()
        otherDone.wait()
        return try container[\.overrideValue]
      }
      seen.withLock { $0.append("scoped: \(value ?? "error")") }
    }
    let other = Thread {
      inScope.wait()
      let value = try? container[\.overrideValue]
      seen.withLock { $0.append("other: \(value ?? "error")") }
      otherDone.signal()
    }
    scoped.start()
    other.start()
    #expect(await waitUntil(timeout: hangBound) { seen.withLock { $0.count } == 2 }, "a thread did not finish")
    #expect(seen.withLock { $0 } == ["other: default", "scoped: thread scope"])
  }

  /// Outside a task, a synchronous scope is read from a word of the thread instead of the
  /// runtime's task-local storage. A job of a task that runs on that thread inside the scope (a
  /// nested run loop) belongs to its own task, and must see that task's scope, not the thread's.
  @Test func aTaskRunOnTheThreadOfASynchronousScopeDoesNotSeeThatScope() async throws {
    let container = Container()
    let executor = ManualExecutor()
    let seenByTask = Mutex<String?>(nil)
    // Made outside any scope; it waits on `executor` until the thread below runs it.
    Task.detached(executorPreference: executor) {
      seenByTask.withLock { $0 = (try? container[\.overrideValue]) ?? "error" }
    }
    let onThread = await onThreadOutsideAnyTask { () -> [String] in
      withOverrides {
        $0.register(\.overrideValue) { "thread scope" }
      } operation: {
        let before = (try? container[\.overrideValue]) ?? "error"
        let ran = executor.drain(until: { seenByTask.withLock { $0 != nil } })
        let after = (try? container[\.overrideValue]) ?? "error"
        return [before, ran ? "task ran" : "task did not run", after]
      }
    }
    #expect(onThread == ["thread scope", "task ran", "thread scope"])
    #expect(seenByTask.withLock { $0 } == "default")
  }

  /// The same, for a task that has a scope of its own: it sees its own, not the thread's.
  @Test func aTaskWithItsOwnScopeRunOnTheThreadOfAnotherSeesItsOwn() async throws {
    let container = Container()
    let executor = ManualExecutor()
    let seenByTask = Mutex<String?>(nil)
    let finished = Atomic<Bool>(false)
    Task.detached(executorPreference: executor) {
      await withOverrides {
        $0.register(\.overrideValue) { "task scope" }
      } operation: {
        seenByTask.withLock { $0 = (try? container[\.overrideValue]) ?? "error" }
      }
      finished.store(true, ordering: .releasing)
    }
    let onThread = await onThreadOutsideAnyTask { () -> String in
      withOverrides {
        $0.register(\.overrideValue) { "thread scope" }
      } operation: {
        let ran = executor.drain(until: { finished.load(ordering: .acquiring) })
        return ran ? (try? container[\.overrideValue]) ?? "error" : "task did not run"
      }
    }
    #expect(onThread == "thread scope")
    #expect(seenByTask.withLock { $0 } == "task scope")
  }

  @Test func nestedSynchronousScopesOutsideATaskRestoreTheOuterOne() async throws {
    let container = Container()
    struct Failure: Error {}
    let seen = await onThreadOutsideAnyTask { () -> [String] in
      var seen: [String] = []
      let read = { seen.append((try? container[\.overrideValue]) ?? "error") }
      withOverrides {
        $0.register(\.overrideValue) { "outer" }
      } operation: {
        read()
        withOverrides {
          $0.register(\.overrideValue) { "inner" }
        } operation: {
          read()
        }
        read()
        // An operation that throws restores the outer scope too.
        _ = try? withOverrides {
          $0.register(\.overrideValue) { "failing" }
        } operation: { () throws -> Void in
          read()
          throw Failure()
        }
        read()
      }
      read()
      return seen
    }
    #expect(seen == ["outer", "inner", "outer", "failing", "outer", "default"])
  }

  /// A provider resolves in the scope it was made in, whatever scope is open where it is called;
  /// outside a task too.
  @Test func aProviderCalledInASynchronousScopeOutsideATaskKeepsItsOwnScope() async throws {
    let container = Container()
    let seen = await onThreadOutsideAnyTask { () -> [String] in
      let unscoped = container.provider(\.overrideValue)
      let scoped = withOverrides {
        $0.register(\.overrideValue) { "first" }
      } operation: {
        container.provider(\.overrideValue)
      }
      return withOverrides {
        $0.register(\.overrideValue) { "second" }
      } operation: {
        [
          (try? unscoped.get()) ?? "error", (try? scoped.get()) ?? "error",
          (try? container[\.overrideValue]) ?? "error",
        ]
      }
    }
    #expect(seen == ["default", "first", "second"])
  }

  @Test func overridesApplyToEveryContainerAndTheirDependents() async throws {
    let first = Container()
    let second = Container()
    let child = first.makeChild()
    try await withOverrides {
      $0.register(\.storage) { InMemoryStorage(name: "fake") }
    } operation: { () async throws in
      #expect(try first[\.storage].name == "fake")
      #expect(try second[\.storage].name == "fake")
      #expect(try child[\.storage].name == "fake")
      #expect(try first[\.repository].storage.name == "fake")
    }
    #expect(try first[\.storage].name == "memory")
  }

  @Test func overridesBeatContainerRegistrations() async throws {
    let container = Container()
    container.register(\.overrideValue) { "registered" }
    try await withOverrides {
      $0.register(\.overrideValue) { "overridden" }
    } operation: { () async throws in
      #expect(try container[\.overrideValue] == "overridden")
    }
    #expect(try container[\.overrideValue] == "registered")
  }

  @Test func factoriesThatUseACapturedContainerSeeOverrides() async throws {
    // The `DependencyProvider` style: factories call the container they captured, not `r`.
    let container = Container()
    container.register(\.repository) { [unowned container] _ in Repository(storage: try container[\.storage]) }
    try await withOverrides {
      $0.register(\.storage) { InMemoryStorage(name: "fake") }
    } operation: { () async throws in
      #expect(try container[\.repository].storage.name == "fake")
    }
    #expect(try container[\.repository].storage.name == "memory")
  }

  @Test func scopesNest() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideValue) { "outer" }
      $0.register(\.keyNumber) { 1 }
    } operation: { () async throws in
      try await Self.inUnrelatedNestedScope { () async throws in
        #expect(try container[\.overrideValue] == "inner")
        #expect(try container[\.keyNumber] == 1)
      }
      #expect(try container[\.overrideValue] == "outer")
    }
    #expect(try container[\.overrideValue] == "default")
    #expect(try container[\.keyNumber] == 42)
  }

  @Test func childTasksInheritTheScopeAndDetachedTasksDoNot() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideValue) { "overridden" }
    } operation: { () async throws in
      async let child = container[\.overrideValue]
      #expect(try await child == "overridden")
      let fromGroup = try await withThrowingTaskGroup(of: String.self) { group in
        group.addTask { try container[\.overrideValue] }
        return try await group.next()
      }
      #expect(fromGroup == "overridden")
      let detached = try await Task.detached { try container[\.overrideValue] }.value
      #expect(detached == "default")
    }
  }

  @Test func configureErrorsPropagateAndTheOperationDoesNotRun() async throws {
    let ran = Counter()
    await #expect(throws: PlannedFailure.self) {
      try await withOverrides { _ in
        throw PlannedFailure()
      } operation: { () async throws in
        ran.increment()
      }
    }
    #expect(ran.count == 0)
  }

  // MARK: Singletons stay inside the scope

  @Test func overriddenSingletonStaysInsideItsScope() async throws {
    let container = Container()
    let outside = try container[\.overrideShared]
    let inside = try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("fake singleton") }
    } operation: { () async throws in
      let first = try container[\.overrideShared]
      #expect(try container[\.overrideShared] === first)
      return first
    }
    #expect(inside.label == "fake singleton")
    #expect(try container[\.overrideShared] === outside)
  }

  @Test func singletonFirstMadeInsideAScopeStaysInsideIt() async throws {
    let container = Container()
    let inside = try await withOverrides {
      $0.register(\.overrideValue) { "unrelated" }
    } operation: { () async throws in
      try container[\.overrideShared]
    }
    let outside = try container[\.overrideShared]
    #expect(outside !== inside)
    #expect(try container[\.overrideShared] === outside)
  }

  @Test func singletonThatDependsOnAnOverrideIsMadeAgainInsideTheScope() async throws {
    let container = Container()
    let real = try container[\.overrideRepository]
    #expect(real.storage.name == "memory")
    try await withOverrides {
      $0.register(\.storage) { InMemoryStorage(name: "fake") }
    } operation: { () async throws in
      #expect(try container[\.overrideRepository].storage.name == "fake")
    }
    #expect(try container[\.overrideRepository] === real)
  }

  // MARK: Nested scopes and the outer scope's instances

  /// A test helper opens a scope with a fake store and seeds it; a nested scope that swaps
  /// something else must see the same store.
  @Test func aNestedScopeUsesTheOuterScopesSingleton() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("outer's \(made.increment())") }
    } operation: { () async throws in
      let outer = try container[\.overrideShared]
      try await Self.inUnrelatedNestedScope { () async throws in
        #expect(try container[\.overrideShared] === outer)
        #expect(try container.makeChild()[\.overrideShared] === outer)
        #expect(try container[\.overrideValue] == "inner")
      }
      // Synchronous scopes nest the same way.
      #expect(try Self.inSynchronousNestedScope { try container[\.overrideShared] } === outer)
    }
    #expect(made.count == 1)
  }

  /// `body` in a scope, nested in the caller's, that overrides something unrelated.
  private static func inUnrelatedNestedScope<R>(_ body: () async throws -> R) async throws -> R {
    try await withOverrides {
      $0.register(\.overrideValue) { "inner" }
    } operation: { () async throws in
      try await body()
    }
  }

  /// `body` in a synchronous scope that overrides something unrelated.
  private static func inSynchronousNestedScope<R>(_ body: () throws -> R) rethrows -> R {
    try withOverrides {
      $0.register(\.overrideValue) { "inner" }
    } operation: {
      try body()
    }
  }

  @Test func anOuterScopesSingletonFirstMadeInANestedScopeIsTheOuterScopes() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("outer's \(made.increment())") }
    } operation: { () async throws in
      let inner = try await Self.inUnrelatedNestedScope { () async throws in
        try container[\.overrideShared]
      }
      // Kept by the outer scope after the inner one ended, and the one the outer scope uses.
      #expect(try container[\.overrideShared] === inner)
    }
    #expect(made.count == 1)
    #expect(try container[\.overrideShared].label == "default singleton")
  }

  /// Made by the outer scope's copy, the instance belongs to the outer scope whole: what its
  /// factory keeps a handle to, or resolves through a captured container, is the outer scope's
  /// too, not the nested scope's it was first resolved in.
  @Test func anOuterScopesSingletonFirstMadeInANestedScopeSeesTheOuterScope() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("outer store") }
      $0.register(\.storage, scope: .singleton) { InMemoryStorage() }
      $0.register(\.overrideHolder, scope: .singleton) { r in
        OvHolder(token: r.lazy(\.overrideShared), storage: try container[\.storage])
      }
    } operation: { () async throws in
      let holder = try await withOverrides {
        $0.register(\.overrideShared) { Token("inner, not shared") }
      } operation: { () async throws in
        try container[\.overrideHolder]
      }
      #expect(try holder.token.value === container[\.overrideShared])
      #expect(holder.storage === (try container[\.storage]))
    }
  }

  @Test func aNestedScopeThatOverridesOrDecoratesTheKeyAgainHasItsOwn() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("outer") }
    } operation: { () async throws in
      let outer = try container[\.overrideShared]
      try await withOverrides {
        $0.register(\.overrideShared, scope: .singleton) { Token("inner") }
      } operation: { () async throws in
        #expect(try container[\.overrideShared].label == "inner")
      }
      try await withOverrides {
        $0.decorate(\.overrideShared) { _, token in Token("decorated " + token.label) }
      } operation: { () async throws in
        let decorated = try container[\.overrideShared]
        #expect(decorated.label == "decorated outer")
        #expect(decorated !== outer)
      }
      #expect(try container[\.overrideShared] === outer)
    }
  }

  /// Only what an outer scope's overrides register is the outer scope's: a singleton of the app's
  /// own registrations is made again in a nested scope, so an override there reaches it.
  @Test func aNestedScopeStillRemakesTheAppsSingletonsWithItsOverrides() async throws {
    let container = Container()
    container.register(\.overrideRepository, scope: .singleton) { r in Repository(storage: try r[\.storage]) }
    let outerStorage = InMemoryStorage()
    let innerStorage = InMemoryStorage()
    try await withOverrides {
      $0.register(\.storage) { outerStorage }
    } operation: { () async throws in
      #expect(try container[\.overrideRepository].storage === outerStorage)
      try await withOverrides {
        $0.register(\.storage) { innerStorage }
      } operation: { () async throws in
        #expect(try container[\.overrideRepository].storage === innerStorage)
      }
    }
  }

  @Test func resetCachedInANestedScopeClearsTheOuterScopesCachedOverride() async throws {
    let container = Container()
    let made = Counter()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .cached) { Token("flags \(made.increment())") }
    } operation: { () async throws in
      let before = try container[\.overrideShared]
      try await Self.inUnrelatedNestedScope { () async throws in
        #expect(try container[\.overrideShared] === before)
        container.resetCached()
        #expect(try container[\.overrideShared].label == "flags 2")
      }
      #expect(try container[\.overrideShared].label == "flags 2")
    }
  }

  @Test func anOuterScopesInstanceIsDisposedWhenTheOuterScopeEnds() async throws {
    let container = Container()
    let log = Collected<String>()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton, dispose: { _ in log.append("closed") }) { Token("outer") }
    } operation: { () async throws in
      try await Self.inUnrelatedNestedScope { () async throws in
        _ = try container[\.overrideShared]
      }
      #expect(log.all.isEmpty, "the inner scope closed the outer scope's instance")
    }
    #expect(log.all == ["closed"])
  }

  @Test func singletonMadeInsideAScopeIsReleasedWhenTheScopeEnds() async throws {
    let container = Container()
    weak var probe: Token?
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("scoped") }
    } operation: { () async throws in
      let inside = try container[\.overrideShared]
      probe = inside
      #expect(probe != nil)
    }
    #expect(await freedSoon { probe == nil }, "an instance made in an override scope outlived the scope")
  }

  @Test func eachScopeGetsItsOwnSingletons() async throws {
    let container = Container()
    let configure: (Container) -> Void = { $0.register(\.overrideShared, scope: .singleton) { Token("scoped") } }
    let first = try await withOverrides(configure) { () async throws in try container[\.overrideShared] }
    let second = try await withOverrides(configure) { () async throws in try container[\.overrideShared] }
    #expect(first !== second)
  }

  @Test func parentSingletonIsSharedWithItsChildInsideAScope() async throws {
    // Outside a scope, a child resolves its parent's singleton to the parent's instance. An
    // unrelated override must not split that one instance into two.
    let parent = Container()
    let child = parent.makeChild()
    try await withOverrides {
      $0.register(\.overrideValue) { "unrelated" }
    } operation: { () async throws in
      let fromParent = try parent[\.overrideShared]
      let fromChild = try child[\.overrideShared]
      #expect(fromChild === fromParent)
    }
  }

  @Test func overriddenSingletonIsOneInstanceForParentAndChildren() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.overrideShared, scope: .singleton) { Token("child's own") }
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("override") }
    } operation: { () async throws in
      let fromParent = try parent[\.overrideShared]
      #expect(fromParent.label == "override")
      // An override beats every container's registrations, the child's too, and is one instance.
      #expect(try child[\.overrideShared] === fromParent)
      #expect(try parent.makeChild()[\.overrideShared] === fromParent)
    }
    #expect(try child[\.overrideShared].label == "child's own")
  }

  @Test func overriddenSingletonIsOnePerContainerHierarchyInAScope() async throws {
    let first = Container()
    let second = Container()
    try await withOverrides {
      $0.register(\.overrideShared, scope: .singleton) { Token("override") }
    } operation: { () async throws in
      let fromFirst = try first[\.overrideShared]
      #expect(try first[\.overrideShared] === fromFirst)
      // An unrelated container shares no instance with the first one, in a scope as outside it.
      let fromSecond = try second[\.overrideShared]
      #expect(fromSecond.label == "override")
      #expect(fromSecond !== fromFirst)
      #expect(try second.makeChild()[\.overrideShared] === fromSecond)
    }
  }

  // MARK: Parallel isolation

  /// Resolves the same key many times, yielding in between so that other tests and tasks run.
  private func seesOnly(_ expected: String, from container: Container) async throws {
    for _ in 0..<200 {
      #expect(try container[\.overrideValue] == expected)
      await Task.yield()
    }
  }

  // These two tests run in parallel with each other (and with every other test), override the same
  // key differently, and must each see only their own value.
  @Test func parallelTestOverridesTheKeyOneWay() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideValue) { "one way" }
      $0.register(\.overrideShared, scope: .singleton) { Token("one way") }
    } operation: { () async throws in
      try await seesOnly("one way", from: container)
      #expect(try container[\.overrideShared].label == "one way")
    }
  }

  @Test func parallelTestOverridesTheKeyAnotherWay() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.overrideValue) { "another way" }
      $0.register(\.overrideShared, scope: .singleton) { Token("another way") }
    } operation: { () async throws in
      try await seesOnly("another way", from: container)
      #expect(try container[\.overrideShared].label == "another way")
    }
  }

  @Test func manyConcurrentTasksEachSeeOnlyTheirOwnOverrides() async throws {
    let container = Container()
    let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<500 {
        group.addTask {
          try await withOverrides {
            $0.register(\.overrideValue) { "task \(index)" }
            $0.register(\.overrideShared, scope: .singleton) { Token("task \(index)") }
          } operation: { () async throws in
            var mismatches = 0
            let singleton = try container[\.overrideShared]
            for _ in 0..<20 {
              if try container[\.overrideValue] != "task \(index)" { mismatches += 1 }
              if try container[\.overrideShared] !== singleton { mismatches += 1 }
              await Task.yield()
            }
            if singleton.label != "task \(index)" { mismatches += 1 }
            return mismatches
          }
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(mismatches == 0)
    #expect(try container[\.overrideValue] == "default")
    #expect(try container[\.overrideShared].label == "default singleton")
  }

  @Test func typeRegistrationsCanBeOverridden() async throws {
    let container = Container()
    container.register(type: (any TypedService).self) { NamedService("real") }
    try await withOverrides {
      $0.register(type: (any TypedService).self) { NamedService("fake") }
      $0.register(type: (any TypedService).self, name: "extra") { NamedService("extra") }
    } operation: { () async throws in
      #expect(try container.resolve(type: (any TypedService).self).name == "fake")
      #expect(try container.resolve(type: (any TypedService).self, name: "extra").name == "extra")
    }
    #expect(try container.resolve(type: (any TypedService).self).name == "real")
    #expect(throws: ResolutionError.self) { try container.resolve(type: (any TypedService).self, name: "extra") }
  }

  @Test func anEnclosingScopesSingletonNeedingWhatOnlyAnInnerScopeRegistersSaysSo() async throws {
    let container = Container()
    let error = await #expect(throws: ResolutionError.self) {
      try await withOverrides {
        $0.register(\.childSessionCache, scope: .singleton) { r in Token(try r[\.childSession].label) }
      } operation: {
        try await withOverrides {
          $0.register(\.childSession) { Token("inner") }
        } operation: {
          try container[\.childSessionCache]
        }
      }
    }
    #expect(error?.kind == .requiredKeyNotProvided)
    #expect(
      error?.underlying?.hasPrefix(
        "\\.childSessionCache is kept by the enclosing override scope (singleton) and made there from its"
          + " registrations, and \\.childSession is registered only in the inner override scope (at"
          + " KnapsackTests/OverrideTests.swift:") == true)
  }
}
