import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

// A review of `@Injected` / `@LazyInjected` resolving, in an instance a factory makes, from the
// container making it (`Container.makingHere`).

/// Reads the label eagerly.
struct ReviewHolder: Sendable {
  @Injected(\.reviewLabel) var label: String
}

/// Reads the label on first access.
struct ReviewLazyHolder: Sendable {
  @LazyInjected(\.reviewLabel) var label: String
}

/// What a factory's resolver gives, beside what an `@Injected` property of what it makes gives:
/// the two must agree ("as the factory's own resolutions do").
struct ReviewPair: Sendable, Equatable {
  let resolver: String
  @Injected(\.reviewLabel) var injected: String
  init(resolver: String) { self.resolver = resolver }
  static func == (lhs: Self, rhs: Self) -> Bool { (lhs.resolver, lhs.injected) == (rhs.resolver, rhs.injected) }
  var agrees: Bool { resolver == injected }
}

/// A session-kept view model that reads a dependency on first use.
final class ReviewSessionModel: Sendable {
  /// A stored struct with the property: a `Sendable` class cannot have a wrapped `var` itself.
  let holder = ReviewLazyHolder()
  var label: String { holder.label }
}

/// Makes a holder when it goes away.
final class ReviewDeinitProbe: Sendable {
  let seen: Collected<String>
  init(_ seen: Collected<String>) { self.seen = seen }
  deinit { seen.append(ReviewHolder().label) }
}

extension Dependencies {
  var reviewLabel: Key<String> { Key { "default" } }
  var reviewHolder: Key<ReviewHolder> { Key { ReviewHolder() } }
  var reviewLazyHolder: Key<ReviewLazyHolder> { Key { ReviewLazyHolder() } }
  var reviewPair: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewLabel]) } }
  var reviewSingletonPair: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewLabel]) }.scope(.singleton) }
  var reviewCachedPair: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewLabel]) }.scope(.cached) }
  var reviewWeakPair: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewLabel]) }.scope(.weak) }
  var reviewGraphPair: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewLabel]) }.scope(.graph) }
  var reviewArgumentPair: ArgumentKey<Int, ReviewPair> {
    ArgumentKey { r, _ in ReviewPair(resolver: try r[\.reviewLabel]) }
  }
  var reviewAsyncPair: AsyncKey<ReviewPair> {
    AsyncKey { r in ReviewPair(resolver: try r[\.reviewLabel]) }
  }
  var reviewMainActorPair: MainActorKey<ReviewPair> {
    MainActorKey { r in ReviewPair(resolver: try r[\.reviewLabel]) }
  }
  var reviewPairs: Multibinding<ReviewPair> { Multibinding() }
  var reviewSessionModel: Key<ReviewSessionModel> { Key { ReviewSessionModel() }.scope(.singleton) }
  /// An asynchronous factory that makes holders in each kind of task it can start.
  var reviewTaskKinds: AsyncKey<[String]> {
    AsyncKey { () async -> [String] in
      await Task.yield()
      async let child = ReviewHolder().label
      let grouped = await withTaskGroup(of: String.self) { group in
        group.addTask { ReviewHolder().label }
        return await group.next() ?? "none"
      }
      let unstructured = await Task { ReviewHolder().label }.value
      let detached = await Task.detached { ReviewHolder().label }.value
      return [await child, grouped, unstructured, detached]
    }
  }
  /// An asynchronous factory that makes a holder before it first suspends.
  var reviewAsyncEager: AsyncKey<String> {
    AsyncKey { () async -> String in ReviewHolder().label }
  }
}

@Suite struct ReviewInjectedTests {
  private func container(_ label: String) -> Container {
    let container = Container()
    container.register(\.reviewLabel) { label }
    return container
  }

  /// The invariant the change claims: an `@Injected` property of what a factory makes resolves
  /// from the container the factory's resolver resolves from, for every scope, through a child,
  /// with a decorator, as a contribution, with an argument, in an override scope.
  @Test func aPropertyResolvesWhereTheFactorysResolverDoes() async throws {
    let parent = container("parent")
    let child = parent.makeChild()
    child.register(\.reviewLabel) { "child" }
    parent.contribute(to: \.reviewPairs) { r in ReviewPair(resolver: try r[\.reviewLabel]) }
    child.contribute(to: \.reviewPairs) { r in ReviewPair(resolver: try r[\.reviewLabel]) }
    var pairs: [(String, ReviewPair)] = []
    for (name, from) in [("parent", parent), ("child", child)] {
      pairs += [
        ("\(name) unique", try from[\.reviewPair]),
        ("\(name) singleton", try from[\.reviewSingletonPair]),
        ("\(name) cached", try from[\.reviewCachedPair]),
        ("\(name) weak", try from[\.reviewWeakPair]),
        ("\(name) graph", try from[\.reviewGraphPair]),
        ("\(name) argument", try from.resolve(\.reviewArgumentPair, argument: 1)),
        ("\(name) async", try await from.resolve(\.reviewAsyncPair)),
        ("\(name) main actor", try await from.resolve(\.reviewMainActorPair)),
      ]
      pairs += try from[\.reviewPairs].map { ("\(name) contribution", $0) }
    }
    let decorating = parent.makeChild()
    decorating.register(\.reviewLabel) { "decorating" }
    decorating.decorate(\.reviewSingletonPair) { r, pair in ReviewPair(resolver: try r[\.reviewLabel]) }
    pairs.append(("decorated parent singleton", try decorating[\.reviewSingletonPair]))
    let scoped = try await withOverrides {
      $0.register(\.reviewLabel) { "override" }
    } operation: { () async throws in
      [try child[\.reviewPair], try child[\.reviewSingletonPair]]
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
    let labels = try await withContainer(container("task")) { try await own.resolve(\.reviewTaskKinds) }
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
    outer.register(\.reviewHolder) {
      started.withLock { $0 = Task.immediate { try await inner.resolve(\.reviewAsyncEager) } }
      return ReviewHolder()
    }
    #expect(try outer[\.reviewHolder].label == "outer")
    let task = try #require(started.withLock { $0 })
    #expect(try await task.value == "inner")
  }

  /// A deinit that runs inside a factory makes its instance there; one outside, from
  /// `Container.current`.
  @Test func aDeinitInsideAFactory() throws {
    let seen = Collected<String>()
    let own = container("own")
    own.register(\.reviewHolder) {
      _ = ReviewDeinitProbe(seen)
      return ReviewHolder()
    }
    try withContainer(container("task")) { () throws in
      _ = try own[\.reviewHolder]
      _ = ReviewDeinitProbe(seen)
    }
    #expect(seen.all == ["own", "task"])
  }

  /// A child container that is simply dropped is released with its instances
  /// (ContainersAndChildScopes.md, "End a session"), also when one of its singletons has a
  /// `@LazyInjected` property, which holds the container weakly.
  @Test func aDroppedSessionWithALazyPropertyIsReleased() async throws {
    let app = container("app")
    weak var released: Container?
    weak var model: ReviewSessionModel?
    do {
      let session = app.makeChild()
      session.register(\.reviewSessionModel) { ReviewSessionModel() }
      let made = try session[\.reviewSessionModel]
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
      func sessionModel() -> ReviewSessionModel? {
        let session = Container()
        session.register(\.reviewLabel) { "session" }
        return try? session[\.reviewSessionModel]
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
    let holder = try container("own")[\.reviewLazyHolder]
    #expect(holder.label == "own")
  }

  /// A `@LazyInjected` property read later, on another thread, reads from the factory's
  /// container, whatever container is current there.
  @Test func aLazyPropertyReadLaterElsewhere() async throws {
    let own = container("own")
    let holder = try own[\.reviewLazyHolder]
    let label = await withContainer(container("task")) {
      await Task.detached { holder.label }.value
    }
    #expect(label == "own")
  }

  /// The testing traits: the `.container` trait sets `Container.current`, but a factory of
  /// another container makes its instance from that container.
  @Test(.container { $0.register(\.reviewLabel) { "trait" } })
  func theContainerTraitYieldsToTheFactorysContainer() throws {
    #expect(ReviewHolder().label == "trait")
    #expect(try container("own")[\.reviewHolder].label == "own")
    #expect(try Container.current[\.reviewHolder].label == "trait")
  }

  @Test(.overrides { $0.register(\.reviewLabel) { "override" } })
  func theOverridesTraitReachesTheFactorysInstances() async throws {
    #expect(try container("own")[\.reviewHolder].label == "override")
    #expect(try await container("own").resolve(\.reviewAsyncEager) == "override")
    #expect(ReviewHolder().label == "override")
  }

  /// A factory that resolves through a captured other container: what that container's factory
  /// makes is that container's; what this factory makes after it, this one's.
  @Test func aCapturedOtherContainer() throws {
    let other = container("other")
    let own = container("own")
    own.register(\.reviewPair) { r in
      let fromOther = try other[\.reviewHolder].label
      let lazily = try other.lazy(\.reviewHolder).value.label
      return ReviewPair(resolver: "\(fromOther) \(lazily) \(try r[\.reviewLabel])")
    }
    let pair = try own[\.reviewPair]
    #expect(pair.resolver == "other other own")
    #expect(pair.injected == "own")
  }

  /// Nested `withContainer` and `withOverrides`: the factory's container wins over the task's, and
  /// the innermost scope's overrides apply to it.
  @Test func nestedContainersAndScopes() throws {
    let own = container("own")
    try withContainer(container("outer")) { () throws in
      try withContainer(container("inner")) { () throws in
        #expect(ReviewHolder().label == "inner")
        #expect(try own[\.reviewHolder].label == "own")
        try withOverrides {
          $0.register(\.reviewLabel) { "scope 1" }
        } operation: { () throws in
          try withOverrides {
            $0.register(\.reviewLabel) { "scope 2" }
          } operation: { () throws in
            #expect(try own[\.reviewHolder].label == "scope 2")
            #expect(ReviewHolder().label == "scope 2")
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
        (try await own.resolve(\.reviewMainActorPair), try await own.provider(\.reviewMainActorPair).get())
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
          guard let pair = try? own[\.reviewPair], let lazy = try? own[\.reviewLazyHolder] else {
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
            let kinds = try await containers[index].resolve(\.reviewTaskKinds)
            let pair = try await containers[index].resolve(\.reviewAsyncPair)
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
struct ReviewRequiredHolder: Sendable {
  @Injected(\.reviewRequired) var value: String
}

struct ReviewLazyRequiredHolder: Sendable {
  @LazyInjected(\.reviewRequired) var value: String
}

/// Makes a holder in each of its callbacks, and notes what it read.
final class ReviewMakingObserver: ResolutionObserver {
  let seen = Collected<String>()
  func willResolve(_ dependency: DependencyReference, depth: Int) {
    seen.append("will \(dependency.name) \(depth): \(ReviewHolder().label)")
  }
  func didResolve(_ event: ResolutionEvent) {
    seen.append("did \(event.dependency.name) \(event.depth): \(ReviewHolder().label)")
  }
}

extension Dependencies {
  var reviewRequired: Key<String> { .required() }
  var reviewRequiredSingleton: Key<ReviewRequiredHolder> { Key { ReviewRequiredHolder() }.scope(.singleton) }
  var reviewRequiredHolder: Key<ReviewRequiredHolder> { Key { ReviewRequiredHolder() } }
  var reviewLazyRequiredHolder: AsyncKey<ReviewLazyRequiredHolder> {
    AsyncKey { () async -> ReviewLazyRequiredHolder in ReviewLazyRequiredHolder() }
  }
  var reviewHolderOfHolder: Key<ReviewPair> { Key { r in ReviewPair(resolver: try r[\.reviewHolder].label) } }
}

@Suite struct ReviewInjectedValidationTests {
  /// A child validates a parent's singleton whose `@Injected` property needs what only the child
  /// registers: the parent makes it in the app (and stops), so the run must report it.
  @Test func aParentSingletonNeedingTheChildsKeyIsReported() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(\.reviewRequired) { "child" }
    let report = await child.validate(including: [\.reviewRequiredSingleton])
    #expect(!report.isValid, "\(report)")
    #expect(report.problems.contains { $0.path.map(\.name).contains("\\.reviewRequired") }, "\(report)")
    // What the child makes itself, it makes from its own registrations.
    #expect(await child.validate(including: [\.reviewRequiredHolder]).isValid)
  }

  /// The task's container no longer stands in for the validated one, nor the other way round: a
  /// validated container that lacks a key fails even if the task's container has it, and one that
  /// has it passes even if the task's container lacks it; through a `@LazyInjected` property of
  /// what an asynchronous factory makes too.
  @Test func theTasksContainerDoesNotLeakIntoTheRun() async throws {
    let has = Container()
    has.register(\.reviewRequired) { "has" }
    let lacks = Container()
    let keys: [PartialKeyPath<Dependencies>] = [\.reviewRequiredHolder, \.reviewLazyRequiredHolder]
    let lacking = await withContainer(has) { await lacks.validate(including: keys) }
    #expect(Set(lacking.problems.compactMap { $0.path.first?.name }).count == 2, "\(lacking)")
    let having = await withContainer(lacks) { await has.validate(including: keys) }
    #expect(having.isValid, "\(having)")
    #expect(try await has.resolve(\.reviewLazyRequiredHolder).value == "has")
  }

  /// The graph shows a property's dependency as an edge of the factory that made the instance.
  @Test func theGraphShowsAPropertysEdge() async throws {
    let container = Container()
    let graph = await container.graph(including: [\.reviewHolder, \.reviewHolderOfHolder])
    #expect(graph.edges.contains(.init(from: "\\.reviewHolder", to: "\\.reviewLabel")), "\(graph.edges)")
    #expect(graph.edges.contains(.init(from: "\\.reviewHolderOfHolder", to: "\\.reviewHolder")), "\(graph.edges)")
  }

  /// An observer is no factory: what it makes in its callbacks resolves from `Container.current`
  /// whether the step it is told about is a top-level one (no factory on the path) or a
  /// dependency a factory asked for; it resolved from the asking factory's container before.
  @Test func anObserverThatMakesAnInstanceUsesTheTasksContainer() async throws {
    let parent = Container()
    parent.register(\.reviewLabel) { "parent" }
    let observer = ReviewMakingObserver()
    parent.observe(observer)
    let task = Container()
    task.register(\.reviewLabel) { "task" }
    try await withContainer(task) {
      _ = try parent[\.reviewHolderOfHolder]
      _ = try await parent.resolve(\.reviewAsyncPair)
    }
    #expect(observer.seen.all.count >= 12, "\(observer.seen.all)")
    #expect(observer.seen.all.allSatisfy { $0.hasSuffix(": task") }, "\(observer.seen.all)")
  }
}

/// A singleton that keeps a handle its factory made from its resolver.
final class ReviewHandleHolder: Sendable {
  let lazy: Lazy<Key<String>>
  let provider: Provider<Key<String>>
  init(lazy: Lazy<Key<String>>, provider: Provider<Key<String>>) {
    self.lazy = lazy
    self.provider = provider
  }
}

extension Dependencies {
  var reviewHandleHolder: Key<ReviewHandleHolder> {
    Key { r in ReviewHandleHolder(lazy: r.lazy(\.reviewLabel), provider: r.provider(\.reviewLabel)) }.scope(.singleton)
  }
}

@Suite struct ReviewHandleRetentionTests {
  /// A `Lazy` or `Provider` that a singleton's factory makes from its resolver holds the container
  /// weakly, as `@LazyInjected` does: a container simply dropped is released with its singleton
  /// (ContainersAndChildScopes.md, "End a session"); before, the two kept each other alive, even
  /// once disposed.
  @Test func aDroppedContainerWithASingletonsHandlesIsReleased() async throws {
    weak var released: Container?
    weak var holder: ReviewHandleHolder?
    do {
      // A container of its own: a parent would make the key's default singleton itself.
      let session = Container()
      session.register(\.reviewLabel) { "session" }
      let made = try session[\.reviewHandleHolder]
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
    func holder() throws -> ReviewHandleHolder {
      let session = Container()
      session.register(\.reviewLabel) { "session" }
      return try session[\.reviewHandleHolder]
    }
    let kept = try holder()
    let error = #expect(throws: ResolutionError.self) { try kept.provider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(error?.underlying?.contains("made for a singleton or cached instance of its container") == true)
  }
}
