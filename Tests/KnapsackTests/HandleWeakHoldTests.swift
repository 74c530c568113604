import Foundation
import Knapsack
import Synchronization
import Testing

// The weak hold of a handle (`Lazy`, `Provider`, `@LazyInjected`) that a
// factory makes for a singleton or cached instance of its own container (`Provider.init`).

/// Keeps a `Lazy` and a `Provider` of the label, made by the factory that makes it.
final class KeptHolder: Sendable {
  let lazy: Lazy<Key<String>>
  let provider: Provider<Key<String>>
  init(_ r: Resolver) {
    lazy = r.lazy(\.keptLabel)
    provider = r.provider(\.keptLabel)
  }
  init(lazy: Lazy<Key<String>>, provider: Provider<Key<String>>) {
    self.lazy = lazy
    self.provider = provider
  }
}

/// A singleton-kept model whose dependency (a unique service) keeps a handle.
final class KeptModel: Sendable {
  let service: KeptHolder
  let kept: KeptLazyInjectedHolder?
  init(service: KeptHolder, kept: KeptLazyInjectedHolder? = nil) {
    self.service = service
    self.kept = kept
  }
  func keeping(_ holder: KeptLazyInjectedHolder) -> KeptModel { KeptModel(service: service, kept: holder) }
}

/// Keeps a `@LazyInjected` label.
struct KeptLazyInjectedHolder: Sendable {
  @LazyInjected(\.keptLabel) var label: String
}

final class KeptMainHolder: Sendable {
  let lazy: Lazy<Key<String>>
  init(_ r: Resolver) { lazy = r.lazy(\.keptLabel) }
}

extension Dependencies {
  var keptLabel: Key<String> { Key { "default" } }
  var keptHolder: Key<KeptHolder> { .required() }
  var keptOtherHolder: Key<KeptHolder> { .required() }
  var keptModel: Key<KeptModel> { .required() }
  var keptAsyncModel: AsyncKey<KeptModel> { .required() }
  var keptArgHolder: ArgumentKey<Int, KeptHolder> { .required() }
  var keptAsyncHolder: AsyncKey<KeptHolder> { .required() }
  var keptMainHolder: MainActorKey<KeptMainHolder> { .required() }
  var keptHolders: Multibinding<KeptHolder> { Multibinding() }
  var keptLazyInjected: Key<KeptLazyInjectedHolder> { .required() }
}

/// Whether a new container, which `body` registers into and resolves from, is freed soon after
/// `body` returns and nothing else holds it.
func isReleasedWhenDropped(
  isolation: isolated (any Actor)? = #isolation, _ body: (Container) throws -> Void
) async rethrows -> Bool {
  weak var weakContainer: Container?
  do {
    let container = Container()
    try body(container)
    weakContainer = container
  }
  return await freedSoon { weakContainer == nil }
}

/// ``isReleasedWhenDropped(_:)`` for a `body` that awaits.
func isReleasedWhenDroppedAsync(
  isolation: isolated (any Actor)? = #isolation, _ body: (Container) async throws -> Void
) async rethrows -> Bool {
  weak var weakContainer: Container?
  do {
    let container = Container()
    try await body(container)
    weakContainer = container
  }
  return await freedSoon { weakContainer == nil }
}

@Suite struct HandleWeakHoldTests {
  // MARK: Parent and child

  /// A parent's singleton made while a child resolves it: its handles resolve from the parent
  /// (which makes it with its own registrations), and the child keeps the parent alive, so the
  /// user holding only the child reads them.
  @Test func aParentsSingletonMadeForAChildReadsWhileOnlyTheChildIsHeld() throws {
    var parent: Container? = Container()
    parent?.register(\.keptLabel) { "parent" }
    parent?.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    let child = parent!.makeChild()
    child.register(\.keptLabel) { "child" }
    weak let weakParent = parent
    parent = nil
    let holder = try child[\.keptHolder]
    #expect(weakParent != nil, "the child keeps its parent")
    #expect(try holder.lazy.value == "parent")
    #expect(try holder.provider.get() == "parent")
  }

  /// Dropped together, the parent and child are released with the singleton.
  @Test func aParentAndChildDroppedWithTheParentsSingletonAreReleased() async throws {
    weak var weakParent: Container?
    weak var weakChild: Container?
    weak var weakHolder: KeptHolder?
    do {
      let parent = Container()
      parent.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
      let child = parent.makeChild()
      let holder = try child[\.keptHolder]
      #expect(try holder.provider.get() == "default")
      (weakParent, weakChild, weakHolder) = (parent, child, holder)
    }
    #expect(await freedSoon { weakChild == nil }, "the child leaks")
    #expect(await freedSoon { weakParent == nil }, "the parent leaks")
    #expect(await freedSoon { weakHolder == nil }, "the singleton leaks")
  }

  /// A child that decorates its parent's singleton keeps an instance of its own: the decorator's
  /// handle reads while the child is held, and the child is released when dropped.
  @Test func aChildsDecoratedCopyOfAParentsSingletonReadsAndIsReleased() async throws {
    let parent = Container()
    parent.register(\.keptLabel) { "parent" }
    parent.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    weak var weakChild: Container?
    weak var weakHolder: KeptHolder?
    do {
      let child = parent.makeChild()
      child.register(\.keptLabel) { "child" }
      child.decorate(\.keptHolder) { r, _ in KeptHolder(r) }
      let holder = try child[\.keptHolder]
      let label = try holder.lazy.value
      #expect(label == "child" || label == "parent")
      #expect(try holder.provider.get() == label)
      (weakChild, weakHolder) = (child, holder)
    }
    #expect(await freedSoon { weakChild == nil }, "the child leaks")
    #expect(await freedSoon { weakHolder == nil }, "the child's decorated singleton leaks")
    #expect(try parent[\.keptHolder].provider.get() == "parent")
  }

  // MARK: What a singleton keeps

  /// A singleton's unique dependency that keeps a handle (a view model kept for the session, its
  /// service holding a provider): the container keeps the singleton, which keeps the service,
  /// which keeps the handle. Dropped, the container must be released with them
  /// (ContainersAndChildScopes.md: "A child that is simply dropped is released with its
  /// instances").
  @Test func aContainerWhoseSingletonKeepsAUniqueServiceWithAHandleIsReleased() async throws {
    weak var weakContainer: Container?
    weak var weakModel: KeptModel?
    do {
      let session = Container()
      session.register(\.keptLabel) { "session" }
      session.register(\.keptHolder) { r in KeptHolder(r) }
      session.register(\.keptModel, scope: .singleton) { r in KeptModel(service: try r[\.keptHolder]) }
      let model = try session[\.keptModel]
      #expect(try model.service.provider.get() == "session")
      (weakContainer, weakModel) = (session, model)
    }
    #expect(await freedSoon { weakContainer == nil }, "the session container leaks")
    #expect(await freedSoon { weakModel == nil }, "the session's singleton leaks")
  }

  /// The same through a graph-scoped dependency.
  @Test func aContainerWhoseSingletonKeepsAGraphDependencyWithAHandleIsReleased() async throws {
    let released = try await isReleasedWhenDropped { (session) throws in
      session.register(\.keptHolder, scope: .graph) { r in KeptHolder(r) }
      session.register(\.keptModel, scope: .singleton) { r in KeptModel(service: try r[\.keptHolder]) }
      #expect(try session[\.keptModel].service.lazy.value == "default")
    }
    #expect(released, "the container leaks")
  }

  /// A unique instance with a handle, kept past the container's last variable, still reads (the
  /// handle holds the container).
  @Test func aUniqueInstanceKeptPastItsContainerStillReads() throws {
    func make() throws -> KeptHolder {
      let container = Container()
      container.register(\.keptLabel) { "unique" }
      container.register(\.keptHolder) { r in KeptHolder(r) }
      return try container[\.keptHolder]
    }
    let holder = try make()
    #expect(try holder.lazy.value == "unique")
    #expect(try holder.provider.get() == "unique")
  }

  /// A parent's singleton made for a child, whose unique dependency (made by the parent) keeps a
  /// handle: it reads while the user holds only the child, and everything is released when
  /// dropped.
  @Test func aParentsSingletonsUniqueDependencyMadeForAChildReadsAndIsReleased() async throws {
    weak var weakParent: Container?
    weak var weakChild: Container?
    do {
      var parent: Container? = Container()
      parent?.register(\.keptLabel) { "parent" }
      parent?.register(\.keptHolder) { r in KeptHolder(r) }
      parent?.register(\.keptModel, scope: .singleton) { r in KeptModel(service: try r[\.keptHolder]) }
      let child = parent!.makeChild()
      child.register(\.keptLabel) { "child" }
      weakParent = parent
      parent = nil
      let model = try child[\.keptModel]
      #expect(try model.service.lazy.value == "parent")
      #expect(try model.service.provider.get() == "parent")
      weakChild = child
    }
    #expect(await freedSoon { weakChild == nil }, "the child leaks")
    #expect(await freedSoon { weakParent == nil }, "the parent leaks")
  }

  /// A `@LazyInjected` property of a singleton's unique dependency: the container is released
  /// when dropped, and the property reads while it lives.
  @Test func aLazyInjectedPropertyOfASingletonsDependencyIsReleased() async throws {
    let released = try await isReleasedWhenDropped { (container) throws in
      container.register(\.keptLabel) { "lazy injected" }
      container.register(\.keptLazyInjected) { KeptLazyInjectedHolder() }
      container.register(\.keptModel, scope: .singleton) { r in
        let holder = try r[\.keptLazyInjected]
        return KeptModel(service: KeptHolder(lazy: r.lazy(\.keptLabel), provider: r.provider(\.keptLabel)))
          .keeping(holder)
      }
      let model = try container[\.keptModel]
      #expect(model.kept?.label == "lazy injected")
    }
    #expect(released, "the container leaks")
  }

  /// An asynchronous singleton's unique asynchronous dependency with a handle.
  @Test func anAsyncSingletonsAsyncDependencyWithAHandleIsReleased() async throws {
    let released = try await isReleasedWhenDroppedAsync { (container) async throws in
      container.register(\.keptAsyncHolder) { r in
        await Task.yield()
        return KeptHolder(r)
      }
      container.register(\.keptAsyncModel, scope: .cached) { r in
        KeptModel(service: try await r.resolve(\.keptAsyncHolder))
      }
      let model = try await container.resolve(\.keptAsyncModel)
      #expect(try model.service.provider.get() == "default")
    }
    #expect(released, "the container leaks")
  }

  /// A parent's decorator and a child's, on the parent's singleton: the child's own instance is
  /// released with the child, and the parent's decorator's handle reads.
  @Test func decoratorsOfParentAndChildOnAParentsSingletonAreReleasedWithTheChild() async throws {
    let parent = Container()
    parent.register(\.keptLabel) { "parent" }
    parent.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    parent.decorate(\.keptHolder) { r, inner in KeptHolder(lazy: r.lazy(\.keptLabel), provider: inner.provider) }
    weak var weakChild: Container?
    do {
      let child = parent.makeChild()
      child.decorate(\.keptHolder) { r, inner in KeptHolder(lazy: inner.lazy, provider: r.provider(\.keptLabel)) }
      let holder = try child[\.keptHolder]
      #expect(try holder.lazy.value == "parent")
      #expect(try holder.provider.get() == "parent")
      weakChild = child
    }
    #expect(await freedSoon { weakChild == nil }, "the child leaks")
    #expect(try parent[\.keptHolder].lazy.value == "parent")
  }

  // MARK: Kinds of keys and scopes

  /// A singleton per argument: each one's handles hold the container weakly; the container is
  /// released when dropped, and reads while it lives.
  @Test func argumentSingletonsAreReleasedWithTheirContainer() async throws {
    weak var weakContainer: Container?
    weak var weakHolder: KeptHolder?
    do {
      let container = Container()
      container.register(\.keptArgHolder, scope: .singleton) { r, _ in KeptHolder(r) }
      let one = try container.resolve(\.keptArgHolder, argument: 1)
      let two = try container.resolve(\.keptArgHolder, argument: 2)
      #expect(one !== two)
      #expect(try one.lazy.value == "default")
      #expect(try two.provider.get() == "default")
      (weakContainer, weakHolder) = (container, one)
    }
    #expect(await freedSoon { weakContainer == nil }, "the container leaks")
    #expect(await freedSoon { weakHolder == nil }, "the argument's singleton leaks")
  }

  /// An asynchronous singleton making its handle after it first suspends.
  @Test func anAsyncSingletonsHandleMadeAfterASuspensionIsWeakAndReads() async throws {
    weak var weakContainer: Container?
    weak var weakHolder: KeptHolder?
    do {
      let container = Container()
      container.register(\.keptLabel) { "async" }
      container.register(\.keptAsyncHolder, scope: .singleton) { r in
        await Task.yield()
        try await Task.sleep(for: .milliseconds(1))
        return KeptHolder(r)
      }
      let holder = try await container.resolve(\.keptAsyncHolder)
      #expect(try holder.lazy.value == "async")
      (weakContainer, weakHolder) = (container, holder)
    }
    #expect(await freedSoon { weakContainer == nil }, "the container leaks")
    #expect(await freedSoon { weakHolder == nil }, "the async singleton leaks")
  }

  /// A handle made in a structured child task of an asynchronous singleton's factory counts as
  /// the factory's.
  @Test func anAsyncSingletonsHandleMadeInAChildTaskIsWeak() async throws {
    let released = try await isReleasedWhenDroppedAsync { (container) async throws in
      container.register(\.keptAsyncHolder, scope: .singleton) { r in
        async let made = KeptHolder(r)
        return await made
      }
      let holder = try await container.resolve(\.keptAsyncHolder)
      #expect(try holder.provider.get() == "default")
    }
    #expect(released, "the container leaks")
  }

  @MainActor @Test func aMainActorSingletonIsReleasedWithItsContainer() async throws {
    let released = try await isReleasedWhenDropped { (container) throws in
      container.register(\.keptMainHolder, scope: .singleton) { @MainActor r in KeptMainHolder(r) }
      #expect(try container[\.keptMainHolder].lazy.value == "default")
    }
    #expect(released, "the container leaks")
  }

  /// A decorator that wraps a singleton and makes a handle.
  @Test func aDecoratorsHandleOnASingletonIsWeak() async throws {
    let released = try await isReleasedWhenDropped { (container) throws in
      container.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
      container.decorate(\.keptHolder) { r, inner in KeptHolder(lazy: r.lazy(\.keptLabel), provider: inner.provider) }
      #expect(try container[\.keptHolder].lazy.value == "default")
    }
    #expect(released, "the container leaks")
  }

  /// A multibinding's singleton contribution.
  @Test func aSingletonContributionsHandleIsWeak() async throws {
    let released = try await isReleasedWhenDropped { (container) throws in
      container.contribute(to: \.keptHolders, scope: .singleton) { r in KeptHolder(r) }
      container.contribute(to: \.keptHolders) { r in KeptHolder(r) }
      let holders = try container.resolve(\.keptHolders)
      #expect(try holders.map { try $0.lazy.value } == ["default", "default"])
    }
    #expect(released, "the container leaks")
  }

  /// A cached instance reads after `resetCached()` while its container lives.
  @Test func aCachedInstanceReadsAfterReset() throws {
    let container = Container()
    container.register(\.keptHolder, scope: .cached) { r in KeptHolder(r) }
    let holder = try container[\.keptHolder]
    container.resetCached()
    #expect(try holder.lazy.value == "default")
    #expect(try holder.provider.get() == "default")
  }

  /// A weak-scoped instance: its container does not keep it, and its handle holds the container.
  @Test func aWeakScopedInstanceKeptPastItsContainerStillReads() throws {
    func make() throws -> KeptHolder {
      let container = Container()
      container.register(\.keptHolder, scope: .weak) { r in KeptHolder(r) }
      return try container[\.keptHolder]
    }
    let holder = try make()
    #expect(try holder.provider.get() == "default")
  }

  // MARK: Disposal

  /// A disposed container, dropped, is released with its singleton; the handle kept throws.
  @Test func aDisposedContainerIsReleasedAndTheKeptHandleThrows() async throws {
    weak var weakContainer: Container?
    var kept: KeptHolder?
    do {
      let container = Container()
      container.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
      kept = try container[\.keptHolder]
      try await container.dispose()
      weakContainer = container
    }
    #expect(await freedSoon { weakContainer == nil }, "the disposed container leaks")
    let error = #expect(throws: ResolutionError.self) { try kept?.provider.get() }
    #expect(error?.kind == .containerDisposed)
  }

  // MARK: Override scopes

  /// A singleton an override scope registers, whose factory makes a handle: read inside the
  /// scope; after the scope, the singleton dropped, nothing the scope made is kept.
  @Test func anOverrideScopesSingletonWithAHandleIsReleasedAfterTheScope() async throws {
    let container = Container()
    weak var weakHolder: KeptHolder?
    try await withOverrides {
      $0.register(\.keptLabel) { "override" }
      $0.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    } operation: {
      let holder = try container[\.keptHolder]
      #expect(try holder.lazy.value == "override")
      #expect(try holder.provider.get() == "override")
      weakHolder = holder
    }
    #expect(await freedSoon { weakHolder == nil }, "the scope's singleton leaks past the scope")
  }

  /// A scope's singleton kept past the scope: its handle, which holds the scope weakly, throws
  /// `containerDisposed` (Testing.md), instead of keeping the scope and all it made alive.
  @Test func anOverrideScopesSingletonsHandleUsedAfterTheScopeThrows() async throws {
    let container = Container()
    let holder = try await withOverrides {
      $0.register(\.keptLabel) { "override" }
      $0.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    } operation: {
      try container[\.keptHolder]
    }
    // The scope's copy goes with the scope (once no resolution's read section still names it).
    #expect(await freedSoon { (try? holder.provider.get()) == nil })
    let error = #expect(throws: ResolutionError.self) { try holder.provider.get() }
    #expect(error?.kind == .containerDisposed)
    #expect(error?.underlying?.contains("override scope") == true, "\(String(describing: error))")
  }

  /// The container's own singleton, made in a scope's copy.
  @Test func aContainersSingletonMadeInAScopesCopyIsReleasedAfterTheScope() async throws {
    let container = Container()
    container.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    weak var weakHolder: KeptHolder?
    try await withOverrides {
      $0.register(\.keptLabel) { "override" }
    } operation: {
      let holder = try container[\.keptHolder]
      #expect(try holder.provider.get() == "override")
      weakHolder = holder
    }
    #expect(await freedSoon { weakHolder == nil }, "the copy's singleton leaks past the scope")
    #expect(try container[\.keptHolder].provider.get() == "default")
  }

  /// An outer scope's singleton first made while an inner scope runs: it is the outer scope's,
  /// and its handles read in the outer scope after the inner one ended.
  @Test func anOuterScopesSingletonMadeInAnInnerScopeReadsAfterTheInnerScope() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.keptLabel) { "outer" }
      $0.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    } operation: {
      let holder = try await withOverrides {
        $0.register(\.keptOtherHolder) { r in KeptHolder(r) }
      } operation: {
        try container[\.keptHolder]
      }
      #expect(try holder.provider.get() == "outer")
      #expect(try holder.lazy.value == "outer")
      #expect(try container[\.keptHolder] === holder)
    }
  }

  /// A synchronous scope's singleton.
  @Test func aSynchronousScopesSingletonIsReleasedAfterTheScope() async throws {
    let container = Container()
    let outcome = await onThreadOutsideAnyTask { () -> String in
      weak var weakHolder: KeptHolder?
      do {
        let label = try withOverrides {
          $0.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
        } operation: { () throws -> String in
          let holder = try container[\.keptHolder]
          weakHolder = holder
          return try holder.provider.get()
        }
        guard label == "default" else { return "read \(label)" }
      } catch {
        return "threw \(error)"
      }
      return waitUntilSync(timeout: hangBound) { weakHolder == nil }
        ? "released" : "the scope's singleton leaks past the scope"
    }
    #expect(outcome == "released")
  }

  // MARK: Validation

  /// A validation run makes the singleton (in its own copy) and its handles: the container
  /// validated, then used, reads; dropped, it is released.
  @Test func aValidatedContainerReadsItsSingletonsHandlesAndIsReleased() async throws {
    weak var weakContainer: Container?
    do {
      let container = Container()
      container.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
      let report = await container.validate()
      #expect(report.isValid, "\(report.problems)")
      #expect(try container[\.keptHolder].lazy.value == "default")
      weakContainer = container
    }
    #expect(await freedSoon { weakContainer == nil }, "the validated container leaks")
  }

  // MARK: Container.current

  /// A container used only through `withContainer`, dropped after it while the singleton is
  /// kept: the singleton's `@LazyInjected`-free handle throws `containerDisposed` (documented).
  @Test func aSingletonOfAContainerDroppedAfterWithContainerThrows() async throws {
    var container: Container? = Container()
    container?.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
    let holder = try await withContainer(container!) { try Container.current[\.keptHolder] }
    container = nil
    let error = #expect(throws: ResolutionError.self) { try holder.provider.get() }
    #expect(error?.kind == .containerDisposed)
  }

  /// A singleton of `Container.shared` reads for as long as the process runs.
  @Test func aSharedSingletonReads() throws {
    let holder = try Container.shared[\.keptLazyInjectedHolderShared]
    #expect(try holder.lazy.value == "default")
  }

  // MARK: Tasks

  /// A handle captured in a task that runs after the container's last variable ended: the
  /// container is gone (in a debug build at the end of the function), and the task sees the
  /// documented error.
  @Test func aSingletonsHandleUsedInATaskAfterTheContainersScopeThrows() async throws {
    func start() throws -> Task<Result<String, any Error>, Never> {
      let container = Container()
      container.register(\.keptHolder, scope: .singleton) { r in KeptHolder(r) }
      let holder = try container[\.keptHolder]
      return Task {
        try? await Task.sleep(for: .milliseconds(20))
        return Result { try holder.provider.get() }
      }
    }
    let result = await (try start()).value
    #expect(throws: ResolutionError.self) { try result.get() }
  }
}

extension Dependencies {
  var keptLazyInjectedHolderShared: Key<KeptHolder> { Key { r in KeptHolder(r) }.scope(.singleton) }
}
