public import CKnapsack
public import Synchronization

/// Runs `operation` with overridden dependencies, visible only to this task and its child tasks.
///
/// `configure` registers the overrides into a container of its own. While `operation` runs,
/// every resolution in this task, from any container, sees them; resolutions in other tasks
/// (such as tests running in parallel) do not. Within the scope each container is served by a
/// private copy, so singletons made inside the scope stay inside it, and nothing persists after.
///
/// ```swift
/// try await withOverrides {
///   $0.register(\.storage) { FakeStorage() }
/// } operation: {
///   let model = try container.resolve(\.todoList)   // uses FakeStorage
/// }
/// ```
///
/// Scopes nest: an inner scope sees the outer scope's overrides and may override them again.
/// A shared instance of an outer scope's override is the outer scope's, and an inner scope uses
/// it, unless the inner scope registers or decorates that key again.
/// When `operation` returns, the shared instances made inside the scope that are ``Disposable``
/// (or were registered with a `dispose:` closure) are disposed; errors from that are ignored,
/// because the scope's result is what the caller asked for.
public func withOverrides<R>(
  _ configure: (Container) throws -> Void,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws -> R
) async rethrows -> R {
  let scope = try OverrideScope(configure)
  // Nothing made inside the scope outlives it: close what its copies created, even on failure.
  do {
    let result = try await OverrideScope.$current.withValue(scope, operation: operation)
    await scope.disposeOverlays()
    return result
  } catch {
    await scope.disposeOverlays()
    throw error
  }
}

/// Runs a synchronous `operation` with overridden dependencies; see
/// ``withOverrides(_:isolation:operation:)``.
///
/// Use it where you cannot `await`. In asynchronous code the asynchronous form is chosen, even
/// for an operation that does not suspend: only it can dispose the scope's ``Disposable``
/// instances when the scope ends (this form just releases them). Where Swift would still pick
/// this form in asynchronous code (top-level code in `main.swift`, for an operation with no
/// `await`), it is a compile error that says to write the operation as `{ () async throws in ... }`.
@_disfavoredOverload
@available(
  *, noasync,
  message:
    "in asynchronous code, use the asynchronous withOverrides, which disposes what the scope made: write the operation as { () async throws in ... }"
)
public func withOverrides<R>(
  _ configure: (Container) throws -> Void,
  operation: () throws -> R
) rethrows -> R {
  let scope = try OverrideScope(configure)
  return try OverrideScope.bind(scope, operation: operation)
}

/// Not available: overrides apply only while an operation runs, so the operation must be
/// passed. (Without it, the compiler fails to produce a diagnostic for the call.)
@available(
  *, unavailable,
  message:
    "overrides apply only to the operation that runs with them: pass it, `withOverrides { $0.register(\\.key) { ... } } operation: { ... }`"
)
public func withOverrides(_ configure: (Container) throws -> Void) {}

/// An open override scope: its override registrations and the overlay it made of each
/// container resolved from within it.
@usableFromInline
final class OverrideScope: Sendable {
  /// The scope open in this task. Read it through ``active``.
  @TaskLocal static var current: OverrideScope?

  /// The scope open in this task, if any: ``current``, read straight from the task's storage.
  ///
  /// `TaskLocal.get()` copies the value through its generic witnesses, which costs a resolution
  /// more than the rest of a singleton read. This reads the one word with the runtime's own
  /// look-up, or outside any task the thread's word (see ``bind(_:operation:)``), and nothing at
  /// all while no scope is alive in the process.
  @inlinable static var active: OverrideScope? {
    activeAddress.map { Unmanaged<OverrideScope>.fromOpaque($0).takeUnretainedValue() }
  }

  /// The address of the scope open in this task, unretained: what ``active`` and
  /// ``activeOverlay(of:)`` read.
  @inlinable static var activeAddress: UnsafeRawPointer? {
    guard let key = UnsafeRawPointer(bitPattern: knapsack_override_key_load()) else { return nil }
    // Outside any task, the thread's word is the scope, or its absence (see `bind`): no
    // look-up, so code outside tasks pays nothing for a scope another task holds open but the
    // check for a current task, a third of the task-local look-up.
    guard currentTaskAddress != 0 else {
      return UnsafeRawPointer(bitPattern: knapsack_thread_override_scope_load())
    }
    guard let value = taskLocalValueAddress(key) else { return nil }
    return value.load(as: UnsafeRawPointer?.self)
  }

  /// Binds `scope` (nil for none) as the scope of this task, or of this thread outside a task, for
  /// the synchronous `operation`. Every synchronous binding of ``current`` goes through this.
  ///
  /// Outside a task, the task local lives in the thread's storage, and only these synchronous
  /// bindings change it there (an asynchronous one always runs in a task). So this also keeps the
  /// thread's word (`knapsack_thread_override_scope`) equal to that storage's value while no task
  /// is current, and ``activeAddress`` reads the word instead. Code of a task that runs on this
  /// thread meanwhile (a nested run loop) has a current task, and looks the task local up.
  static func bind<R>(_ scope: OverrideScope?, operation: () throws -> R) rethrows -> R {
    try $current.withValue(scope) {
      guard currentTaskAddress == 0 else { return try operation() }
      let outer = knapsack_thread_override_scope_load()
      knapsack_thread_override_scope_store(UInt(bitPattern: scope.map { Unmanaged.passUnretained($0).toOpaque() }))
      defer { knapsack_thread_override_scope_store(outer) }
      return try operation()
    }
  }

  /// The copy of `base` that serves resolutions in the scope open in this task, unretained; nil
  /// if no scope is open or `base` serves it itself. Unretained is safe for as long as the
  /// caller runs in this task: the task keeps the scope bound until the code that opened it
  /// returns, and the scope keeps its overlays.
  @inlinable static func activeOverlay(of base: Container) -> Unmanaged<Container>? {
    guard let scope = activeAddress else { return nil }
    return Unmanaged<OverrideScope>.fromOpaque(scope)._withUnsafeGuaranteedRef { base.overlay(in: $0) }
  }

  /// What tells this scope's copies apart (``Container/overlayScope``): an object of its own, not
  /// the scope's address, because a copy can outlive its scope (in a resolver kept by an instance
  /// it made) and keeps this alive, so that no later scope, made at the freed scope's address,
  /// takes the copy for its own and resolves with the ended scope's overrides.
  @usableFromInline let identity = Identity()

  /// See ``identity``.
  @usableFromInline
  final class Identity: Sendable {}

  /// Override containers, innermost first.
  let overrides: [Container]
  /// The scope open where this one was opened, if any (for a validation run's, its mirror, see
  /// ``init(validatingWith:)``): its copies keep the shared instances of what its own
  /// overrides register, and this scope's copies use them. Held for as long as this scope
  /// lives, which may be past the enclosing scope's end (a `Lazy` made inside).
  let enclosing: OverrideScope?
  /// For a validation run's scope, what its copies report to: each container resolved in it,
  /// the validated one or one a factory captured, is served by a throw-away validation copy.
  let recorder: ValidationRecorder?
  /// In a validation run's scope, the dependencies that factories made a `Lazy` or `Provider`
  /// of: the container the handle resolves from, and the step that made it (its dependency's
  /// index, if known). The run checks them too, since nothing resolves them during it.
  private let deferred = Locked<[Handle]>([])

  /// A `Lazy` or `Provider` made during a validation run (see ``deferred``).
  struct Handle {
    let from: Int?
    let to: Int
    let container: Container
    /// The argument a `Lazy` of a key that takes one resolves it for: the run's sample for the
    /// key, unless the caller gave one.
    let argument: (any Sendable)?
    /// The line that made the handle, if known.
    let site: CodeLocation?
  }
  /// Each container resolved from in this scope, with its overlay. Entries live as long as the
  /// scope.
  private let overlays = Locked<[ObjectIdentifier: Entry]>([:])
  /// The entry used last, unretained (``overlays`` keeps it alive): most scopes resolve from one
  /// container, and this spares them the lock.
  @usableFromInline let last = Atomic<UInt>(0)

  /// One container and its overlay.
  @usableFromInline
  final class Entry: Sendable {
    @usableFromInline let base: ObjectIdentifier
    @usableFromInline let overlay: Container
    init(base: ObjectIdentifier, overlay: Container) {
      self.base = base
      self.overlay = overlay
    }
  }

  /// A scope whose overrides are what `configure` registers, on top of those of the scope open
  /// here.
  convenience init(_ configure: (Container) throws -> Void) rethrows {
    let own = Container()
    try configure(own)
    let current = Self.current
    // A validation run's scope encloses nothing real: its copies make nothing that lasts.
    let enclosing = current?.recorder == nil ? current : nil
    self.init(overrides: [own] + (current?.overrides ?? []), enclosing: enclosing, recorder: nil)
  }

  /// The scope of a validation run: no overrides of its own (those of the scope open here still
  /// apply), and copies that record to `recorder`, keep no instance and call no factory
  /// registered with side effects.
  ///
  /// Its enclosing scopes mirror those of the scope open here, each a validation scope with the
  /// same overrides: a shared instance of an enclosing scope's override is made in that scope's
  /// copy, from its registrations only, and the run must do the same to find what that misses (a
  /// key only an inner scope registers).
  convenience init(validatingWith recorder: ValidationRecorder) {
    var open: [OverrideScope] = []
    var scope = Self.current
    while let current = scope {
      open.append(current)
      scope = current.enclosing
    }
    var enclosing: OverrideScope?
    for mirrored in open.dropFirst().reversed() {
      enclosing = OverrideScope(overrides: mirrored.overrides, enclosing: enclosing, recorder: recorder)
    }
    self.init(overrides: open.first?.overrides ?? [], enclosing: enclosing, recorder: recorder)
  }

  private init(overrides: [Container], enclosing: OverrideScope?, recorder: ValidationRecorder?) {
    self.overrides = overrides
    self.enclosing = enclosing
    self.recorder = recorder
    // Last, once the scope is made (deinit, which uncounts it, runs only for a made scope), and
    // before it can be bound: `active` looks only while a scope is alive.
    knapsack_override_scope_made(UInt(bitPattern: Unmanaged.passUnretained(Self.$current).toOpaque()))
  }

  deinit {
    knapsack_override_scope_freed()
    // A scope that ended by disposing what it made can still make instances afterwards, through a
    // `Lazy`, `Provider` or task made inside it. Those are disposed now that nothing can reach
    // them any more (their failures have no one left to report to).
    guard hasEnded.load(ordering: .acquiring) else { return }
    let leftovers = overlays.withLock { $0.values.map(\.overlay) }.filter(\.hasUndisposedInstances)
      .sorted { $0.depth > $1.depth }
    guard !leftovers.isEmpty else { return }
    Task { _ = await Container.disposeCreatedInstances(of: leftovers) }
  }

  /// Whether ``disposeOverlays()`` ran: the scope's code returned and what it made was disposed.
  private let hasEnded = Atomic<Bool>(false)

  /// Notes, in a validation run's scope, that the step running here made a handle to `index`
  /// that resolves from `container`; for a `Lazy`, `lazyStorage` is its storage, which keeps the
  /// first value it reads (see ``ValidationRecorder/noteLazy(from:to:scope:storage:site:)``), and
  /// `site` the line that made the handle.
  func noteDeferred(
    _ index: Int, in container: Container, argument: (any Sendable)? = nil, lazyStorage: AnyObject? = nil,
    site: CallSite? = nil
  ) {
    guard let recorder else { return }
    let from = ThreadFrame.current?.pointee.index ?? FactoryCall.currentIndex
    let handle = Handle(from: from, to: index, container: container, argument: argument, site: site?.location)
    deferred.withLock { $0.append(handle) }
    if let from, let lazyStorage {
      if let scope = container.servingRegistration(index)?.scope {
        recorder.noteLazy(from: from, to: index, scope: scope, storage: lazyStorage, site: site?.location)
      }
    }
  }

  /// The handles noted so far (see ``noteDeferred(_:in:)``), which it forgets.
  func takeDeferred() -> [Handle] {
    deferred.withLock { noted in
      defer { noted = [] }
      return noted
    }
  }

  /// For a validation run's scope, the handles noted so far in it and in the scopes it mirrors
  /// (see ``init(validatingWith:)``), which they forget.
  func takeDeferredOfRun() -> [Handle] {
    var noted: [Handle] = []
    var scope: OverrideScope? = self
    while let current = scope, current.recorder != nil {
      noted += current.takeDeferred()
      scope = current.enclosing
    }
    return noted
  }

  func disposeOverlays() async {
    hasEnded.store(true, ordering: .releasing)
    // Children first: deeper copies before their parents.
    let byDepth = overlays.withLock { $0.values.map(\.overlay) }.sorted { $0.depth > $1.depth }
    _ = await Container.disposeCreatedInstances(of: byDepth)
  }

  /// The overlay of `base` in this scope, made on first use; unretained, because the scope keeps
  /// it for as long as the scope lives.
  @inlinable @inline(__always)
  func overlay(for base: Container) -> Unmanaged<Container> {
    let id = ObjectIdentifier(base)
    if let pointer = UnsafeRawPointer(bitPattern: last.load(ordering: .acquiring)) {
      let hit = Unmanaged<Entry>.fromOpaque(pointer)._withUnsafeGuaranteedRef {
        $0.base == id ? Unmanaged.passUnretained($0.overlay) : nil
      }
      if let hit { return hit }
    }
    return overlayMissingLast(for: base)
  }

  /// ``overlay(for:)`` when the entry used last is another container's: out of line.
  @usableFromInline @inline(never)
  func overlayMissingLast(for base: Container) -> Unmanaged<Container> {
    let entry = self.entry(for: base)
    last.store(UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque()), ordering: .releasing)
    return Unmanaged.passUnretained(entry.overlay)
  }

  /// The copies this scope made of `base` and of the containers below it, deeper ones first;
  /// makes none.
  func existingOverlays(from base: Container) -> [Container] {
    guard let top = existingOverlay(for: base) else { return [] }
    // Whether a container is `top` or below it, found once for each: walking up to the top from
    // every copy took the square of a long line's length.
    var isBelowTop: [ObjectIdentifier: Bool] = [ObjectIdentifier(top): true]
    var found: [Container] = []
    for copy in overlays.withLock({ $0.values.map(\.overlay) }) {
      var walked: [ObjectIdentifier] = []
      var container: Container? = copy
      var isBelow = false
      while let current = container {
        if let known = isBelowTop[ObjectIdentifier(current)] {
          isBelow = known
          break
        }
        walked.append(ObjectIdentifier(current))
        container = current.parent
      }
      for id in walked { isBelowTop[id] = isBelow }
      if isBelow { found.append(copy) }
    }
    return found.sorted { $0.depth > $1.depth }
  }

  /// The copy of `base` this scope made, if it made one; never makes it.
  func existingOverlay(for base: Container) -> Container? {
    overlays.withLock { $0[ObjectIdentifier(base)]?.overlay }
  }

  private func entry(for base: Container) -> Entry {
    // Another scope's copy (a resolver kept by an instance made there, used in this scope) stands
    // for the container it copies: this scope serves that container with its own copy, whose
    // shared instances (and those it leaves to the enclosing scopes) are the scope's. A copy of
    // the copy would make them again.
    if let copied = base.overlay?.base, !base.isValidationCopy { return entry(for: copied) }
    if let existing = overlays.withLock({ $0[ObjectIdentifier(base)] }) { return existing }
    // A copy's parent is the copy of its base's parent: make the missing copies of the ancestors
    // first, from the top down, in a loop (a hierarchy may be deeper than the stack).
    var missingAncestors: [Container] = []
    var container = base
    while let parent = container.parent, overlays.withLock({ $0[ObjectIdentifier(parent)] }) == nil {
      missingAncestors.append(parent)
      container = parent
    }
    var parentCopy = container.parent.flatMap { parent in overlays.withLock { $0[ObjectIdentifier(parent)] }?.overlay }
    for ancestor in missingAncestors.reversed() {
      parentCopy = insertEntry(for: ancestor, parent: parentCopy).overlay
    }
    return insertEntry(for: base, parent: parentCopy)
  }

  /// The entry of `base`, whose parent's copy is `parent`: made now, unless another thread made
  /// it meanwhile.
  private func insertEntry(for base: Container, parent: Container?) -> Entry {
    let id = ObjectIdentifier(base)
    return overlays.withLock { overlays in
      if let raced = overlays[id] { return raced }
      // A validation run's recorder learns which copy each step ran in.
      let overlay = Container(
        overlayOf: base, parent: parent, overrides: overrides, scope: identity, enclosing: enclosing,
        recorder: recorder?.tap(anchoredTo: Identity()))
      let entry = Entry(base: id, overlay: overlay)
      overlays[id] = entry
      return entry
    }
  }
}

/// An object as a `Lazy` or `Provider` holds it: strongly, except what belongs to a validation
/// run (its scope, and its copies of containers), which a handle must not keep alive: the run's
/// copies keep the instances it made, and an instance may keep a handle.
enum Held<Object: AnyObject & Sendable>: Sendable {
  case strong(Object?)
  case weak(WeakBox)

  init(_ object: Object?, weakly: Bool) {
    if let object, weakly { self = .weak(WeakBox(object)) } else { self = .strong(object) }
  }

  /// The object; nil for none, or for a validation run's that is gone.
  var object: Object? {
    switch self {
    case .strong(let object): object
    case .weak(let box): box.object
    }
  }

  final class WeakBox: Sendable {
    weak let object: Object?
    init(_ object: Object) { self.object = object }
  }
}

/// The Concurrency runtime's task-local look-up, the exported and ABI-stable entry point that
/// `TaskLocal.get()` calls: the address of the value bound to `key` (a `TaskLocal` object's
/// address) in the current task, or on this thread outside a task; nil if none is bound.
@usableFromInline
@_silgen_name("swift_task_localValueGet")
func taskLocalValueAddress(_ key: UnsafeRawPointer) -> UnsafeMutableRawPointer?
