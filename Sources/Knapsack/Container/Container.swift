public import Synchronization

/// A set of registrations and the instances made from them.
///
/// A container is a value you pass around; nothing global is needed. Resolve keys with
/// ``resolve(_:fileID:line:)-(KeyPath<Dependencies,Key<V>>,_,_)`` or the subscript, override keys at the
/// composition root with `register(_:scope:...)`,
/// and make session scopes with ``makeChild()``.
///
/// ```swift
/// let container = Container()
/// container.register(\.storage, scope: .singleton) { r in try SQLiteStorage(path: r[\.dataPath]) }
/// let storage = try container[\.storage]
/// ```
///
/// Every method is safe to call from any thread or task (not from a signal handler: like the
/// Swift runtime it relies on, a resolution is not async-signal-safe).
public final class Container: Sendable {
  /// A process-wide container for apps that want one; ``Injected`` and ``LazyInjected`` in an
  /// instance made outside any factory resolve from it unless told otherwise. Every API also
  /// works with a container you create.
  public static let shared = Container()

  @TaskLocal static var taskContainer: Container?

  /// The container of the current task: the one set by ``withContainer(_:operation:)-(_,()->R)``
  /// (or the testing trait) around this code, else ``shared``. ``Injected`` and
  /// ``LazyInjected`` in an instance made outside any factory resolve from it unless told
  /// otherwise (one that a factory makes resolves from the container making it).
  public static var current: Container { taskContainer ?? shared }

  struct Overlay: Sendable {
    let base: Container
    /// Override registrations, innermost scope first.
    let overrides: [Container]
    /// The identity of the scope the copy serves, kept so that no other scope is given it (see
    /// ``OverrideScope/identity``).
    let scope: OverrideScope.Identity
    /// The override scope that encloses this copy's scope, whose copies keep the shared
    /// instances of what its overrides register (see `enclosingScopeCopy(keeping:)`).
    let enclosing: OverrideScope?
    let recorder: ValidationRecorder.Tap?
  }

  struct Disposal: Sendable {
    let dependency: Int
    let instance: any Sendable
    let dispose: (@Sendable (any Sendable) async throws -> Void)?
    /// For an argument key's instance, the argument it was made for.
    let argument: (any Sendable)?
    /// Whether the instance is the one the container keeps and hands out, not one kept only to
    /// be disposed of (what a factory made before its decorator failed).
    let isShared: Bool
  }

  struct State {
    var registrations = RegistrationMap()
    var bindings: [Int: Binding] = [:]
    var decorators: [Int: [Decoration]] = [:]
    var contributions: [Int: [Registration]] = [:]
    /// The highest number given to this container's contributions from each place (see
    /// ``KeyTable/ContributionSite``).
    var contributionOrdinals: [KeyTable.ContributionPlace: Int] = [:]
    var created: [Disposal] = []
    /// The class instances in ``created``: one object is recorded once.
    var createdObjects: Set<ObjectIdentifier> = []
    /// The objects in ``createdObjects`` that another key hands out too, one that a
    /// ``Container/resetCached()`` of this container does not clear (a singleton, or a key of a
    /// child or of an override scope's copy): a reset keeps them for disposal with the container,
    /// as dropping one would close it under that key.
    var heldBeyondReset: Set<ObjectIdentifier> = []
    var disposed = false
    /// In an override scope's copy, the dependencies whose shared instances the scope disposed
    /// when it ended, with the registration that made them: a handle made in the scope that
    /// resolves one afterwards gets an error, not the disposed instance, while that is still the
    /// registration in effect (see `disposeCreatedInstances`). An argument key's instances are
    /// refused per argument, by its binding (see ``Binding/endArguments(_:)``).
    var disposedWithScope: [Int: Registration] = [:]
    /// Shared instances being made right now, counted by the number of cache resets that
    /// dropped something before each began (``resets``): disposal waits for them all, and the
    /// background disposal of what a reset dropped for those that began before it, whose
    /// factories may have been handed a dropped instance to hand out under a key of their own.
    var creating: [UInt64: Int] = [:]
    /// How many cache resets dropped something.
    var resets: UInt64 = 0
    /// What cache resets dropped and the background has not begun disposing of yet, oldest
    /// first, each with the ``resets`` count before its reset (see ``Container/resetCached()``):
    /// disposal takes what is left.
    var dropped: [(disposal: Disposal, reset: UInt64)] = []
    /// Background disposals of what resets dropped that are still running; disposal waits for
    /// them, so that nothing a reset dropped is still open when ``Container/dispose()`` returns.
    var draining = 0
    var disposal: Task<[DisposalError.Failure], Never>?
    var observer: (any ResolutionObserver)?
    var children = WeakList<Container>()
  }

  let parent: Container?
  /// How many ancestors this container has: kept, not counted, because an override scope sorts
  /// its copies by it when it ends, which for a long line of children took quadratic time.
  let depth: Int
  let overlay: Overlay?
  /// The identity of the override scope this container is the copy for, if any (see
  /// ``OverrideScope/identity``): read on every top-level
  /// resolution in a scope, so kept apart from ``overlay``.
  @usableFromInline let overlayScope: ObjectIdentifier?
  /// Whether this is a throw-away copy made by ``validate(including:arguments:)``.
  @usableFromInline let isValidationCopy: Bool
  /// Cached plans, one per dependency index, valid while ``generation`` is unchanged.
  @usableFromInline let slots = SlotTable<Slot>()
  let state = Locked(State())
  /// The generation of this container's plans, and the containers whose plans depend on it.
  @usableFromInline let plans: PlanNode

  /// Creates an empty container: every key resolves to its default until you register another
  /// factory.
  public init() {
    parent = nil
    depth = 0
    overlay = nil
    overlayScope = nil
    isValidationCopy = false
    plans = PlanNode(state: state, slots: slots)
  }

  deinit {
    slots.close()
    // This container's contributions can no longer be resolved: their indices go back to the
    // key table for the next container that contributes from the same place.
    let contributions = state.withLock { $0.contributions }
    KeyTable.shared.recycleContributionIndices(contributions.values.flatMap { $0.map(\.index) })
  }

  /// Creates a container and lets each assembly register into it, in order.
  public convenience init(assemblies: [any Assembly]) {
    self.init()
    install(assemblies)
  }

  init(parent: Container) {
    self.parent = parent
    depth = parent.depth + 1
    self.overlay = nil
    overlayScope = nil
    isValidationCopy = false
    plans = PlanNode(state: state, slots: slots, upstreams: [parent.plans])
  }

  /// A private copy of `base` for an override scope or a validation run: registrations come
  /// from `overrides` first, then from `base`; instances are its own. `parent` is the copy of
  /// `base`'s parent, so the copies keep the hierarchy (and its sharing) of the originals.
  init(
    overlayOf base: Container, parent: Container?, overrides: [Container], scope: OverrideScope.Identity,
    enclosing: OverrideScope?, recorder: ValidationRecorder.Tap?
  ) {
    self.parent = parent
    depth = parent.map { $0.depth + 1 } ?? 0
    overlay = Overlay(base: base, overrides: overrides, scope: scope, enclosing: enclosing, recorder: recorder)
    overlayScope = ObjectIdentifier(scope)
    isValidationCopy = recorder != nil
    plans = PlanNode(
      state: state, slots: slots, upstreams: recorder != nil ? [] : [base.plans] + overrides.map(\.plans))
    if !isValidationCopy {
      base.addDependent(self)
      for container in overrides { container.addDependent(self) }
    }
  }

  /// Lets each assembly register into this container, in order.
  public func install(_ assemblies: [any Assembly]) {
    for assembly in assemblies { assembly.assemble(into: self) }
  }

  /// Makes a child container: a scope such as a user session.
  ///
  /// The child sees every registration of its parent; what you register in the child stays in
  /// the child and never leaks to the parent. Shared instances (singleton, cached, weak) of a
  /// parent registration live in the parent; unique and graph ones resolved through the child
  /// are made in the child, so they see the child's registrations. Dispose the child (or drop
  /// it) when the session ends; disposing the parent disposes its live children first.
  public func makeChild() -> Container {
    let child = Container(parent: self)
    state.withLock { $0.children.append(child) }
    plans.add(child.plans)
    return child
  }

  /// Clears every ``Scope/cached`` instance this container holds; the next resolution makes a
  /// new one. Singletons are not affected. A cached instance still being made when this is
  /// called goes to the resolution that asked for it and is not kept (it is disposed with the
  /// container). The dropped instances that the container disposes of (``Disposable`` ones, or
  /// those registered with `dispose:`) are disposed in the background, their errors ignored:
  /// the container no longer holds them (but for one that another key still hands out, such as
  /// a singleton whose factory returned it, which is disposed with the container). The
  /// background first waits for the shared instances this container was making at the reset,
  /// whose factories may return a dropped instance under a key of their own. ``dispose()``
  /// waits for those disposals, and makes those the background has not begun itself.
  ///
  /// Inside a ``withOverrides(_:isolation:operation:)`` scope (or a test's `.overrides` trait),
  /// where the scope's copy of this container serves the resolutions, it clears that copy's
  /// cached instances instead, and those of the copies of the scopes it is nested in, whose
  /// instances of their own overrides it uses (so a suite scope's cached fake is made again for
  /// the suite's other tests too). The container's own instances are left alone: they belong to
  /// the code outside any scope, such as tests running in parallel.
  public func resetCached() {
    guard var scope = OverrideScope.active else { return clearCached() }
    while true {
      // Only a copy the scope made has instances of its own: none is made just to be cleared.
      scope.existingOverlay(for: self)?.clearCached()
      guard let enclosing = scope.enclosing else { return }
      scope = enclosing
    }
  }

  /// Clears the cached instances of this container itself, and disposes of those it recorded
  /// for disposal (see ``resetCached()``).
  private func clearCached() {
    let reset: UInt64? = state.withLock { state in
      var cleared: Set<Int> = []
      var objects: Set<ObjectIdentifier> = []
      for binding in state.bindings.values where binding.scope == .cached {
        cleared.insert(binding.index)
        objects.formUnion(binding.resetCached())
      }
      guard !cleared.isEmpty, !state.created.isEmpty else { return nil }
      // A value that is not an object cannot be told apart: it was this key's cached instance,
      // which is dropped.
      // An object another key still hands out stays the container's (see `heldBeyondReset`).
      let isDropped = { (entry: Disposal) in
        entry.isShared && cleared.contains(entry.dependency)
          && objectIdentity(of: entry.instance).map { objects.contains($0) && !state.heldBeyondReset.contains($0) }
            ?? true
      }
      let dropped = state.created.filter(isDropped)
      guard !dropped.isEmpty else { return nil }
      state.created.removeAll(where: isDropped)
      for entry in dropped {
        if let object = objectIdentity(of: entry.instance) { state.createdObjects.remove(object) }
      }
      state.dropped += dropped.map { ($0, state.resets) }
      state.draining += 1
      state.resets += 1
      return state.resets - 1
    }
    guard let reset else { return }
    let state = self.state
    Task {
      // A creation that began before the reset may have been handed a dropped instance, to hand
      // out under its own key (a singleton whose factory returns the cached instance): it takes
      // it back when it records it (see `keepThroughReset`), so the disposal waits for it.
      while state.withLock({ $0.creating.keys.contains { $0 <= reset } }) {
        try? await Task.sleep(for: .milliseconds(1))
      }
      await Self.disposeDropped(state, through: reset)
      state.withLock { $0.draining -= 1 }
    }
  }

  /// Disposes of what resets dropped (``State/dropped``), those up to the reset counted `reset`,
  /// newest first, until none is left; their errors are ignored: nobody holds them any more.
  static func disposeDropped(_ state: Locked<State>, through reset: UInt64 = .max) async {
    while let entry = state.withLock({ state -> Disposal? in
      guard let last = state.dropped.lastIndex(where: { $0.reset <= reset }) else { return nil }
      return state.dropped.remove(at: last).disposal
    }) {
      try? await entry.disposeInstance()
    }
  }

  // MARK: Registration plumbing

  /// Stores the registration of `key`, replacing any earlier one here, in the key's declared
  /// scope when `scope` is nil: finds the key's index out of line, like ``add(type:_:_:_:_:_:_:_:)``.
  @usableFromInline
  func add<K, A, V>(
    key: KeyPath<Dependencies, DependencyKey<K, A, V>>, _ factory: consuming any RegistrationFactory, _ scope: Scope?,
    _ hasSideEffects: Bool, _ dispose: (@Sendable (any Sendable) async throws -> Void)?, _ fileID: StaticString,
    _ line: UInt
  ) {
    let index = KeyTable.index(of: key)
    add(index, factory, scope ?? defaultScope(of: index), hasSideEffects, dispose, fileID, line)
  }

  /// Stores the registration of `type` (and `name`), replacing any earlier one here: finds the
  /// type's index out of line, so that each `register(type:)` call site holds no copy of the
  /// look-up.
  @usableFromInline
  func add(
    type: Any.Type, _ name: String?, _ factory: consuming any RegistrationFactory, _ scope: Scope,
    _ hasSideEffects: Bool, _ dispose: (@Sendable (any Sendable) async throws -> Void)?, _ fileID: StaticString,
    _ line: UInt
  ) {
    add(KeyTable.index(of: type, name: name), factory, scope, hasSideEffects, dispose, fileID, line)
  }

  /// Stores the registration of `index`, replacing any earlier one here. The container keeps its
  /// fields and factory unboxed until something asks for its registration object (a plan of the
  /// key, `isRegistered`, a validation run or an error's report; see ``RegistrationMap``), so
  /// that registering allocates nothing of its own but for a `dispose:` closure or a location
  /// that is not a static string (and a chunk of records per 256 keys).
  func add(
    _ index: Int, _ factory: any RegistrationFactory, _ scope: Scope, _ hasSideEffects: Bool,
    _ dispose: (@Sendable (any Sendable) async throws -> Void)?, _ fileID: StaticString, _ line: UInt
  ) {
    let fields = RegistrationFields(
      scope: scope, kind: factory.kind, site: .source(fileID, line), isDefault: false, hasSideEffects: hasSideEffects,
      dispose: dispose)
    // The replaced registration is let go here, after the lock: see `RegistrationMap.Replaced`.
    let replaced = state.withLock { $0.registrations.store(factory, fields, at: index) }
    // The bindings of the replaced registration, here and in every container that bound it
    // through this one (a child, an override scope's copy), would keep it, its factory's captures
    // and its shared instances alive until the key is planned again: let them go now. One that
    // was never planned has no binding to let go.
    plans.invalidate(forgetting: replaced?.made)
  }

  func addContribution(_ registration: Registration, to index: Int) {
    state.withLock { $0.contributions[index, default: []].append(registration) }
    invalidatePlans()
  }

  func addDecoration(_ decoration: Decoration, to index: Int) {
    state.withLock { $0.decorators[index, default: []].append(decoration) }
    invalidatePlans()
  }

  /// Makes this container and every container that depends on it plan again.
  func invalidatePlans() { plans.invalidate() }

  /// Makes `dependent` plan again whenever this container changes.
  func addDependent(_ dependent: Container) { plans.add(dependent.plans) }

  func ownRegistration(_ index: Int) -> Registration? {
    state.withLock { $0.registrations.registration(at: index) }
  }

  /// Whether `index` is registered on this container itself, without making its registration
  /// object.
  func hasOwnRegistration(_ index: Int) -> Bool {
    state.withLock { $0.registrations.contains(index) }
  }

  /// The registration this container would use for `index`, and the container that owns it.
  ///
  /// This and the other walks up a hierarchy below are loops, not recursion: a hierarchy may be
  /// deeper than a thread's stack has room for calls.
  func effectiveRegistration(_ index: Int) -> (Registration, Container)? {
    var container = self
    while true {
      if let overlay = container.overlay {
        // Overrides apply to the whole hierarchy, so their shared instances live at its root.
        for overrides in overlay.overrides {
          if let registration = overrides.ownRegistration(index) { return (registration, container.root) }
        }
      }
      if let own = container.definedRegistration(index) { return (own, container) }
      guard let parent = container.parent else { return nil }
      container = parent
    }
  }

  /// The registration that serves `index` here: the one this container would use, else the
  /// key's default (registered, in effect, in the root); nil if neither exists.
  func servingRegistration(_ index: Int) -> Registration? {
    effectiveRegistration(index)?.0 ?? KeyTable.shared.descriptor(index).defaultRegistration
  }

  /// The registration made on this container itself (for a copy, on the container it copies).
  private func definedRegistration(_ index: Int) -> Registration? {
    if let overlay { return overlay.base.definedRegistration(index) }
    return ownRegistration(index)
  }

  /// Decorators that apply to `index` here: ancestors' (or the overlaid container's) first.
  func effectiveDecorators(_ index: Int) -> [Decoration] {
    inherited { container in container.state.withLock { $0.decorators[index] ?? [] } }
  }

  /// What `own` gives for this container and each one it inherits from, ancestors' first; for a
  /// copy, what the container it copies inherits, then each override container's, the outermost
  /// scope's first.
  func inherited<Element>(_ own: (Container) -> [Element]) -> [Element] {
    var lineage: [Container] = []
    var container = self
    while container.overlay == nil, let parent = container.parent {
      lineage.append(container)
      container = parent
    }
    var result: [Element]
    if let overlay = container.overlay {
      result = overlay.base.inherited(own)
      for overrides in overlay.overrides.reversed() { result += own(overrides) }
    } else {
      result = own(container)
    }
    for descendant in lineage.reversed() { result += own(descendant) }
    return result
  }

  var root: Container {
    var container = self
    while let parent = container.parent { container = parent }
    return container
  }

  /// Where this container's disposal state and observer come from when it has none of its own:
  /// for a copy, the container it copies; else its parent.
  private var inheritsFrom: Container? { overlay?.base ?? parent }

  /// Whether ``dispose()`` was called on this container or one it descends from: a disposed
  /// container stays disposed, and every resolution from it throws
  /// ``ResolutionError/Kind/containerDisposed``.
  public var isDisposed: Bool {
    var container = self
    while true {
      if container.state.withLock({ $0.disposed }) { return true }
      guard let next = container.inheritsFrom else { return false }
      container = next
    }
  }

  var effectiveObserver: (any ResolutionObserver)? { observerSource?.observer }

  /// This container's observer (its own, or the one it inherits) and the container it is set on.
  private var observerSource: (observer: any ResolutionObserver, container: Container)? {
    var container = self
    while true {
      if let recorder = container.overlay?.recorder { return (recorder, container) }
      if let own = container.state.withLock({ $0.observer }) { return (own, container) }
      guard let next = container.inheritsFrom else { return nil }
      container = next
    }
  }

  /// For a dependency this container's plan hands to `delegate` (an ancestor, or an enclosing
  /// scope's copy, that keeps its shared instance): the step `delegate` will run, when this
  /// container's observer does not see what `delegate` resolves (it was set on this container,
  /// or on one between them), so that the resolution is observed here. Nil otherwise, or if
  /// `delegate` has nothing to run.
  func delegatedStep(_ index: Int, to delegate: Container) -> (container: Container, binding: Binding)? {
    guard !isValidationCopy, let mine = observerSource else { return nil }
    if let theirs = delegate.observerSource {
      // The same observer (installed on both, say an app-wide tracer) sees the step there.
      // (Observers that are values cannot be told apart, and count as two.)
      if theirs.container === mine.container { return nil }
      if let object = objectIdentity(of: mine.observer), object == objectIdentity(of: theirs.observer) { return nil }
    }
    return delegate.servingStep(index)
  }

  /// The container that makes `index` for this one, following the plans' delegates (ancestors,
  /// enclosing scopes' copies), and the binding it makes it with; nil if none has one.
  func servingStep(_ index: Int) -> (container: Container, binding: Binding)? {
    var container = self
    while true {
      let slot = container.slot(index)
      if let binding = slot.binding { return (container, binding) }
      guard let next = slot.delegate else { return nil }
      container = next
    }
  }

  /// Plans how to resolve `index` here, caches the plan, and returns it.
  @usableFromInline
  func plan(_ index: Int) -> Slot {
    plans.willPlan()
    while true {
      let generation = plans.generation.load(ordering: .acquiring)
      // Nil when the registrations changed while planning: plan again with what is current.
      guard let slot = computeSlot(index, generation: generation) else { continue }
      if !isValidationCopy {
        slots.store(slot, at: index)
        // A registration changed meanwhile: do not leave the stale plan (and what it holds) behind.
        if plans.generation.load(ordering: .acquiring) != generation { slots.remove(at: index) }
      }
      return slot
    }
  }

  private func computeSlot(_ index: Int, generation: UInt64) -> Slot? {
    let observer = effectiveObserver
    if isDisposed { return Slot(generation: generation, failure: .containerDisposed, observer: observer) }
    let descriptor = KeyTable.shared.descriptor(index)
    let missing: ResolutionError.Kind = descriptor.kind == .type ? .notRegistered : .requiredKeyNotProvided

    let registration: Registration
    let owner: Container
    if let (registered, registeredIn) = effectiveRegistration(index) {
      registration = registered
      owner = registration.scope.isContainerOwned ? instanceOwner(of: index, registeredIn: registeredIn) : self
      if registration.scope.isContainerOwned, let keeper = owner.enclosingScopeCopy(keeping: index) {
        return Slot(generation: generation, delegate: keeper.copy, delegateScope: keeper.scope, observer: observer)
      }
    } else if let fallback = descriptor.defaultRegistration {
      // A key's default is registered, in effect, in the root.
      registration = fallback
      owner = registration.scope.isContainerOwned ? instanceOwner(of: index, registeredIn: root) : self
    } else {
      return Slot(generation: generation, failure: missing, observer: observer)
    }
    if overlay != nil, state.withLock({ $0.disposedWithScope[index] === registration }) {
      return Slot(generation: generation, failure: .containerDisposed, observer: observer)
    }
    if owner !== self { return Slot(generation: generation, delegate: owner, observer: observer) }
    guard let binding = binding(for: registration, generation: generation) else { return nil }
    return Slot(generation: generation, binding: binding, observer: observer)
  }

  /// The container that keeps the shared instance of `index` (singleton, cached or weak) for
  /// this one, when `registeredIn` (this one or an ancestor) registered it: `registeredIn`,
  /// unless this container or one between them decorates `index`. Then the nearest that does
  /// keeps an instance of its own, so that its decorators apply to what it resolves: they
  /// cannot wrap the ancestor's instance, which the ancestor and its other children use as is.
  private func instanceOwner(of index: Int, registeredIn: Container) -> Container {
    var container = self
    while container !== registeredIn {
      if container.decoratesItself(index) { return container }
      guard let parent = container.parent else { break }
      container = parent
    }
    return registeredIn
  }

  /// For the copy of a nested override scope, the copy in the enclosing scope that keeps the
  /// shared instance of `index`, when an enclosing scope's overrides register it: the instance
  /// belongs to the scope that registered it, and scopes nested in it share it, unless their own
  /// overrides register or decorate `index` again. Nil otherwise.
  func enclosingScopeCopy(keeping index: Int) -> (copy: Container, scope: OverrideScope)? {
    guard let overlay, let enclosing = overlay.enclosing, overlay.base.overlay == nil else { return nil }
    let own = overlay.overrides.prefix(overlay.overrides.count - enclosing.overrides.count)
    if own.contains(where: { $0.hasOwnRegistration(index) || $0.decoratesItself(index) }) { return nil }
    guard enclosing.overrides.contains(where: { $0.hasOwnRegistration(index) }) else { return nil }
    return (enclosing.overlay(for: overlay.base).takeUnretainedValue(), enclosing)
  }

  /// Whether a decorator of `index` was registered on this container itself (for a copy, on the
  /// container it copies).
  private func decoratesItself(_ index: Int) -> Bool {
    if let overlay { return overlay.base.decoratesItself(index) }
    return state.withLock { $0.decorators[index]?.isEmpty == false }
  }

  /// This container's binding of `registration`, reused while the registration and its
  /// decorators are unchanged, so shared instances survive re-planning.
  ///
  /// Nil if the plans' generation is no longer `generation`: a registration changed since the
  /// planner read `registration`, which may be the replaced one. Storing its binding then could
  /// displace the binding of the newer registration, and with it the singleton that binding
  /// made, so the planner starts again instead.
  private func binding(for registration: Registration, generation: UInt64) -> Binding? {
    let decorators = effectiveDecorators(registration.index)
    return state.withLock { state in
      guard plans.generation.load(ordering: .acquiring) == generation else { return nil }
      if let existing = state.bindings[registration.index], existing.registration === registration,
        existing.decorators.map(ObjectIdentifier.init) == decorators.map(ObjectIdentifier.init)
      {
        return existing
      }
      let binding = Binding(registration: registration, decorators: decorators)
      state.bindings[registration.index] = binding
      return binding
    }
  }

  /// Counts a shared instance about to be made, for disposal to wait for, and returns the count
  /// of cache resets it began after (see ``State/creating``), for ``endCreating(_:)``; nil once
  /// the container is disposed (in the same lock as `dispose()` marks it, so a creation is
  /// either counted, and its instance disposed, or refused).
  func beginCreating() -> UInt64? {
    state.withLock { state in
      guard !state.disposed else { return nil }
      state.creating[state.resets, default: 0] += 1
      return state.resets
    }
  }

  /// Ends a creation counted by ``beginCreating()``, which returned `began`.
  func endCreating(_ began: UInt64) {
    state.withLock { state in
      let remaining = (state.creating[began] ?? 1) - 1
      state.creating[began] = remaining > 0 ? remaining : nil
    }
  }

  /// Records a shared instance just made, to dispose of with this container. An object that
  /// this container, or one above it, recorded already (a key whose factory returned another
  /// key's instance, here, in a parent, or in an enclosing override scope's copy) is not
  /// recorded again: it is disposed once, by the container that made it first, in its place (a
  /// child never closes its parent's, nor a nested scope its enclosing scope's). That container
  /// then keeps it through a reset of its cache, if the key handing it out here is not cleared
  /// by that reset: the key still hands it out. An object that a container below this one (a
  /// child, an override scope's copy) recorded first is taken over from it, with its
  /// registration's way of disposing of it: it is disposed with this container, which hands it
  /// out too, not with that one.
  /// `argument` is what an argument key's instance was made for; `isShared` is false for an
  /// instance kept only to be disposed of (see ``Disposal/isShared``).
  func recordCreated<Argument: Sendable>(
    _ value: some Sendable, by binding: Binding, for argument: Argument, isShared: Bool
  ) {
    let dispose = binding.registration.dispose
    let object = objectIdentity(of: value)
    // Looked up even for a value this key would not dispose of: another key may dispose of it.
    if let object, isShared {
      if keepThroughReset(object, handedOutBy: binding) { return }
      // Made first below this container, which hands it out too: it is this container's now,
      // and kept through its resets, since the key below still hands it out.
      if let taken = plans.takeRecorded(object) {
        state.withLock { state in
          if state.createdObjects.insert(object).inserted { state.created.append(taken) }
          state.heldBeyondReset.insert(object)
        }
        return
      }
    }
    guard dispose != nil || value is any Disposable else { return }
    if let object, !isShared, recordedAbove(object) { return }
    let disposal = Disposal(
      dependency: binding.index, instance: value, dispose: dispose,
      argument: Argument.self == Void.self ? nil : argument,
      isShared: isShared)
    state.withLock { state in
      if let object, !state.createdObjects.insert(object).inserted { return }
      state.created.append(disposal)
    }
  }

  /// When this container or one above it recorded `object` for disposal already: marks it to be
  /// kept through that container's cache resets if `binding`, here, is not cleared with them
  /// (see ``State/heldBeyondReset``), and returns true.
  private func keepThroughReset(_ object: ObjectIdentifier, handedOutBy binding: Binding) -> Bool {
    var pending = [self]
    var seen: Set<ObjectIdentifier> = []
    while let container = pending.popLast() {
      guard seen.insert(ObjectIdentifier(container)).inserted else { continue }
      let recorded = container.state.withLock { state in
        if !state.createdObjects.contains(object) {
          // Dropped by a reset while this key's factory, which began before it, was being handed
          // it (see `clearCached`): the key hands it out now, so the container keeps it again.
          guard let index = state.dropped.firstIndex(where: { objectIdentity(of: $0.disposal.instance) == object })
          else { return false }
          state.created.append(state.dropped.remove(at: index).disposal)
          state.createdObjects.insert(object)
        }
        // (A validation run's copy is thrown away: nothing to keep for it.)
        if !isValidationCopy, container !== self || binding.scope != .cached { state.heldBeyondReset.insert(object) }
        return true
      }
      if recorded { return true }
      pending += container.instanceSources
    }
    return false
  }

  /// Whether a container whose instances this one's factories can return is to dispose of
  /// `object`: its parent and theirs, and for an override scope's copy, also the container it
  /// copies and the enclosing scope's copy of that container (and theirs).
  private func recordedAbove(_ object: ObjectIdentifier) -> Bool {
    var pending = instanceSources
    var seen: Set<ObjectIdentifier> = []
    while let container = pending.popLast() {
      guard seen.insert(ObjectIdentifier(container)).inserted else { continue }
      if container.state.withLock({ $0.createdObjects.contains(object) }) { return true }
      pending += container.instanceSources
    }
    return false
  }

  /// The containers next above this one whose shared instances its resolutions can be handed
  /// (see ``recordedAbove(_:)``). For a copy, `parent` is the copy of its base's parent.
  private var instanceSources: [Container] {
    var sources = parent.map { [$0] } ?? []
    if let overlay {
      sources.append(overlay.base)
      if let enclosingCopy = overlay.enclosing?.existingOverlay(for: overlay.base) { sources.append(enclosingCopy) }
    }
    return sources
  }
}

/// The generation of one container's plans, and the nodes of the containers whose plans depend
/// on it (its children, and the copies override scopes and validation make).
///
/// It is an object of its own so that the dependents' weak references point at it, not at a
/// container: the retains of a weakly referenced object take the runtime's slow path, and an
/// override scope's copy is retained on every resolution it serves.
@usableFromInline
final class PlanNode: Sendable {
  /// Bumped when the container's registrations, decorators, observer or disposal state change,
  /// or those of a container it depends on; a cached plan of another generation is planned again.
  @usableFromInline let generation = Atomic<UInt64>(1)
  let dependents = Locked(WeakList<PlanNode>())
  /// Whether a dependent was ever added: most containers have none, and registering into them
  /// then takes no lock here. A dependent is added before it plans anything, so an
  /// invalidation that does not see it yet has nothing to invalidate in it.
  private let hasDependents = Atomic<Bool>(false)
  /// The container's bindings and cached plans (not the container itself, which the node must
  /// not keep alive): what ``invalidate(forgetting:)`` frees.
  private let state: Locked<Container.State>
  private let slots: SlotTable<Slot>
  /// The nodes this one is a dependent of (see ``add(_:)``): a child's parent; the container an
  /// override scope's copy copies, and the scope's override containers.
  private let upstreams: [PlanNode]

  init(state: Locked<Container.State>, slots: SlotTable<Slot>, upstreams: [PlanNode] = []) {
    self.state = state
    self.slots = slots
    self.upstreams = upstreams
  }

  /// Bumps this generation and every dependent's, and lets each of these containers go of its
  /// binding (and cached plan) of `replaced`, a registration that is no longer used.
  ///
  /// The generation moves first, so a planner that read `replaced` either stored its binding
  /// before the binding is dropped here, or finds the generation changed and stores nothing.
  func invalidate(forgetting replaced: Registration? = nil) {
    retire(forgetting: replaced)
    guard hasDependents.load(ordering: .acquiring) else { return }
    // The dependents, theirs, and so on: a work list, not recursion, as a chain of child
    // containers may be deeper than the stack.
    var pending = liveDependents
    while let node = pending.popLast() {
      // A dependent that never began to plan, nor did any below it, has no plan to retire and no
      // binding to forget: registering into the first of a long line of children that resolved
      // nothing yet visits none of them (it visited every one, quadratic time for the line).
      guard node.lineHasPlanned.load(ordering: .acquiring) else { continue }
      node.retire(forgetting: replaced)
      if node.hasDependents.load(ordering: .acquiring) { pending += node.liveDependents }
    }
  }

  /// Retires this node's plans, and its binding of `replaced`.
  private func retire(forgetting replaced: Registration?) {
    if hasPlanned.load(ordering: .relaxed) { generation.add(1, ordering: .releasing) }
    if let replaced { forget(replaced) }
  }

  /// Whether the container ever began to plan: until then it has no plan to retire, and a change
  /// leaves ``generation`` alone (a start-up's registrations, made before anything resolves,
  /// then pay no atomic read-modify-write each).
  ///
  /// A planner sets it before it reads the generation, then reads what it plans from under the
  /// locks that changes are made under. A change that found it unset was made in a critical
  /// section that came before the planner's (had the planner's come first, its setting would
  /// happen before the change's check), so the planner sees the change.
  private let hasPlanned = Atomic<Bool>(false)

  /// Whether this node or one of its dependents, directly or not, ever began to plan: an
  /// invalidation skips a dependent where it is unset, with the dependents below it (see
  /// ``invalidate(forgetting:)``). Set on the nodes above first, so a node where it is set has it
  /// set on every node above. A planner sets it before it reads what it plans, under the locks
  /// changes are made under; a change that then found it unset was made in a critical section
  /// before the planner's (the argument of ``hasPlanned``), so the planner sees the change.
  private let lineHasPlanned = Atomic<Bool>(false)

  /// Notes that the container is about to plan (see ``hasPlanned`` and ``lineHasPlanned``).
  func willPlan() {
    if !hasPlanned.load(ordering: .relaxed) {
      markLineHasPlanned()
      hasPlanned.store(true, ordering: .relaxed)
    }
  }

  /// Sets ``lineHasPlanned`` on the nodes above this one that lack it, then on this one.
  private func markLineHasPlanned() {
    guard !lineHasPlanned.load(ordering: .acquiring) else { return }
    if upstreams.allSatisfy({ $0.lineHasPlanned.load(ordering: .acquiring) }) {
      lineHasPlanned.store(true, ordering: .releasing)
      return
    }
    // A work list, not recursion, as a line of children may be deeper than the stack: a node is
    // set once the nodes above it are.
    var pending: [(node: PlanNode, aboveAreSet: Bool)] = [(self, false)]
    while let (node, aboveAreSet) = pending.popLast() {
      if node.lineHasPlanned.load(ordering: .acquiring) { continue }
      if aboveAreSet {
        node.lineHasPlanned.store(true, ordering: .releasing)
        continue
      }
      pending.append((node, true))
      for upstream in node.upstreams where !upstream.lineHasPlanned.load(ordering: .acquiring) {
        pending.append((upstream, false))
      }
    }
  }

  private var liveDependents: [PlanNode] {
    dependents.withLock { dependents in
      dependents.removeGone()
      return dependents.objects
    }
  }

  private func forget(_ replaced: Registration) {
    let index = replaced.index
    let dropped = state.withLock { state in
      guard let binding = state.bindings[index], binding.registration === replaced else { return false }
      state.bindings[index] = nil
      return true
    }
    if dropped { slots.remove(at: index) }
  }

  /// Takes the record of `object`, to dispose of, from the dependents (children, override scopes'
  /// copies, and theirs) that have one, if any: the container of this node hands it out too, and
  /// outlives them. Nil if none has.
  func takeRecorded(_ object: ObjectIdentifier) -> Container.Disposal? {
    guard hasDependents.load(ordering: .acquiring) else { return nil }
    // A work list, not recursion: a chain of child containers may be deeper than the stack.
    var pending = liveDependents
    var taken: Container.Disposal?
    while let node = pending.popLast() {
      let entry = node.state.withLock { state -> Container.Disposal? in
        guard state.createdObjects.remove(object) != nil else { return nil }
        state.heldBeyondReset.remove(object)
        guard let index = state.created.firstIndex(where: { objectIdentity(of: $0.instance) == object }) else {
          return nil
        }
        return state.created.remove(at: index)
      }
      // The first one found is disposed of; the others (a record made below it, in a race) are
      // dropped with it.
      if taken == nil { taken = entry }
      if node.hasDependents.load(ordering: .acquiring) { pending += node.liveDependents }
    }
    return taken
  }

  func add(_ dependent: PlanNode) {
    dependents.withLock { $0.append(dependent) }
    hasDependents.store(true, ordering: .releasing)
  }
}

/// A group of registrations, usually one per module.
///
/// ```swift
/// struct StorageAssembly: Assembly {
///   func assemble(into container: Container) {
///     container.register(\.storage, scope: .singleton) { r in try SQLiteStorage(path: r[\.dataPath]) }
///   }
/// }
/// let container = Container(assemblies: [StorageAssembly(), TodoAssembly()])
/// ```
public protocol Assembly {
  /// Registers this module's dependencies into `container`.
  func assemble(into container: Container)
}
