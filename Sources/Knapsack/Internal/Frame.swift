// Public so that the inlinable engine reads the thread's words with the C inline functions.
public import CKnapsack
import Dispatch
import Synchronization

/// One step of a resolution in progress: the dependency being made, the container making it and
/// the step that asked for it. Frames form the resolution path used for cycle detection, error
/// messages, graph-scoped instances and the stack-depth check.
///
/// A synchronous step keeps its frame on the resolving thread's stack, so resolving allocates
/// nothing; an asynchronous factory's frame lives in an ``AsyncFrame`` object, because the
/// factory may resume on another thread.
@usableFromInline
struct Frame {
  @usableFromInline let index: Int
  /// The container making the dependency: the same key made by another container (a child
  /// wrapping its parent's value) is not a cycle.
  @usableFromInline let container: ObjectIdentifier
  /// Tells apart steps that make one argument key for different arguments, so that a key that
  /// resolves itself with another argument (a countdown, a tree) is not a cycle: the hash of a
  /// `Hashable` argument, the identity of an object, else 0 (no argument, or a value that
  /// cannot be compared). Steps with the same tag compare their arguments themselves.
  @usableFromInline let argument: Int
  /// The argument, an instance of the key's argument type, for as long as the step runs; nil
  /// for a key without one.
  @usableFromInline let argumentAddress: UnsafeRawPointer?
  @usableFromInline let parent: UnsafeMutablePointer<Frame>?
  @usableFromInline let depth: Int
  /// Tells this frame apart from an earlier one at the same address (see ``Resolver``).
  @usableFromInline let serial: UInt
  /// The stack address where this run of synchronous frames began (0 for a heap frame), and
  /// its depth there: what the stack check measures from.
  @usableFromInline let stackBase: UInt
  @usableFromInline let stackBaseDepth: Int
  /// Graph-scoped instances of the whole resolution, on the root frame. An asynchronous root's
  /// is a retained concurrent ``GraphStore`` pointer, made up front (its children may run
  /// concurrently). A synchronous root's is 0 until it keeps an instance, then its entries on
  /// its thread's stack of them (odd: the stack's height where they begin, shifted left by one,
  /// see `knapsack_thread_graph_top`), or a retained ``GraphStore`` pointer once it has moved
  /// them there (see ``UnsafeMutablePointer/storeGraphInstance(_:of:for:)``). A plain word keeps
  /// `Frame` trivial to copy; the root's owner lets go of it with ``releaseGraph()``.
  @usableFromInline var graph: UInt
  /// Whether the step's scope is one whose instance its container keeps (singleton, cached):
  /// what a handle made below it asks (see ``MakingStep/keepsWhatItMakes``) without looking the
  /// registration up again on every level. Written out where a step is made, not read from
  /// ``Scope/isDisposedByContainer`` (the same set): that cost S2 60 instructions.
  @usableFromInline let keeps: Bool

  @inlinable
  init(
    index: Int, container: Container, argument: Int = 0, argumentAddress: UnsafeRawPointer? = nil,
    parent: UnsafeMutablePointer<Frame>?, onHeap: Bool = false, keeps: Bool = false
  ) {
    self.index = index
    self.keeps = keeps
    self.container = ObjectIdentifier(container)
    self.argument = argument
    self.argumentAddress = argumentAddress
    self.parent = parent
    let depth = (parent?.pointee.depth ?? -1) + 1
    self.depth = depth
    serial = ThreadFrame.nextSerial()
    if onHeap {
      stackBase = 0
      stackBaseDepth = depth
    } else if let parent, parent.pointee.stackBase != 0 {
      stackBase = parent.pointee.stackBase
      stackBaseDepth = parent.pointee.stackBaseDepth
    } else {
      stackBase = ThreadFrame.stackPointer()
      stackBaseDepth = depth
    }
    graph =
      onHeap && parent == nil ? UInt(bitPattern: Unmanaged.passRetained(GraphStore(concurrent: true)).toOpaque()) : 0
  }

  /// The ``argument`` word of a step that makes a key for `argument`.
  @inlinable
  static func tag<Argument: Sendable>(_ argument: Argument) -> Int {
    Argument.self == Void.self ? 0 : hashTag(argument)
  }

  @usableFromInline
  static func hashTag(_ argument: some Sendable) -> Int {
    identity(of: argument)?.hashValue ?? 0
  }

  /// What the cycle check tells arguments apart by: the value if it is `Hashable`, else the
  /// object's identity; nil for a value that can be compared neither way.
  static func identity(of argument: Any) -> ArgumentIdentity? {
    ArgumentIdentity(argument)
      ?? objectIdentity(of: argument).map { ArgumentIdentity(object: $0) }
  }

  /// Whether two arguments of one key, of type `type`, at `left` and `right`, are the same: they
  /// have the same ``identity(of:)``. Values that cannot be compared are never the same, so that
  /// a step with one never reads as a cycle; a runaway with them ends at the depth limit instead.
  /// Both are nil for a key without an argument; one index is one key, so both arguments have
  /// the key's argument type.
  static func sameArgument(_ type: Any.Type, _ left: UnsafeRawPointer?, _ right: UnsafeRawPointer?) -> Bool {
    guard let left, let right else { return true }
    func same<Argument>(_: Argument.Type) -> Bool {
      guard let left = identity(of: left.assumingMemoryBound(to: Argument.self).pointee),
        let right = identity(of: right.assumingMemoryBound(to: Argument.self).pointee)
      else { return false }
      return left == right
    }
    return same(type)
  }

  /// Lets go of a root frame's graph-scoped instances, if it kept any: releases its entries on
  /// its thread's stack, or its store.
  @inlinable
  mutating func releaseGraph() {
    guard graph != 0 else { return }
    if graph & 1 == 1 {
      knapsack_thread_graph_pop(graph >> 1)
    } else if let pointer = UnsafeRawPointer(bitPattern: graph) {
      Unmanaged<GraphStore>.fromOpaque(pointer).release()
    }
    graph = 0
  }
}

extension UnsafeMutablePointer where Pointee == Frame {
  /// The frame of the top-level resolution.
  @inlinable var root: UnsafeMutablePointer<Frame> {
    var frame = self
    while let parent = frame.pointee.parent { frame = parent }
    return frame
  }

  /// Inserts into `passed` the address of this frame and of each above it, up to the first one
  /// already there (the walk that inserted it inserted those above it too), and returns whether
  /// one of them is `step` (stopping there). Walks from the steps of one line cost their length
  /// in all, not its square.
  @discardableResult
  func insertSteps(into passed: inout Set<UInt>, finding step: UInt = 0) -> Bool {
    var frame: UnsafeMutablePointer<Frame>? = self
    while let current = frame, passed.insert(UInt(bitPattern: current)).inserted {
      if UInt(bitPattern: current) == step { return true }
      frame = current.pointee.parent
    }
    return false
  }

  /// Whether this frame, or one above it, is the frame at `address`.
  func isAt(orBelow address: UInt) -> Bool {
    var frame: UnsafeMutablePointer<Frame>? = self
    while let current = frame {
      if UInt(bitPattern: current) == address { return true }
      frame = current.pointee.parent
    }
    return false
  }

  /// Each step from the root to this frame: what `read` returns for its frame.
  @inline(__always)
  func fromRoot<T>(_ read: (borrowing Frame) -> T) -> [T] {
    var values: [T] = []
    var frame: UnsafeMutablePointer<Frame>? = self
    while let current = frame {
      values.append(read(current.pointee))
      frame = current.pointee.parent
    }
    return values.reversed()
  }

  /// The indices from the root to this frame.
  var path: [Int] { fromRoot { $0.index } }
}

extension Frame {
  /// Where the step making `index` in `container` was registered, as that container sees it (see
  /// `Container.registrationSite`). Read while the step runs, so that its container is alive, and
  /// before a registration can change.
  static func registrationSite(_ index: Int, in container: ObjectIdentifier) -> CodeLocation? {
    UnsafeRawPointer(bitPattern: UInt(bitPattern: container)).flatMap {
      Unmanaged<Container>.fromOpaque($0)._withUnsafeGuaranteedRef { $0.registrationSite(index) }
    }
  }
}

extension UnsafeMutablePointer where Pointee == Frame {
  /// Whether this frame or one above it is the same step as `step`: it makes the same index in
  /// the same container for the same argument, of type `argumentType`.
  func contains(_ step: UnsafeMutablePointer<Frame>, argumentType: Any.Type) -> Bool {
    // The walk makes no call, so it stays cheap; comparing arguments starts at a frame that
    // matches the step's tag, which a chain without a cycle rarely has.
    var frame: UnsafeMutablePointer<Frame>? = self
    while let current = frame {
      if current.hasTag(of: step) { return current.makesArgument(of: step, argumentType) }
      frame = current.pointee.parent
    }
    return false
  }

  /// Whether this frame makes the same index in the same container as `step`, for an argument
  /// with the same tag.
  private func hasTag(of step: UnsafeMutablePointer<Frame>) -> Bool {
    pointee.index == step.pointee.index && pointee.container == step.pointee.container
      && pointee.argument == step.pointee.argument
  }

  /// ``contains(_:argumentType:)`` from a frame with `step`'s tag: whether it, or one above it
  /// with the same tag, makes the same argument.
  @inline(never)
  private func makesArgument(of step: UnsafeMutablePointer<Frame>, _ argumentType: Any.Type) -> Bool {
    var frame: UnsafeMutablePointer<Frame>? = self
    while let current = frame {
      if current.hasTag(of: step),
        Frame.sameArgument(argumentType, step.pointee.argumentAddress, current.pointee.argumentAddress)
      {
        return true
      }
      frame = current.pointee.parent
    }
    return false
  }

  /// The store of this root's graph-scoped instances, unretained (the root holds it until the
  /// resolution ends); nil for a synchronous root that keeps them on its thread's stack, or has
  /// kept none.
  @inlinable
  var graphStore: Unmanaged<GraphStore>? {
    let graph = pointee.graph
    guard graph & 1 == 0, let pointer = UnsafeRawPointer(bitPattern: graph) else { return nil }
    return .fromOpaque(pointer)
  }

  /// Whether this root's graph-scoped instances are an asynchronous resolution's, whose child
  /// tasks may ask for one at once: each is then made exactly once through a cell of its store.
  @inlinable
  var hasConcurrentGraph: Bool {
    graphStore?._withUnsafeGuaranteedRef { $0.isConcurrent } ?? false
  }

  /// The graph-scoped instance of `binding` for `argument` that this root's resolution has made,
  /// if any.
  @inlinable
  func graphInstance<Argument: Sendable, Value: Sendable>(
    of binding: Binding, for argument: Argument, as type: Value.Type
  ) -> Value? {
    let graph = pointee.graph
    if graph & 1 == 1 {
      // Only instances for no argument are kept on the thread's stack.
      guard Argument.self == Void.self,
        let object = UnsafeRawPointer(bitPattern: knapsack_thread_graph_find(graph >> 1, binding.serial))
      else { return nil }
      return Unmanaged<AnyObject>.fromOpaque(object)._withUnsafeGuaranteedRef { GraphStore.value($0, as: Value.self) }
    }
    return graphStore?._withUnsafeGuaranteedRef { $0.instance(of: binding, for: argument, as: Value.self) }
  }

  /// Whether this root's resolution has the graph-scoped instance of `binding` for `argument`.
  func hasGraphInstance<Argument: Sendable>(of binding: Binding, for argument: Argument) -> Bool {
    let graph = pointee.graph
    if graph & 1 == 1 {
      return Argument.self == Void.self && knapsack_thread_graph_find(graph >> 1, binding.serial) != 0
    }
    return graphStore?._withUnsafeGuaranteedRef { $0.contains(binding, for: argument) } ?? false
  }

  /// Keeps `value` as this root's graph-scoped instance of `binding` for `argument`: on the
  /// thread's stack while it has room and the key takes no argument, else in a store the root
  /// makes, taking over its entries from the stack.
  @inlinable
  func storeGraphInstance<Argument: Sendable, Value: Sendable>(
    _ value: Value, of binding: Binding, for argument: Argument
  ) {
    if pointee.graph == 0 { pointee.graph = knapsack_thread_graph_top() << 1 | 1 }
    if pointee.graph & 1 == 1 {
      if Argument.self == Void.self {
        let object = Unmanaged.passRetained(GraphStore.object(value)).toOpaque()
        if knapsack_thread_graph_push(binding.serial, UInt(bitPattern: object)) != 0 { return }
        Unmanaged<AnyObject>.fromOpaque(object).release()
      }
      moveGraphToStore()
    }
    graphStore?._withUnsafeGuaranteedRef { $0.store(value, of: binding, for: argument) }
  }

  /// Moves this synchronous root's entries from its thread's stack to a store of its own. The
  /// root's entries are the stack's top ones: a resolution that started inside this one has
  /// ended, and given its own back, before this one keeps another instance.
  @usableFromInline
  func moveGraphToStore() {
    let base = pointee.graph >> 1
    let store = GraphStore()
    for index in base..<knapsack_thread_graph_top() {
      let entry = knapsack_thread_graph_entry(index)
      store.adopt(serial: entry.serial, object: entry.object)
    }
    knapsack_thread_graph_truncate(base)
    pointee.graph = UInt(bitPattern: Unmanaged.passRetained(store).toOpaque())
  }
}

/// The frame of an asynchronous factory call, kept alive by the ``Resolver`` that factory
/// received and by the frames below it.
@usableFromInline
final class AsyncFrame: @unchecked Sendable {
  // Safe: `pointer` is set once in init and freed in deinit; the frame it points to is never
  // mutated after init (a heap root gets its graph store up front); `finished` is atomic.
  @usableFromInline let pointer: UnsafeMutablePointer<Frame>
  private let parentFrame: AsyncFrame?
  private let finished = Atomic<Bool>(false)
  /// The frame's argument (a ``HeldArgument``), which the frame points to; nil for a key without
  /// one.
  private let argument: (any AnyObject & Sendable)?

  init<Argument: Sendable>(index: Int, container: Container, argument: Argument, parent: AsyncFrame?, keeps: Bool) {
    let held = Argument.self == Void.self ? nil : HeldArgument(argument)
    self.argument = held
    pointer = .allocate(capacity: 1)
    pointer.initialize(
      to: Frame(
        index: index, container: container, argument: Frame.tag(argument),
        argumentAddress: held.map { UnsafeRawPointer($0.value) }, parent: parent?.pointer, onHeap: true,
        keeps: keeps))
    parentFrame = parent
  }

  deinit {
    pointer.pointee.releaseGraph()
    pointer.deinitialize(count: 1)
    pointer.deallocate()
  }

  /// Marks the factory call as returned: a resolver kept beyond it starts fresh resolutions.
  func finish() { finished.store(true, ordering: .releasing) }
  @usableFromInline var isFinished: Bool { finished.load(ordering: .acquiring) }
}

/// An asynchronous factory call in progress, and the call that was in progress where it began.
/// A resolution through a captured container or a provider starts a new root, whose frames do
/// not lead back to the factory that awaits it: this chain does.
///
/// The chain is a task-local value, so every task made inside a call inherits it, but the call
/// awaits only some of them: the task that runs it, and that task's structured child tasks
/// (`async let`, task groups), which the call cannot return before. An unstructured `Task {}`
/// may never be awaited. The runtime tells them apart: a structured child task reads its
/// parent's binding of a task local in place, while an unstructured task reads a copy of it. So
/// each call notes where its binding lives, and code that finds the binding at that address
/// runs in a task the call awaits. (A binding made in the body of a task group is copied for
/// structured children too: ``run(_:)`` makes none there.)
final class FactoryCall: Sendable {
  /// The innermost factory call in progress where this code runs, if any; read only when a
  /// resolution meets a creation in progress.
  @TaskLocal private static var current: FactoryCall?

  /// The step whose factory this call runs; nil for the first read of a ``Lazy``, which is no step
  /// but awaits its child tasks all the same.
  let frame: AsyncFrame?
  let outer: FactoryCall?
  /// Where the task that began this call found ``outer`` bound: the outer call awaits this one
  /// only if that is the outer call's own binding, not a copy.
  private let outerSeenAt: UInt
  /// Where this call's binding lives: noted by the task that runs the call, as it begins.
  private let boundAt = Atomic<UInt>(0)
  /// The innermost synchronous frame on the thread where the call began, and its serial (0, 0 for
  /// none): nonzero only for a call that an immediate task (`Task.immediate`) began in a
  /// synchronous factory, whose first part runs on that factory's thread (see
  /// ``Container/makingHere``).
  private let threadFrame: (address: UInt, serial: UInt)

  init(frame: AsyncFrame?) {
    self.frame = frame
    (outer, outerSeenAt) = Self.seen ?? (nil, 0)
    let thread = ThreadFrame.current
    threadFrame = (UInt(bitPattern: thread), thread?.pointee.serial ?? 0)
  }

  /// Whether this call began inside the synchronous step at `frame`, the thread's frame where
  /// the code it awaits runs: the call is then inside that step, not the other way round.
  private func began(under frame: UnsafeMutablePointer<Frame>) -> Bool {
    threadFrame.address == UInt(bitPattern: frame) && threadFrame.serial == frame.pointee.serial
  }

  /// The step whose factory is the innermost call that awaits the code running here, if that
  /// call is inside `thread`, the thread's innermost synchronous step (or there is none); nil
  /// otherwise.
  static func makingStep(inside thread: UnsafeMutablePointer<Frame>?) -> MakingStep? {
    awaitingStep(inside: thread).flatMap { frame in withExtendedLifetime(frame) { frame.pointer.pointee.makingStep } }
  }

  /// The frame of the step whose factory is the innermost call that awaits the code running here,
  /// if that call is inside `thread`, the thread's innermost synchronous step (or there is none);
  /// nil otherwise. Valid while this code runs: the call keeps its frame until it returns, which
  /// it cannot do before the code it awaits.
  static func awaitingStep(inside thread: UnsafeMutablePointer<Frame>?) -> AsyncFrame? {
    guard let (call, address) = seen,
      let inner = call.awaited(seenAt: address, { $0.frame != nil }), let frame = inner.frame
    else { return nil }
    if let thread, !inner.began(under: thread) { return nil }
    return frame
  }

  /// Calls `body` with the step that a top-level resolution made here continues: the step of the
  /// asynchronous factory that awaits this code, if that runs inside `thread`'s step (or there is
  /// none; see ``awaitingStep(inside:)``), else `thread`'s, the step on this thread (if any).
  static func withEnclosingStep<R>(
    inside thread: UnsafeMutablePointer<Frame>?, _ body: (UnsafeMutablePointer<Frame>?) throws -> R
  ) rethrows -> R {
    guard let awaiting = awaitingStep(inside: thread) else { return try body(thread) }
    return try withExtendedLifetime(awaiting) { try body(awaiting.pointer) }
  }

  /// Runs `body` as this call (the factory of ``frame``'s step).
  func run<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws -> R {
    // In the body of a task group, the runtime gives child tasks copies of the bindings made
    // there, so that the body may end them while the group's children run: this call's children
    // would not find its binding. It is made in a child task of its own instead, outside any
    // group body.
    guard taskHasTaskGroupStatusRecord() else { return try await bound(body) }
    async let result = bound(body)
    return try await result
  }

  /// Runs `body` with this call bound, noting where.
  ///
  /// Each call binds a task local, so a deep line of asynchronous steps makes a long chain of
  /// bindings, and the runtime finds a task local's value by walking that chain from the newest
  /// binding: the override scope (or a validation run's), bound once where the resolution
  /// began, would cost a walk of the whole line at every handle made or read below, a time
  /// that grows with the square of the line's length. So while any scope is alive, each call
  /// binds the scope it runs in (or none) again, next to its own binding.
  private func bound<R>(_ body: () async throws -> R) async throws -> R {
    guard knapsack_override_key_load() != 0 else { return try await boundHere(body) }
    return try await OverrideScope.$current.withValue(OverrideScope.active) { try await boundHere(body) }
  }

  /// ``bound(_:)``'s binding of this call.
  private func boundHere<R>(_ body: () async throws -> R) async throws -> R {
    try await Self.$current.withValue(self) {
      boundAt.store(Self.seen?.address ?? 0, ordering: .releasing)
      // When the body returns, the child tasks it awaits have ended, and a binding found later
      // at this address (freed, then reused for another task's copy) is not this call's.
      defer { boundAt.store(0, ordering: .releasing) }
      return try await body()
    }
  }

  /// The innermost call where this code runs, and the address of the binding it was found at.
  static var seen: (call: FactoryCall, address: UInt)? {
    let key = UnsafeRawPointer(Unmanaged.passUnretained($current).toOpaque())
    guard let address = taskLocalValueAddress(key), let call = address.load(as: FactoryCall?.self) else {
      return nil
    }
    return (call, UInt(bitPattern: address))
  }

  /// The index of the dependency whose factory is the innermost call where this code runs (a
  /// `Lazy`'s read, which is no step, does not count).
  static var currentIndex: Int? {
    var call = current
    while let inner = call, inner.frame == nil { call = inner.outer }
    return call?.frame?.pointer.pointee.index
  }

  /// `body` of the step whose factory is the innermost call that awaits the code running here,
  /// if any, kept alive while `body` runs.
  static func withInnermostStep<R>(_ body: (UnsafeMutablePointer<Frame>?) -> R) -> R {
    guard let (call, address) = seen, let frame = call.awaited(seenAt: address, { $0.frame != nil })?.frame else {
      return body(nil)
    }
    return withExtendedLifetime(frame) { body(frame.pointer) }
  }

  /// Calls `body` with the step of each factory call that awaits code that found this call bound
  /// at `address` (see ``awaited(seenAt:_:)``), innermost first.
  func forEachAwaitingStep(seenAt address: UInt, _ body: (UnsafeMutablePointer<Frame>) -> Void) {
    _ = awaited(seenAt: address) { call in
      if let pointer = call.frame?.pointer { body(pointer) }
      return false
    }
  }

  /// Whether code that found this call bound at `address` runs in a task that `call` awaits.
  func awaits(_ call: FactoryCall, seenAt address: UInt) -> Bool {
    awaited(seenAt: address) { $0 === call } != nil
  }

  /// The innermost call that awaits code that found this call bound at `address` and that
  /// `matches`: this call, or one further out whose own binding (not a copy) the one inside it
  /// began in.
  private func awaited(seenAt address: UInt, _ matches: (FactoryCall) -> Bool) -> FactoryCall? {
    var call: FactoryCall? = self
    var seenAt = address
    // Past a copied binding, the calls further out need not await this code.
    while let current = call, current.boundAt.load(ordering: .acquiring) == seenAt {
      if matches(current) { return current }
      seenAt = current.outerSeenAt
      call = current.outer
    }
    return nil
  }

  /// Walks the factory calls that await the code running here, innermost first, until one whose
  /// step `matches`. Returns, for each resolution on the way (its root frame), outermost first,
  /// the path of its innermost call there; nil if no call matches. A call runs in a resolution of
  /// its own when a captured container, a `Provider` or a `Lazy` started it: the parts, joined,
  /// go from the outermost resolution's root through each call that started the next.
  private static func awaitedPaths(
    until matches: (UnsafeMutablePointer<Frame>) -> Bool
  ) -> [(root: UnsafeMutablePointer<Frame>, path: [Int])]? {
    guard let (call, address) = seen else { return nil }
    var parts: [(root: UnsafeMutablePointer<Frame>, path: [Int])] = []
    // The root of each step passed: the calls of one resolution are steps of one line, and
    // walking up to the root from each took time that grew with the square of its depth.
    var roots: [UInt: UnsafeMutablePointer<Frame>] = [:]
    func root(of pointer: UnsafeMutablePointer<Frame>) -> UnsafeMutablePointer<Frame> {
      var walked: [UInt] = []
      var frame = pointer
      var root: UnsafeMutablePointer<Frame>?
      while root == nil {
        if let known = roots[UInt(bitPattern: frame)] {
          root = known
        } else {
          walked.append(UInt(bitPattern: frame))
          if let parent = frame.pointee.parent { frame = parent } else { root = frame }
        }
      }
      for step in walked { roots[step] = root }
      return root ?? pointer
    }
    let found = call.awaited(seenAt: address) { call in
      // A `Lazy`'s read is no step: it adds nothing to the path.
      guard let pointer = call.frame?.pointer else { return false }
      let root = root(of: pointer)
      if parts.last?.root != root { parts.append((root, pointer.path)) }
      return matches(pointer)
    }
    return found == nil ? nil : parts.reversed()
  }

  /// If the code running here, in the step at `frame`, is awaited by the step at `step` (see
  /// ``awaits(_:seenAt:)``), the path from the resolution's root through `step` to the innermost
  /// factory call where it runs, which `frame`'s path continues (see ``awaitedPaths(until:)``).
  /// Nil if `step` does not await this code.
  static func pathAwaiting(_ step: UInt, from frame: UnsafeMutablePointer<Frame>) -> [Int]? {
    var passed: Set<UInt> = []
    guard var parts = awaitedPaths(until: { $0.insertSteps(into: &passed, finding: step) }) else { return nil }
    // `frame`'s path already has its own resolution's part.
    if parts.last?.root == frame.root { parts.removeLast() }
    return parts.flatMap(\.path)
  }

  /// If a factory call that awaits the code running here makes the same step as `step` (a new
  /// resolution's root), or runs below one that does, the path of the loop, to `step` (see
  /// ``awaitedPaths(until:)``). Nil if none does.
  static func pathRepeating(_ step: UnsafeMutablePointer<Frame>, argumentType: Any.Type) -> [Int]? {
    awaitedPaths(until: { $0.contains(step, argumentType: argumentType) }).map {
      $0.flatMap(\.path) + [step.pointee.index]
    }
  }
}

/// Whether the current task is in the body of a task group it made: the Concurrency runtime's
/// exported check, which `TaskLocal.withValue` makes too.
@_silgen_name("swift_task_hasTaskGroupStatusRecord")
func taskHasTaskGroupStatusRecord() -> Bool

/// An argument kept at a stable address for a heap frame, freed with it.
final class HeldArgument<Argument: Sendable>: @unchecked Sendable {
  // Safe: the value is written once in init and only read after; it is `Sendable`.
  let value: UnsafeMutablePointer<Argument>

  init(_ argument: Argument) {
    value = .allocate(capacity: 1)
    value.initialize(to: argument)
  }

  deinit {
    value.deinitialize(count: 1)
    value.deallocate()
  }
}

/// Graph-scoped instances of one top-level resolution that does not keep them on its thread's
/// stack (see `knapsack_thread_graph_top`): an asynchronous one, shared with its child tasks, or
/// a synchronous one that outgrew the stack or keeps an instance for an argument. A short list,
/// searched linearly (a resolution graph holds few of them), of instances keyed by binding and
/// argument. An instance of a class is kept as itself, any other value in a ``Box``.
@usableFromInline
final class GraphStore: Sendable {
  /// What the store holds: instances of bindings resolved with no argument (nearly all of them),
  /// found by the binding alone, and instances for an argument, found by binding and argument.
  struct Entries {
    var plain: [PlainEntry] = []
    var keyed: [(key: InstanceKey, object: any AnyObject & Sendable)] = []
  }

  /// An instance of a binding resolved with no argument. The object is retained by hand (and
  /// released by `deinit`), so that an entry is two plain words: appending, finding and
  /// clearing entries copies no reference and runs no generic value witness.
  struct PlainEntry: Sendable {
    /// The binding's ``Binding/serial``: unlike its address, it stays unique even if the
    /// binding is replaced and freed during the resolution, so the binding need not be held.
    let bindingSerial: UInt
    let object: Unmanaged<any AnyObject & Sendable>
  }

  // A `Mutex` sits inside the object: one allocation for the store. Contention is rare (only
  // the child tasks of one asynchronous factory share a store).
  private let entries = Mutex(Entries())
  /// Whether this is the store of an asynchronous resolution, whose child tasks may ask for one
  /// instance at once: it keeps each instance in a cell through which it is made exactly once
  /// (see ``creationCell(of:for:)``). A synchronous resolution's store, which one thread uses,
  /// keeps them in its entries.
  @usableFromInline let isConcurrent: Bool
  /// The cells of a concurrent store (``Locked``, not `Mutex`: its contended path is one that
  /// ThreadSanitizer sees); nil for a synchronous resolution's.
  private let creations: Locked<[InstanceKey: SharedCell]>?

  @usableFromInline init(concurrent: Bool = false) {
    isConcurrent = concurrent
    creations = concurrent ? Locked([:]) : nil
  }

  /// The cell through which the instance of `binding` for `argument` is made and kept, in the
  /// store of an asynchronous resolution.
  func creationCell<Argument: Sendable>(of binding: Binding, for argument: Argument) -> SharedCell {
    let key = InstanceKey(binding, argument: argument)
    guard let creations else { return SharedCell() }  // never: only a concurrent store is asked
    return creations.withLock { cells in
      if let existing = cells[key] { return existing }
      let fresh = SharedCell()
      cells[key] = fresh
      return fresh
    }
  }

  /// Releases the instances once the resolution has ended. An instance's deinit that resolves
  /// again starts another resolution, which cannot reach this store.
  deinit {
    entries.withLock { entries in
      for entry in entries.plain { entry.object.release() }
    }
  }

  /// `value` as the store keeps it: a class instance as itself, any other value boxed.
  @inlinable
  static func object<Value: Sendable>(_ value: Value) -> any AnyObject & Sendable {
    isObject(Value.self) ? unsafeBitCast(value, to: (any AnyObject & Sendable).self) : Box(value)
  }

  /// The `Value` kept as `object` (see ``object(_:)``).
  @inlinable
  static func value<Value: Sendable>(_ object: AnyObject, as type: Value.Type) -> Value {
    if isObject(Value.self) { return unsafeBitCast(object, to: Value.self) }
    return unsafeDowncast(object, to: Box<Value>.self).value
  }

  /// The instance of `binding` stored for `argument`, if any.
  @inlinable
  func instance<Argument: Sendable, Value: Sendable>(
    of binding: Binding, for argument: Argument, as type: Value.Type
  ) -> Value? {
    guard let object = object(of: binding, for: argument) else { return nil }
    return Self.value(object, as: Value.self)
  }

  /// Stores `value` as the instance of `binding` for `argument`.
  @inlinable
  func store<Argument: Sendable, Value: Sendable>(_ value: Value, of binding: Binding, for argument: Argument) {
    let object = Self.object(value)
    if Argument.self == Void.self {
      adopt(serial: binding.serial, object: UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
    } else {
      store(object: object, for: InstanceKey(binding, argument: argument))
    }
  }

  /// Whether the store holds the instance of `binding` for `argument`.
  func contains<Argument: Sendable>(_ binding: Binding, for argument: Argument) -> Bool {
    if let creations {
      return creations.withLock { $0[InstanceKey(binding, argument: argument)] }?.isOccupied ?? false
    }
    return object(of: binding, for: argument) != nil
  }

  /// The instance of `binding` for `argument`, as stored: found by the binding alone when the
  /// key takes no argument.
  @inlinable
  func object<Argument: Sendable>(of binding: Binding, for argument: Argument) -> (any AnyObject & Sendable)? {
    Argument.self == Void.self ? object(of: binding) : object(for: InstanceKey(binding, argument: argument))
  }

  /// Whether a `Value` is a class instance, one reference that can be kept as itself.
  @inlinable
  static func isObject<Value>(_ type: Value.Type) -> Bool {
    type is AnyObject.Type && MemoryLayout<Value>.size == MemoryLayout<AnyObject>.size
  }

  // The look-ups go by index, so that they copy no entry (a copy would retain what it holds).

  @usableFromInline
  func object(of binding: Binding) -> (any AnyObject & Sendable)? {
    let wanted = binding.serial
    let found: Unmanaged<any AnyObject & Sendable>? = entries.withLock { entries in
      entries.plain.withUnsafeBufferPointer { plain in
        for index in plain.indices where plain[index].bindingSerial == wanted { return plain[index].object }
        return nil
      }
    }
    return found?.takeUnretainedValue()
  }

  @usableFromInline
  func object(for key: InstanceKey) -> (any AnyObject & Sendable)? {
    entries.withLock { entries in
      for index in entries.keyed.indices where entries.keyed[index].key == key { return entries.keyed[index].object }
      return nil
    }
  }

  /// Keeps `object`, a retained object address, as the instance of the binding numbered
  /// `serial`; the store releases it.
  @usableFromInline
  func adopt(serial: UInt, object: UInt) {
    guard let address = UnsafeRawPointer(bitPattern: object) else { return }
    let entry = PlainEntry(bindingSerial: serial, object: .fromOpaque(address))
    entries.withLock { $0.plain.append(entry) }
  }

  @usableFromInline
  func store(object: any AnyObject & Sendable, for key: InstanceKey) {
    entries.withLock { $0.keyed.append((key, object)) }
  }
}

/// The innermost synchronous frame running on this thread, kept in a C thread-local word.
///
/// A factory that resolves through a captured container (or a `Lazy` or `Provider`) instead of
/// its resolver starts a new top-level resolution on the same thread; continuing from this frame
/// keeps its resolution path, so a cycle through such calls is reported instead of overflowing
/// the stack.
@usableFromInline
enum ThreadFrame {
  @inlinable static var current: UnsafeMutablePointer<Frame>? {
    UnsafeMutablePointer(bitPattern: knapsack_current_frame())
  }

  @inlinable static func set(_ frame: UnsafeMutablePointer<Frame>?) {
    knapsack_set_current_frame(UInt(bitPattern: frame))
  }

  /// A number never returned before on this thread.
  @inlinable static func nextSerial() -> UInt { knapsack_next_serial() }

  /// The stack address of the caller, roughly.
  @inlinable static func stackPointer() -> UInt { knapsack_stack_pointer() }
}

extension Container {
  /// The step whose factory is running where this code runs, if any: the innermost one,
  /// synchronous on this thread or asynchronous awaiting this code. Its container is what
  /// `@Injected` and `@LazyInjected` without `container:` resolve from in an instance a factory
  /// makes, in the app and in a validation run alike (where it is the run's copy).
  ///
  /// A synchronous step that runs on this thread is inside the asynchronous steps that await this
  /// code, unless one of those began inside it: an immediate task (`Task.immediate`) that a
  /// synchronous factory starts runs on that factory's thread until it first suspends, and an
  /// asynchronous factory it resolves is the innermost step there.
  ///
  /// An observer's callback is no factory: what it makes there resolves from `Container.current`
  /// (unless a factory it runs makes it), whether the step it is told about has a requester on
  /// this thread's path or not.
  static var makingHere: MakingStep? {
    let thread = ThreadFrame.current
    if knapsack_thread_observing_load() == UInt(bitPattern: thread) | 1 { return nil }
    if let awaited = FactoryCall.makingStep(inside: thread) { return awaited }
    return thread?.pointee.makingStep
  }
}

/// The step whose factory is running where some code runs: its container and its dependency.
struct MakingStep {
  let container: Container
  let index: Int
  /// The step that asked for this one, if any, in this resolution (valid while the step runs).
  let parent: UnsafeMutablePointer<Frame>?

  /// Whether the container may keep what the step's factory makes for as long as it lives, so
  /// that what that makes must not hold the container strongly (the two would keep each other
  /// alive): the step is a singleton or cached one, or runs for one of the same container
  /// above it (a singleton's unique or graph dependency, which the singleton keeps).
  var keepsWhatItMakes: Bool {
    if keeps { return true }
    // Each frame says whether its own step keeps its instance: a handle made on every level of a
    // deep line of steps costs a walk of plain reads, not a registration look-up per level.
    var above = parent
    while let frame = above {
      if frame.pointee.keeps, frame.pointee.container == ObjectIdentifier(container) { return true }
      above = frame.pointee.parent
    }
    return false
  }

  /// Whether the step's own scope is one whose instance its container keeps (see ``Frame/keeps``).
  let keeps: Bool
}

extension Frame {
  /// The container making this step's dependency, and the dependency. Only for code that runs
  /// while the step does: its resolution holds the container meanwhile.
  var makingStep: MakingStep? {
    UnsafeRawPointer(bitPattern: UInt(bitPattern: container)).map {
      MakingStep(
        container: Unmanaged<Container>.fromOpaque($0).takeUnretainedValue(), index: index, parent: parent,
        keeps: keeps)
    }
  }
}

/// Checks, every few levels of a resolution, that the thread has stack left for the next ones.
enum StackGuard {
  /// Levels between two checks.
  static let interval = 4
  /// Stack kept free besides the room for more levels: what the user's own code and the error
  /// path need.
  static let reserve: UInt = 64 * 1024
  /// How deep a resolution may go through asynchronous steps, whose frames are on the heap and
  /// use no stack to measure: past this, it is a runaway (a key resolving itself with a new
  /// argument each time, say) and fails instead of using memory without end.
  static let heapDepthLimit = 10_000

  /// A limit that a resolution can reach.
  enum Limit: Error, CustomStringConvertible {
    case stack, asynchronousSteps
    var description: String {
      switch self {
      case .stack: "too deep for this thread's stack"
      case .asynchronousSteps: "deeper than the \(heapDepthLimit) asynchronous steps a resolution may take"
      }
    }
  }

  /// The limit that stops the resolution at `frame`, if any: a heap frame's depth, or for a
  /// stack frame, too little stack left to go `interval` levels deeper safely.
  static func exceededLimit(_ frame: UnsafeMutablePointer<Frame>) -> Limit? {
    if frame.pointee.stackBase == 0 { return frame.pointee.depth >= heapDepthLimit ? .asynchronousSteps : nil }
    let limit = knapsack_stack_limit()
    let here = knapsack_stack_pointer()
    guard limit != 0, here > limit else { return nil }
    let base = frame.pointee.stackBase
    let levels = UInt(max(frame.pointee.depth - frame.pointee.stackBaseDepth, 1))
    let perLevel = base > here ? (base - here) / levels : 0
    return here - limit < reserve + perLevel * UInt(interval * 2) ? .stack : nil
  }
}

/// Marks the main dispatch queue, which runs the main actor, so that the engine can tell whether
/// it runs there without trapping (`MainActor.assumeIsolated` would).
// Safe: the key is immutable after its lazy, thread-safe initialization, and only passed to
// Dispatch's thread-safe specific-value functions.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

/// Whether the calling code runs on the main actor: on its queue (the quick check), or else isolated
/// to it as the Concurrency runtime tells (main-actor code that runs a block with
/// `DispatchQueue.sync` on another queue, where the current queue is that other one).
@usableFromInline var isOnMainActor: Bool {
  if DispatchQueue.getSpecific(key: mainQueueKey) == true { return true }
  let executor = unsafeBitCast(MainActor.sharedUnownedExecutor, to: knapsack_executor.self)
  return knapsack_is_current_executor(executor) == 1
}
