import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

// `@Injected` / `@LazyInjected` resolving, in an instance a factory makes, from the
// container making it (`Container.makingHere`).

/// Reads the label eagerly.
struct MakerHolder: Sendable {
  @Injected(\.makerLabel) var label: String
}

/// Reads the label on first access.
struct MakerLazyHolder: Sendable {
  @LazyInjected(\.makerLabel) var label: String
}

/// What a factory's resolver gives, beside what an `@Injected` property of what it makes gives:
/// the two must agree ("as the factory's own resolutions do").
struct MakerPair: Sendable, Equatable {
  let resolver: String
  @Injected(\.makerLabel) var injected: String
  init(resolver: String) { self.resolver = resolver }
  static func == (lhs: Self, rhs: Self) -> Bool { (lhs.resolver, lhs.injected) == (rhs.resolver, rhs.injected) }
  var agrees: Bool { resolver == injected }
}

/// A session-kept view model that reads a dependency on first use.
final class MakerSessionModel: Sendable {
  /// A stored struct with the property: a `Sendable` class cannot have a wrapped `var` itself.
  let holder = MakerLazyHolder()
  var label: String { holder.label }
}

/// Makes a holder when it goes away.
final class MakerDeinitProbe: Sendable {
  let seen: Collected<String>
  init(_ seen: Collected<String>) { self.seen = seen }
  deinit { seen.append(MakerHolder().label) }
}

extension Dependencies {
  var makerLabel: Key<String> { Key { "default" } }
  var makerHolder: Key<MakerHolder> { Key { MakerHolder() } }
  var makerLazyHolder: Key<MakerLazyHolder> { Key { MakerLazyHolder() } }
  var makerPair: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerLabel]) } }
  var makerSingletonPair: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerLabel]) }.scope(.singleton) }
  var makerCachedPair: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerLabel]) }.scope(.cached) }
  var makerWeakPair: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerLabel]) }.scope(.weak) }
  var makerGraphPair: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerLabel]) }.scope(.graph) }
  var makerArgumentPair: ArgumentKey<Int, MakerPair> {
    ArgumentKey { r, _ in MakerPair(resolver: try r[\.makerLabel]) }
  }
  var makerAsyncPair: AsyncKey<MakerPair> {
    AsyncKey { r in MakerPair(resolver: try r[\.makerLabel]) }
  }
  var makerMainActorPair: MainActorKey<MakerPair> {
    MainActorKey { r in MakerPair(resolver: try r[\.makerLabel]) }
  }
  var makerPairs: Multibinding<MakerPair> { Multibinding() }
  var makerSessionModel: Key<MakerSessionModel> { Key { MakerSessionModel() }.scope(.singleton) }
  /// An asynchronous factory that makes holders in each kind of task it can start.
  var makerTaskKinds: AsyncKey<[String]> {
    AsyncKey { () async -> [String] in
      await Task.yield()
      async let child = MakerHolder().label
      let grouped = await withTaskGroup(of: String.self) { group in
        group.addTask { MakerHolder().label }
        return await group.next() ?? "none"
      }
      let unstructured = await Task { MakerHolder().label }.value
      let detached = await Task.detached { MakerHolder().label }.value
      return [await child, grouped, unstructured, detached]
    }
  }
  /// An asynchronous factory that makes a holder before it first suspends.
  var makerAsyncEager: AsyncKey<String> {
    AsyncKey { () async -> String in MakerHolder().label }
  }
}

@Suite struct InjectedFromMakingContainerTests {
  private func container(_ label: String) -> Container {
    let container = Container()
    container.register(\.makerLabel) { label }
    return container
  }

  /// The invariant the change claims: an `@Injected` property of what a factory makes resolves
  /// from the container the factory's resolver resolves from, for every scope, through a child,
  /// with a decorator, as a contribution, with an argument, in an override scope.
  @Test func aPropertyResolvesWhereTheFactorysResolverDoes() async throws {
    let parent = container("parent")
    let child = parent.makeChild()
    child.register(\.makerLabel) { "child" }
    parent.contribute(to: \.makerPairs) { r in MakerPair(resolver: try r[\.makerLabel]) }
    child.contribute(to: \.makerPairs) { r in MakerPair(resolver: try r[\.makerLabel]) }
    var pairs: [(String, MakerPair)] = []
    for (name, from) in [("parent", parent), ("child", child)] {
      pairs += [
        ("\(name) unique", try from[\.makerPair]),
        ("\(name) singleton", try from[\.makerSingletonPair]),
        ("\(name) cached", try from[\.makerCachedPair]),
        ("\(name) weak", try from[\.makerWeakPair]),
        ("\(name) graph", try from[\.makerGraphPair]),
        ("\(name) argument", try from.resolve(\.makerArgumentPair, argument: 1)),
        ("\(name) async", try await from.resolve(\.makerAsyncPair)),
        ("\(name) main actor", try await from.resolve(\.makerMainActorPair)),
      ]
      pairs += try from[\.makerPairs].map { ("\(name) contribution", $0) }
    }
    let decorating = parent.makeChild()
    decorating.register(\.makerLabel) { "decorating" }
    decorating.decorate(\.makerSingletonPair) { r, pair in MakerPair(resolver: try r[\.makerLabel]) }
    pairs.append(("decorated parent singleton", try decorating[\.makerSingletonPair]))
    let scoped = try await withOverrides {
      $0.register(\.makerLabel) { "override" }
    } operation: { () async throws in
      [try child[\.makerPair], try child[\.makerSingletonPair]]
    }
    pairs += scoped.map { ("override scope", $0) }
    for (name, pair) in pairs {
      #expect(pair.agrees, "\(name): resolver \(pair.resolver), @Injected \(pair.injected)")
    }
  }

  /// In an asynchronous factory, structured child tasks are awaited by the factory and resolve
  /// from its container; an unstructured task resolves from `Container.current`, and a detached
  /// one (which inherits no task-local) from `Container.shared`.
  @Test func taskKindsInAnAsyncFactory() async throws {
    let own = container("own")
    let labels = try await withContainer(container("task")) { try await own.resolve(\.makerTaskKinds) }
    #expect(labels == ["own", "own", "task", "default"])
  }

  /// A synchronous factory that starts an immediate task, which resolves from another container
  /// before it first suspends: the instance that container's asynchronous factory makes should
  /// resolve from that container (the innermost factory), not from the synchronous factory's
  /// container, which only happens to be the thread's frame.
  @Test func anImmediateTaskInASyncFactoryResolvesFromTheInnermostFactory() async throws {
    let outer = container("outer")
    let inner = container("inner")
    let started = Locked<Task<String, any Error>?>(nil)
    outer.register(\.makerHolder) {
      started.withLock { $0 = Task.immediate { try await inner.resolve(\.makerAsyncEager) } }
      return MakerHolder()
    }
    #expect(try outer[\.makerHolder].label == "outer")
    let task = try #require(started.withLock { $0 })
    #expect(try await task.value == "inner")
  }

  /// A deinit that runs inside a factory makes its instance there; one outside, from
  /// `Container.current`.
  @Test func aDeinitInsideAFactory() throws {
    let seen = Collected<String>()
    let own = container("own")
    own.register(\.makerHolder) {
      _ = MakerDeinitProbe(seen)
      return MakerHolder()
    }
    try withContainer(container("task")) { () throws in
      _ = try own[\.makerHolder]
      _ = MakerDeinitProbe(seen)
    }
    #expect(seen.all == ["own", "task"])
  }

  /// A child container that is simply dropped is released with its instances
  /// (ContainersAndChildScopes.md, "End a session"), also when one of its singletons has a
  /// `@LazyInjected` property, which holds the container weakly.
  @Test func aDroppedSessionWithALazyPropertyIsReleased() async throws {
    let app = container("app")
    weak var released: Container?
    weak var model: MakerSessionModel?
    do {
      let session = app.makeChild()
      session.register(\.makerSessionModel) { MakerSessionModel() }
      let made = try session[\.makerSessionModel]
      #expect(made.label == "app")
      released = session
      model = made
    }
    #expect(await freedSoon { released == nil }, "the session container leaks")
    #expect(await freedSoon { model == nil }, "the session's singleton leaks")
  }

  /// A singleton kept past its container cannot read its `@LazyInjected` property: the stop says
  /// why.
  @Test func aSingletonsLazyPropertyReadAfterItsContainerWentStopsSayingWhy() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      func sessionModel() -> MakerSessionModel? {
        let session = Container()
        session.register(\.makerLabel) { "session" }
        return try? session[\.makerSessionModel]
      }
      _ = sessionModel()?.label
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("from the container whose factory is making this instance"), "\(output)")
    #expect(
      output.contains("made for a singleton or cached instance of its container, which was released"), "\(output)")
  }

  /// An instance the app keeps past the container that made it (a unique one, which the
  /// container does not keep) reads its `@LazyInjected` property from that container all the
  /// same: the property holds it.
  @Test func aUniqueInstancesLazyPropertyOutlivesItsContainersLastVariable() throws {
    let holder = try container("own")[\.makerLazyHolder]
    #expect(holder.label == "own")
  }

  /// A `@LazyInjected` property read later, on another thread, reads from the factory's
  /// container, whatever container is current there.
  @Test func aLazyPropertyReadLaterElsewhere() async throws {
    let own = container("own")
    let holder = try own[\.makerLazyHolder]
    let label = await withContainer(container("task")) {
      await Task.detached { holder.label }.value
    }
    #expect(label == "own")
  }

  /// The testing traits: the `.container` trait sets `Container.current`, but a factory of
  /// another container makes its instance from that container.
  @Test(.container { $0.register(\.makerLabel) { "trait" } })
  func theContainerTraitYieldsToTheFactorysContainer() throws {
    #expect(MakerHolder().label == "trait")
    #expect(try container("own")[\.makerHolder].label == "own")
    #expect(try Container.current[\.makerHolder].label == "trait")
  }

  @Test(.overrides { $0.register(\.makerLabel) { "override" } })
  func theOverridesTraitReachesTheFactorysInstances() async throws {
    #expect(try container("own")[\.makerHolder].label == "override")
    #expect(try await container("own").resolve(\.makerAsyncEager) == "override")
    #expect(MakerHolder().label == "override")
  }

  /// A factory that resolves through a captured other container: what that container's factory
  /// makes is that container's; what this factory makes after it, this one's.
  @Test func aCapturedOtherContainer() throws {
    let other = container("other")
    let own = container("own")
    own.register(\.makerPair) { r in
      let fromOther = try other[\.makerHolder].label
      let lazily = try other.lazy(\.makerHolder).value.label
      return MakerPair(resolver: "\(fromOther) \(lazily) \(try r[\.makerLabel])")
    }
    let pair = try own[\.makerPair]
    #expect(pair.resolver == "other other own")
    #expect(pair.injected == "own")
  }

  /// Nested `withContainer` and `withOverrides`: the factory's container wins over the task's, and
  /// the innermost scope's overrides apply to it.
  @Test func nestedContainersAndScopes() throws {
    let own = container("own")
    try withContainer(container("outer")) { () throws in
      try withContainer(container("inner")) { () throws in
        #expect(MakerHolder().label == "inner")
        #expect(try own[\.makerHolder].label == "own")
        try withOverrides {
          $0.register(\.makerLabel) { "scope 1" }
        } operation: { () throws in
          try withOverrides {
            $0.register(\.makerLabel) { "scope 2" }
          } operation: { () throws in
            #expect(try own[\.makerHolder].label == "scope 2")
            #expect(MakerHolder().label == "scope 2")
          }
        }
      }
    }
  }

  /// Main-actor keys resolved with `await` from code off the main actor: the engine hops there,
  /// and the instance still resolves from the container making it, not the task's.
  @Test func aMainActorKeyResolvedFromElsewhere() async throws {
    let own = container("own")
    let (direct, provided) = try await withContainer(container("task")) {
      try await Task.detached {
        (try await own.resolve(\.makerMainActorPair), try await own.provider(\.makerMainActorPair).get())
      }.value
    }
    #expect(direct.injected == "own" && provided.injected == "own")
  }

  /// Many threads, each resolving from its own container with another current: each instance
  /// resolves from its own.
  @Test func manyThreadsManyContainers() async throws {
    let containers = (0..<8).map { container("c\($0)") }
    let mismatches = Collected<String>()
    let group = ThreadGroup(count: 8) { index in
      let own = containers[index]
      let other = containers[(index + 1) % 8]
      withContainer(other) {
        for _ in 0..<300 {
          guard let pair = try? own[\.makerPair], let lazy = try? own[\.makerLazyHolder] else {
            mismatches.append("c\(index): failed")
            continue
          }
          if pair.injected != "c\(index)" || lazy.label != "c\(index)" {
            mismatches.append("c\(index): \(pair.injected) \(lazy.label)")
          }
        }
      }
    }
    #expect(await group.join(), "threads finished")
    #expect(mismatches.all.isEmpty, "\(mismatches.all.prefix(5))")
  }

  @Test func manyTasksManyContainers() async throws {
    let containers = (0..<16).map { container("c\($0)") }
    let results = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
      for round in 0..<64 {
        let index = round % 16
        group.addTask {
          try await withContainer(containers[(index + 3) % 16]) {
            let kinds = try await containers[index].resolve(\.makerTaskKinds)
            let pair = try await containers[index].resolve(\.makerAsyncPair)
            return (index, Array(kinds.prefix(2)) + [pair.injected])
          }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    for (index, labels) in results {
      #expect(labels == Array(repeating: "c\(index)", count: 3), "\(index): \(labels)")
    }
  }
}

/// Needs a key that no default provides.
struct MakerRequiredHolder: Sendable {
  @Injected(\.makerRequired) var value: String
}

struct MakerLazyRequiredHolder: Sendable {
  @LazyInjected(\.makerRequired) var value: String
}

/// Makes a holder in each of its callbacks, and notes what it read.
final class MakingHereObserver: ResolutionObserver {
  let seen = Collected<String>()
  func willResolve(_ dependency: DependencyReference, depth: Int) {
    seen.append("will \(dependency.name) \(depth): \(MakerHolder().label)")
  }
  func didResolve(_ event: ResolutionEvent) {
    seen.append("did \(event.dependency.name) \(event.depth): \(MakerHolder().label)")
  }
}

extension Dependencies {
  var makerRequired: Key<String> { .required() }
  var makerRequiredSingleton: Key<MakerRequiredHolder> { Key { MakerRequiredHolder() }.scope(.singleton) }
  var makerRequiredHolder: Key<MakerRequiredHolder> { Key { MakerRequiredHolder() } }
  var makerLazyRequiredHolder: AsyncKey<MakerLazyRequiredHolder> {
    AsyncKey { () async -> MakerLazyRequiredHolder in MakerLazyRequiredHolder() }
  }
  var makerHolderOfHolder: Key<MakerPair> { Key { r in MakerPair(resolver: try r[\.makerHolder].label) } }
}

@Suite struct InjectedFromMakingContainerValidationTests {
  /// A child validates a parent's singleton whose `@Injected` property needs what only the child
  /// registers: the parent makes it in the app (and stops), so the run must report it.
  @Test func aParentSingletonNeedingTheChildsKeyIsReported() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.makerRequired) { "child" }
    let report = await child.validate(including: [\.makerRequiredSingleton])
    #expect(!report.isValid, "\(report)")
    #expect(report.problems.contains { $0.path.map(\.name).contains("\\.makerRequired") }, "\(report)")
    // What the child makes itself, it makes from its own registrations.
    #expect(await child.validate(including: [\.makerRequiredHolder]).isValid)
  }

  /// The task's container no longer stands in for the validated one, nor the other way round: a
  /// validated container that lacks a key fails even if the task's container has it, and one that
  /// has it passes even if the task's container lacks it; through a `@LazyInjected` property of
  /// what an asynchronous factory makes too.
  @Test func theTasksContainerDoesNotLeakIntoTheRun() async throws {
    let has = Container()
    has.register(\.makerRequired) { "has" }
    let lacks = Container()
    let keys: [PartialKeyPath<Dependencies>] = [\.makerRequiredHolder, \.makerLazyRequiredHolder]
    let lacking = await withContainer(has) { await lacks.validate(including: keys) }
    #expect(Set(lacking.problems.compactMap { $0.path.first?.name }).count == 2, "\(lacking)")
    let having = await withContainer(lacks) { await has.validate(including: keys) }
    #expect(having.isValid, "\(having)")
    #expect(try await has.resolve(\.makerLazyRequiredHolder).value == "has")
  }

  /// The graph shows a property's dependency as an edge of the factory that made the instance.
  @Test func theGraphShowsAPropertysEdge() async throws {
    let container = Container()
    let graph = await container.graph(including: [\.makerHolder, \.makerHolderOfHolder])
    #expect(graph.edges.contains(.init(from: "\\.makerHolder", to: "\\.makerLabel")), "\(graph.edges)")
    #expect(graph.edges.contains(.init(from: "\\.makerHolderOfHolder", to: "\\.makerHolder")), "\(graph.edges)")
  }

  /// An observer is no factory: what it makes in its callbacks resolves from `Container.current`
  /// whether the step it is told about is a top-level one (no factory on the path) or a
  /// dependency a factory asked for; it resolved from the asking factory's container before.
  @Test func anObserverThatMakesAnInstanceUsesTheTasksContainer() async throws {
    let parent = Container()
    parent.register(\.makerLabel) { "parent" }
    let observer = MakingHereObserver()
    parent.observe(observer)
    let task = Container()
    task.register(\.makerLabel) { "task" }
    try await withContainer(task) {
      _ = try parent[\.makerHolderOfHolder]
      _ = try await parent.resolve(\.makerAsyncPair)
    }
    #expect(observer.seen.all.count >= 12, "\(observer.seen.all)")
    #expect(observer.seen.all.allSatisfy { $0.hasSuffix(": task") }, "\(observer.seen.all)")
  }
}

/// A singleton that keeps a handle its factory made from its resolver.
final class MakerHandleHolder: Sendable {
  let lazy: Lazy<Key<String>>
  let provider: Provider<Key<String>>
  init(lazy: Lazy<Key<String>>, provider: Provider<Key<String>>) {
    self.lazy = lazy
    self.provider = provider
  }
}

extension Dependencies {
  var makerHandleHolder: Key<MakerHandleHolder> {
    Key { r in MakerHandleHolder(lazy: r.lazy(\.makerLabel), provider: r.provider(\.makerLabel)) }.scope(.singleton)
  }
}

@Suite struct HandleRetentionTests {
  /// A `Lazy` or `Provider` that a singleton's factory makes from its resolver holds the container
  /// weakly, as `@LazyInjected` does: a container simply dropped is released with its singleton
  /// (ContainersAndChildScopes.md, "End a session"); before, the two kept each other alive, even
  /// once disposed.
  @Test func aDroppedContainerWithASingletonsHandlesIsReleased() async throws {
    weak var released: Container?
    weak var holder: MakerHandleHolder?
    do {
      // A container of its own: a parent would make the key's default singleton itself.
      let session = Container()
      session.register(\.makerLabel) { "session" }
      let made = try session[\.makerHandleHolder]
      #expect(try made.lazy.value == "session")
      #expect(try made.provider.get() == "session")
      released = session
      holder = made
    }
    #expect(await freedSoon { released == nil }, "the session container leaks")
    #expect(await freedSoon { holder == nil }, "the session's singleton leaks")
  }

  /// Kept past its container, the singleton's handle throws, saying why.
  @Test func aSingletonsHandleUsedAfterItsContainerWentThrowsSayingWhy() throws {
    func holder() throws -> MakerHandleHolder {
      let session = Container()
      session.register(\.makerLabel) { "session" }
      return try session[\.makerHandleHolder]
    }
    let kept = try holder()
    let error = #expect(throws: ResolutionError.self) { try kept.provider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(error?.underlying?.contains("made for a singleton or cached instance of its container") == true)
  }
}
