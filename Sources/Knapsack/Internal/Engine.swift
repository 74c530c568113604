import CKnapsack
public import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The resolution engine: one routine for every kind of key.
///
/// A resolution plans its route (``Slot``), then ``produce(_:_:_:)`` (synchronous and main-actor
/// factories) or ``produceAsync(_:_:_:)`` (asynchronous factories) makes or finds the instance.
/// Both drivers share every step that is not about waiting: ``enter(_:_:making:from:)``
/// (cycle, depth and type checks), ``claim(_:_:thread:frame:)`` (the scope's storage and
/// exactly-once creation), ``settle(_:_:_:_:began:synchronous:)`` (storing by scope, disposal,
/// waking waiters), ``decorate(_:_:_:_:)`` and ``Observation``. Validation's dry run goes through the
/// same drivers.
extension Container {
  // MARK: Entry

  /// The container that serves a top-level resolution: this one, or its copy in the override
  /// scope open in this task.
  func servingContainer() -> Container {
    OverrideScope.activeOverlay(of: self)?.takeUnretainedValue() ?? self
  }

  /// This container's copy in the override scope `scope` (unretained: the scope keeps it), or nil
  /// if this container serves it itself (it is that copy, or a validation copy).
  @inlinable
  func overlay(in scope: OverrideScope) -> Unmanaged<Container>? {
    guard !isValidationCopy else { return nil }
    if overlayScope == ObjectIdentifier(scope.identity) { return nil }
    return scope.overlay(for: self)
  }

  /// The route to `index` in this container, planned now if the cached plan is stale.
  @inlinable
  func slot(_ index: Int) -> Slot {
    if let cached = slots.load(index), cached.generation == plans.generation.load(ordering: .acquiring) {
      return cached
    }
    return plan(index)
  }

  // MARK: Synchronous driver

  /// Resolves `index` in this container from synchronous code (or main-actor code, on the main
  /// thread). `parent` is the frame that asks, if any. With none, in a task, the resolution
  /// continues the asynchronous factory that awaits this code, if one does (a factory of any kind
  /// that asks a container it captured joins its own resolution): looked up off the fast path,
  /// after a kept singleton, which needs no parent.
  @inlinable
  func resolveSync<Argument: Sendable, Value: Sendable>(
    _ index: Int, _ argument: Argument, parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    // The resolution runs in one read section of this container's table (nested in the
    // caller's, when a factory asks): the cached plan, its binding and the binding's cell stay
    // alive until it returns, so nothing on the fast path is retained but the instance.
    ReadSection.begin(slots.domain)
    defer { ReadSection.end() }
    let current = plans.generation.load(ordering: .acquiring)
    if let address = slots.address(index) {
      // Nil off the fast path (a value that is itself optional comes back wrapped).
      let planned: Value? = try Unmanaged<Slot>.fromOpaque(address)._withUnsafeGuaranteedRef { slot in
        guard slot.generation == current, !slot.isObserved else { return nil }
        if Argument.self == Void.self, let cell = slot.singletonCell,
          let value = cell._withUnsafeGuaranteedRef({ $0.loadSingleton(Value.self) })
        {
          return value
        }
        guard let binding = slot.borrowedBinding else { return nil }
        if parent == nil, currentTaskAddress != 0 { return nil }
        if Argument.self == Void.self, parent == nil, slot.isDirect {
          return try binding._withUnsafeGuaranteedRef { try makeDirect($0) }
        }
        return try binding._withUnsafeGuaranteedRef { try produce($0, argument, parent) as Value }
      }
      if let planned { return planned }
    }
    return try resolvePlanned(index, argument, parent: parent)
  }

  /// ``resolveSync(_:_:parent:)`` off its fast path: the plan is stale, or observed, or routes
  /// elsewhere (an ancestor, a failure). Never inlined, to keep the fast path small.
  @usableFromInline @inline(never)
  func resolvePlanned<Argument: Sendable, Value: Sendable>(
    _ index: Int, _ argument: Argument, parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    if parent == nil, currentTaskAddress != 0, let awaiting = FactoryCall.awaitingStep(inside: nil) {
      return try resolveBelow(awaiting, index, argument)
    }
    let slot = self.slot(index)
    if let binding = slot.binding {
      if !slot.isObserved { return try produce(binding, argument, parent) }
      return try produceObserved(slot, binding, argument, parent)
    }
    if let delegate = slot.delegate {
      if slot.isObserved { return try resolveDelegatedObserved(slot, delegate, index, argument, parent) }
      return try resolveDelegated(slot, delegate, index, argument, parent)
    }
    throw unresolvable(slot, index, parent)
  }

  /// ``resolvePlanned(_:_:parent:)`` below `awaiting`, the step of the asynchronous factory that
  /// awaits this code. Out of line, so that the frame of `resolvePlanned` stays small.
  @inline(never)
  func resolveBelow<Argument: Sendable, Value: Sendable>(
    _ awaiting: AsyncFrame, _ index: Int, _ argument: Argument
  ) throws -> Value {
    // The call keeps its step's frame until it returns, which it cannot do before this code.
    try withExtendedLifetime(awaiting) { try resolvePlanned(index, argument, parent: awaiting.pointer) }
  }

  /// The delegate branch of ``resolvePlanned(_:_:parent:)`` with this container's observer told
  /// about the step, if `delegate` does not tell it (see ``delegatedStep(_:to:)``). Out of line,
  /// so that the frame of `resolvePlanned`, on every level of a first resolution, stays small.
  @inline(never)
  func resolveDelegatedObserved<Argument: Sendable, Value: Sendable>(
    _ slot: Slot, _ delegate: Container, _ index: Int, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    guard let step = delegatedStep(index, to: delegate) else {
      return try resolveDelegated(slot, delegate, index, argument, parent)
    }
    return try Observation(step.container, step.binding, argument, slot.observer, parent: parent).run {
      try resolveDelegated(slot, delegate, index, argument, parent)
    }
  }

  /// Resolves `index` synchronously in `delegate`, which keeps its shared instance for this
  /// container (see ``Slot/delegate``), in the override scope the plan names, if any.
  @inline(__always)
  func resolveDelegated<Argument: Sendable, Value: Sendable>(
    _ slot: Slot, _ delegate: Container, _ index: Int, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    do {
      guard let scope = slot.delegateScope else { return try delegate.resolveSync(index, argument, parent: parent) }
      return try OverrideScope.bind(scope) { try delegate.resolveSync(index, argument, parent: parent) }
    } catch {
      throw heldAbove(error, index, delegate, inEnclosingScope: slot.delegateScope != nil)
    }
  }

  /// `error`, from `delegate` making its shared instance of `index` for this container: when
  /// what was missing is something this container provides (a child registers it, but its
  /// parent's singleton needs it; an inner override scope registers it, but the enclosing
  /// scope's singleton needs it), the error says so, since "never provided" alone would be false
  /// here. `validate()` reports the same as a captive dependency.
  @inline(never)
  func heldAbove(_ error: any Error, _ index: Int, _ delegate: Container, inEnclosingScope: Bool) -> any Error {
    guard let failure = error as? ResolutionError,
      failure.kind == .requiredKeyNotProvided || failure.kind == .notRegistered, failure.underlying == nil,
      let missing = failure.dependencyIndex, missing != index,
      // Failed in `delegate` or above it, not in a container a factory captured.
      let failing = failure.failingContainer,
      sequence(first: delegate, next: \.parent).contains(where: { $0 === failing }),
      let (registration, _) = effectiveRegistration(missing), !registration.isDefault,
      delegate.effectiveRegistration(missing) == nil
    else { return error }
    let held = KeyTable.shared.descriptor(index).reference.name
    let scope = delegate.servingStep(index).map { " (\($0.binding.scope))" } ?? ""
    let (keeper, below) =
      inEnclosingScope
      ? ("the enclosing override scope", "in the inner override scope")
      : ("a parent container", "in a child container below it")
    let reason =
      "\(held) is kept by \(keeper)\(scope) and made there from its registrations, and \(failure.dependency.name)"
      + " is registered only \(below) (at \(registration.location))"
    return failure.explained(by: reason)
  }

  /// The error for a plan that resolves to nothing, boxed out of line: so the frame of
  /// ``resolvePlanned(_:_:parent:)``, on every level of a graph's first resolution, has no room
  /// for a ``ResolutionError``.
  @inline(never)
  func unresolvable(_ slot: Slot, _ index: Int, _ parent: UnsafeMutablePointer<Frame>?) -> any Error {
    let error = unresolvableError(slot, index, parent)
    // An observed container tells its observer about the failed step, as about one whose factory
    // throws (a validation run reports the problem itself). The flag first: an unobserved
    // failure copies no observer.
    if slot.isObserved, !isValidationCopy { observeFailure(error, index, slot, parent) }
    return error
  }

  private func unresolvableError(_ slot: Slot, _ index: Int, _ parent: UnsafeMutablePointer<Frame>?) -> any Error {
    if slot.failure == .containerDisposed, !isDisposed {
      return failure(.containerDisposed, index, parent, underlying: ScopeEnded())
    }
    return failure(slot.failure ?? .notRegistered, index, parent)
  }

  /// Tells the observer of `slot` of a step for `index` that failed with `error` before any
  /// factory ran: with no registration site (nothing is registered), and the scope the key
  /// declares.
  @inline(never)
  private func observeFailure(_ error: any Error, _ index: Int, _ slot: Slot, _ parent: UnsafeMutablePointer<Frame>?) {
    guard let observer = slot.observer else { return }
    let scope = KeyTable.shared.descriptor(index).declaredScope
    _ = try? Observation(observer, index: index, scope: scope, registeredAt: nil, reused: false, parent: parent).run {
      () throws -> Void in throw error
    }
  }

  /// The error for an argument key's instance that the override scope this copy served disposed
  /// when it ended (see ``Binding/endArguments(_:)``); out of line, like `unresolvable`.
  @inline(never)
  func scopeEnded(_ binding: Binding, _ frame: UnsafeMutablePointer<Frame>) -> ResolutionError {
    failure(.containerDisposed, binding.index, frame, underlying: ScopeEnded())
  }

  /// Why an override scope's copy refuses a dependency it disposed (see `disposedWithScope`).
  struct ScopeEnded: Error, CustomStringConvertible {
    static let text =
      "the override scope it was resolved in has ended and disposed its instance (resolve it in a scope that is open)"
    var description: String { Self.text }
  }

  /// ``produce(_:_:_:)`` with the slot's observer told about it.
  func produceObserved<Argument: Sendable, Value: Sendable>(
    _ slot: Slot, _ binding: Binding, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    try Observation(self, binding, argument, slot.observer, parent: parent).run {
      if isValidationCopy, let settled: Value = try settledInstance(binding, argument, parent) { return settled }
      return try produce(binding, argument, parent)
    }
  }

  /// In a validation copy, what a step takes instead of running its factory: the instance an
  /// earlier root of the run made and left (see ``ValidationMemo``), if any.
  func settledInstance<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value? {
    guard Argument.self == Void.self,
      ObjectIdentifier(type(of: binding.registration)) == ObjectIdentifier(TypedRegistration<Void, Value>.self),
      let tap = overlay?.recorder
    else { return nil }
    return try tap.settled(binding.index, in: self, parent: parent).flatMap { $0 as? Value }
  }

  /// Makes the instance of a binding planned as direct (see ``Slot/isDirect``) for a top-level
  /// resolution that takes no argument: ``produce(_:_:_:)`` without the steps that cannot apply
  /// there. A root step closes no cycle and is never too deep; a direct binding keeps no
  /// instance; and the fast path never reads a validation copy's plans, so the side-effect
  /// check has nothing to stop. The factory runs through ``runFactory(_:_:_:)``, the body of
  /// ``make(_:_:_:)`` that every synchronous factory runs through. Nil when the registration does
  /// not make `Value` (the caller then takes the path that reports it).
  @inlinable @inline(__always)
  func makeDirect<Value: Sendable>(_ binding: Binding) throws -> Value? {
    guard ObjectIdentifier(type(of: binding.registration)) == ObjectIdentifier(TypedRegistration<Void, Value>.self)
    else { return nil }
    var frame = Frame(index: binding.index, container: self, parent: nil)
    defer { frame.releaseGraph() }
    // The frame lives on this stack until the factory returns. Its address goes to no code that
    // could write past it, so the frame needs no stack protector (see `produce`).
    return try _withUnprotectedUnsafeMutablePointer(to: &frame) { try runFactory(binding, (), $0) as Value }
  }

  /// Finds or makes the instance of `binding` for `argument`, synchronously, in a new step below
  /// `parent`. For a key that takes an argument, the step keeps the argument's address while it
  /// runs (see ``Frame/argumentAddress``); a key without one (nearly every one) takes no closure
  /// for that, and so no more stack per level of a deep graph.
  @inlinable
  func produce<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?
  ) throws -> Value {
    guard Argument.self != Void.self else { return try produce(binding, argument, parent, argumentAddress: nil) }
    return try withUnsafePointer(to: argument) { argumentAddress in
      try produce(binding, argument, parent, argumentAddress: UnsafeRawPointer(argumentAddress))
    }
  }

  /// ``produce(_:_:_:)`` with the argument's address. The step's frame lives on this thread's
  /// stack while the instance is found or made. The common case, a new instance, is inlined into
  /// the caller; the scopes that keep instances share ``produceShared(_:_:_:)``.
  @inlinable @inline(__always)
  func produce<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ parent: UnsafeMutablePointer<Frame>?,
    argumentAddress: UnsafeRawPointer?
  ) throws -> Value {
    let scope = binding.scope.kind
    var frame = Frame(
      index: binding.index, container: self, argument: Frame.tag(argument), argumentAddress: argumentAddress,
      parent: parent, keeps: scope == .singleton || scope == .cached)
    // The frame's address goes to the engine only, which reads and writes its fields and no more:
    // no buffer to overrun, so no stack protector on every level of a resolution.
    return try _withUnprotectedUnsafeMutablePointer(to: &frame) { frame in
      defer { if parent == nil { frame.pointee.releaseGraph() } }
      try enter(binding, frame, making: Value.self, from: argument)
      guard scope == .unique || scope == .graph else { return try produceShared(binding, argument, frame) }
      // Unique, or graph at the top level (where the resolution is this one instance).
      guard scope == .graph, parent != nil else { return try make(binding, argument, frame) }
      let root = frame.root
      if root.hasConcurrentGraph, let store = root.graphStore {
        // An asynchronous resolution, whose child tasks may ask for the instance at once.
        return try produceGraphShared(store, binding, argument, frame)
      }
      if let value = root.graphInstance(of: binding, for: argument, as: Value.self) { return value }
      let value: Value = try make(binding, argument, frame)
      root.storeGraphInstance(value, of: binding, for: argument)
      return value
    }
  }

  /// Finds or makes the instance of `binding` for `argument` in a scope that keeps instances
  /// (weak, cached, singleton), in the step at `frame`.
  @usableFromInline
  func produceShared<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    guard let cell = binding.cell(for: argument) else { throw scopeEnded(binding, frame) }
    return try produceClaimed(cell, binding, argument, frame)
  }

  /// Finds or makes the graph-scoped instance of `binding` for `argument` in `store`, an
  /// asynchronous resolution's, whose child tasks may ask for it at once: made exactly once,
  /// through its cell.
  @usableFromInline
  func produceGraphShared<Argument: Sendable, Value: Sendable>(
    _ store: Unmanaged<GraphStore>, _ binding: Binding, _ argument: Argument, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    let cell = store._withUnsafeGuaranteedRef { $0.creationCell(of: binding, for: argument) }
    return try produceClaimed(cell, binding, argument, frame)
  }

  /// Finds the instance of `binding` for `argument` in `cell`, or waits for the step making it,
  /// or makes it exactly once: the loop every step that keeps an instance runs.
  func produceClaimed<Argument: Sendable, Value: Sendable>(
    _ cell: SharedCell, _ binding: Binding, _ argument: Argument, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    let thread = currentThreadID()
    while true {
      switch claim(cell, binding, thread: thread, frame: frame) as Claim<Value> {
      case .found(let value):
        return value
      case .cycle(let creatorPath):
        throw cycle(creatorPath, frame)
      case .disposed:
        throw failure(.containerDisposed, binding.index, frame)
      case .wait(let creatorIsAsync):
        if let loop = WaitGraph.shared.beginWait(frame, for: cell, index: binding.index, thread: thread) {
          throw crossResolutionCycle(loop, binding.index, frame.pointee.parent)
        }
        if creatorIsAsync {
          // An asynchronous creator holds no lock to block on: poll until it is done.
          usleep(50)
        } else {
          cell.creationLock.lock()
          cell.creationLock.unlock()
        }
        WaitGraph.shared.endWait(frame)
      case .create(let began):
        let result = Result { () throws -> Value in try make(binding, argument, frame) }
        settle(cell, binding, argument, result, began: began, synchronous: true)
        return try result.get()
      }
    }
  }

  /// Runs the synchronous or main-actor factory of `binding`, then its decorators: the call
  /// that ``produce(_:_:_:argumentAddress:)`` makes.
  @inlinable
  func make<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    try runFactory(binding, argument, frame)
  }

  /// The body of ``make(_:_:_:)``, which ``makeDirect(_:)`` inlines.
  @inlinable @inline(__always)
  func runFactory<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    // `enter` checked the factory's types. The binding holds the registration for the whole
    // call: borrowing it (and switching on its factory in place) retains neither it nor the
    // factory's closure.
    let registration = Unmanaged.passUnretained(
      unsafeDowncast(binding.registration, to: TypedRegistration<Argument, Value>.self))
    let previous = ThreadFrame.current
    ThreadFrame.set(frame)
    defer { ThreadFrame.set(previous) }
    do {
      let value: Value = try registration._withUnsafeGuaranteedRef { registration in
        try call(registration.factory.body, binding, argument, frame)
      }
      if binding.decorators.isEmpty { return value }
      return try decorate(value, binding, Resolver(container: self, frame: frame), frame)
    } catch {
      throw factoryError(error, binding, frame)
    }
  }

  /// Calls a synchronous or main-actor factory. Its body is borrowed: matching it copies (and
  /// retains) none of the closures. A ``Resolver`` is made only for a factory that takes one,
  /// because a resolver holds its container.
  @inlinable
  func call<Argument: Sendable, Value: Sendable>(
    _ body: borrowing Factory<Argument, Value>.Body, _ binding: Binding, _ argument: Argument,
    _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    switch body {
    case .sync(let body):
      return try body(Resolver(container: self, frame: frame), argument)
    case .resolverOnly(let body):
      return try body(Resolver(container: self, frame: frame))
    case .plain(let body):
      return try body()
    case .mainActor, .async:
      return try callOffThread(body, binding, argument, frame)
    }
  }

  /// ``call(_:_:_:_:)`` for a main-actor factory, or an asynchronous one (which a synchronous
  /// resolution cannot call). Out of line: the locals these cases need would otherwise take
  /// stack on every level of a deep graph of synchronous factories.
  @usableFromInline @inline(never)
  func callOffThread<Argument: Sendable, Value: Sendable>(
    _ body: borrowing Factory<Argument, Value>.Body, _ binding: Binding, _ argument: Argument,
    _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    switch body {
    case .mainActor(let body):
      guard isOnMainActor else {
        throw mismatch(
          binding, frame,
          text: "its factory runs on the main actor: resolve it from @MainActor code, or with `try await`")
      }
      let resolver = Resolver(container: self, frame: frame)
      return try MainActor.assumeIsolated { try body(resolver, argument) }
    case .async:
      throw mismatch(binding, frame, text: "its factory is asynchronous: resolve it with `try await`")
    case .sync, .resolverOnly, .plain:
      return try call(body, binding, argument, frame)
    }
  }

  // MARK: Asynchronous driver

  /// Resolves `index` from asynchronous code: an asynchronous factory is awaited, a main-actor
  /// one runs on the main actor, a synchronous one runs here. `parent` is the asynchronous
  /// factory that asks, if any.
  func resolveAsync<Argument: Sendable, Value: Sendable>(
    _ index: Int, _ argument: Argument, parent: AsyncFrame?
  ) async throws -> Value {
    let slot = self.slot(index)
    guard let binding = slot.binding else {
      if let delegate = slot.delegate {
        if slot.isObserved, let step = delegatedStep(index, to: delegate) {
          return try await Observation(step.container, step.binding, argument, slot.observer, parent: parent?.pointer)
            .runAsync { try await resolveDelegated(slot, delegate, index, argument, parent) }
        }
        return try await resolveDelegated(slot, delegate, index, argument, parent)
      }
      throw unresolvable(slot, index, parent?.pointer)
    }
    switch binding.registration.kind {
    case .sync:
      return try resolveSync(index, argument, parent: parent?.pointer)
    case .mainActor:
      return try await MainActor.run { try self.resolveSync(index, argument, parent: parent?.pointer) }
    case .async:
      guard let observer = slot.observer else { return try await produceAsync(binding, argument, parent) }
      return try await Observation(self, binding, argument, observer, parent: parent?.pointer).runAsync {
        if isValidationCopy, let settled: Value = try settledInstance(binding, argument, parent?.pointer) {
          return settled
        }
        return try await produceAsync(binding, argument, parent)
      }
    }
  }

  /// Resolves `index` from asynchronous code in `delegate`, which keeps its shared instance for
  /// this container (see ``Slot/delegate``).
  private func resolveDelegated<Argument: Sendable, Value: Sendable>(
    _ slot: Slot, _ delegate: Container, _ index: Int, _ argument: Argument, _ parent: AsyncFrame?
  ) async throws -> Value {
    do {
      guard let scope = slot.delegateScope else {
        return try await delegate.resolveAsync(index, argument, parent: parent)
      }
      return try await OverrideScope.$current.withValue(scope) {
        try await delegate.resolveAsync(index, argument, parent: parent)
      }
    } catch {
      throw heldAbove(error, index, delegate, inEnclosingScope: slot.delegateScope != nil)
    }
  }

  /// Finds or makes the instance of `binding` for `argument` with its asynchronous factory.
  private func produceAsync<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ parent: AsyncFrame?
  ) async throws -> Value {
    let scope = binding.scope.kind
    let frame = AsyncFrame(
      index: binding.index, container: self, argument: argument, parent: parent,
      keeps: scope == .singleton || scope == .cached)
    defer { frame.finish() }
    try enter(binding, frame.pointer, making: Value.self, from: argument)
    // A new resolution (through a handle or a captured container) has no parent to find a loop
    // in, but the factory calls that await it may be making this very step: each would start
    // another, without end. A shared instance's cell finds that loop (see `claim`); a unique or
    // graph-scoped step, made afresh in each resolution, looks for it here.
    if parent == nil, scope == .unique || scope == .graph,
      let loop = FactoryCall.pathRepeating(frame.pointer, argumentType: Argument.self)
    {
      throw failure(.cycle, binding.index, frame.pointer, path: loop)
    }
    switch scope {
    case .unique:
      return try await makeAsync(binding, argument, frame)
    case .graph:
      // Child tasks of this resolution may ask for the instance at once: made once, like a
      // shared one, in the resolution's store.
      // (An asynchronous step's root is asynchronous: its store is a concurrent one.)
      // Never nil: an asynchronous step's root made its store up front.
      guard let store = frame.pointer.root.graphStore else { return try await makeAsync(binding, argument, frame) }
      let cell = store._withUnsafeGuaranteedRef { $0.creationCell(of: binding, for: argument) }
      return try await produceClaimed(cell, binding, argument, frame, parent)
    case .weak, .cached, .singleton:
      guard let cell = binding.cell(for: argument) else { throw scopeEnded(binding, frame.pointer) }
      return try await produceClaimed(cell, binding, argument, frame, parent)
    }
  }

  /// ``produceClaimed(_:_:_:_:)`` for a step with an asynchronous factory.
  private func produceClaimed<Argument: Sendable, Value: Sendable>(
    _ cell: SharedCell, _ binding: Binding, _ argument: Argument, _ frame: AsyncFrame, _ parent: AsyncFrame?
  ) async throws -> Value {
    while true {
      switch claim(cell, binding, thread: nil, frame: frame.pointer) as Claim<Value> {
      case .found(let value):
        return value
      case .cycle(let creatorPath):
        throw cycle(creatorPath, frame.pointer)
      case .disposed:
        throw failure(.containerDisposed, binding.index, frame.pointer)
      case .wait:
        // A cancelled task does not wait for another task's factory, which may take long: it
        // throws, and the creation goes on for the others (it checks again each time it would
        // wait, so that a cancellation that woke it ends it).
        try Task.checkCancellation()
        if let loop = WaitGraph.shared.beginWait(frame.pointer, for: cell, index: binding.index, thread: nil) {
          throw crossResolutionCycle(loop, binding.index, parent?.pointer)
        }
        await AsyncWaiters.suspend(in: cell.state) { state, waiter in
          state.creator == nil ? nil : state.asyncWaiters.add(waiter)
        } delist: { state, number in
          state.asyncWaiters.remove(number)
        }
        WaitGraph.shared.endWait(frame.pointer)
      case .create(let began):
        let result: Result<Value, any Error>
        do {
          result = .success(try await makeAsync(binding, argument, frame))
        } catch {
          result = .failure(error)
        }
        settle(cell, binding, argument, result, began: began, synchronous: false)
        return try result.get()
      }
    }
  }

  /// Runs the asynchronous factory of `binding`, then its decorators.
  private func makeAsync<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ frame: AsyncFrame
  ) async throws -> Value {
    let factory = unsafeDowncast(binding.registration, to: TypedRegistration<Argument, Value>.self).factory
    let resolver = Resolver(container: self, asyncFrame: frame)
    do {
      guard case .async(let body) = factory.body else {
        throw mismatch(binding, frame.pointer, text: "expected an asynchronous factory")
      }
      // The factory runs as a call bound in its task, so that a resolution that does not
      // continue this step (through a captured container or a provider), in this task or a
      // structured child task of it, can still tell that it waits for this step's own creation
      // (see `claim`).
      return try await FactoryCall(frame: frame).run {
        try await self.decorateAsync(try await body(resolver, argument), binding, resolver, frame.pointer)
      }
    } catch {
      throw factoryError(error, binding, frame.pointer)
    }
  }

  // MARK: Steps shared by both drivers

  /// Checks that making `binding` in `frame` closes no cycle, fits on the stack, may run (in a
  /// validation copy) and has the types the caller expects: a factory of `Value` from
  /// `Argument`, whose registration is the ``TypedRegistration`` of the two; and that a scope
  /// that keeps an instance per argument can tell `argument` from others.
  @inlinable
  func enter<Argument: Sendable, Value: Sendable>(
    _ binding: Binding, _ frame: UnsafeMutablePointer<Frame>, making: Value.Type, from argument: Argument
  ) throws {
    let matches = try enter(
      binding, frame, argument: Argument.self, factoryClass: ObjectIdentifier(TypedRegistration<Argument, Value>.self))
    // The value's type is looked up only to name it in the error.
    if !matches { throw factoryMismatch(binding, frame, value: Value.self, argument: Argument.self) }
    // Decided when compiled for a key without an argument, nearly every one.
    if Argument.self != Void.self, binding.scope.kind != .unique, !InstanceKey.canKeep(argument) {
      // The argument's own type: an `any Sendable` argument's static one would read `Any`.
      throw unhashableArgument(binding.index, frame, argument: type(of: argument as Any), scope: binding.scope)
    }
  }

  /// ``enter(_:_:making:from:)`` with the argument type as a value and the expected
  /// registration class as an identifier: one copy, not specialized per type. Returns whether
  /// the registration is of that class.
  @usableFromInline
  func enter(
    _ binding: Binding, _ frame: UnsafeMutablePointer<Frame>, argument: Any.Type, factoryClass: ObjectIdentifier
  ) throws -> Bool {
    let depth = frame.pointee.depth
    if let parent = frame.pointee.parent {
      // Below 64 levels every step looks for a loop; deeper, every 64th does: a loop repeats
      // its members, so it is still found, and a long chain costs linear time.
      if depth < 64 || depth & 63 == 0,
        parent.contains(frame, argumentType: argument)
      {
        throw failure(
          .cycle, binding.index, frame, underlying: RepeatedArgument(argument, at: frame.pointee.argumentAddress))
      }
      if depth & (StackGuard.interval - 1) == 0 { try checkStack(binding.index, frame) }
    }
    let registration = binding.registration
    if isValidationCopy { try enterValidationStep(registration, frame) }
    return ObjectIdentifier(type(of: registration)) == factoryClass
  }

  /// In a validation copy: skips a registration made with side effects, and notes the stack the
  /// step uses (see ``ValidationMemo``).
  @inline(never)
  func enterValidationStep(_ registration: Registration, _ frame: UnsafeMutablePointer<Frame>) throws {
    if registration.hasSideEffects { throw ValidationSkipped(index: registration.index) }
    overlay?.recorder?.recorder.memo.noteStep(frame)
  }

  /// Throws `resolutionTooDeep` if the step making `index` at `frame`, below another, has too
  /// little stack left to go on (or, asynchronous, has reached the limit of asynchronous steps).
  func checkStack(_ index: Int, _ frame: UnsafeMutablePointer<Frame>) throws {
    if let limit = StackGuard.exceededLimit(frame) {
      throw failure(.resolutionTooDeep, index, frame, underlying: limit)
    }
  }

  /// The error of a registration whose scope keeps an instance per argument, for an argument
  /// that is not `Hashable`: a second argument would otherwise get the first one's instance.
  /// Out of line, like the other errors of ``enter(_:_:making:from:)``.
  @usableFromInline @inline(never)
  func unhashableArgument(
    _ index: Int, _ frame: UnsafeMutablePointer<Frame>?, argument: Any.Type, scope: Scope
  ) -> ResolutionError {
    let typeName = KeyTable.typeName(argument)
    // A tuple (or a function) cannot conform to a protocol: a struct can.
    let hint = typeName.hasPrefix("(") ? " (a struct, not a tuple)" : ""
    return failure(
      .factoryMismatch, index, frame,
      underlying: MismatchDescription(
        text: "its \(scope) scope keeps one instance per argument, but \(typeName) is not Hashable, so arguments"
          + " cannot be told apart; make the argument type Hashable\(hint) or register the key with scope: .unique"))
  }

  /// The error of a binding whose factory does not make `value` from `argument`. Out of line,
  /// like every error ``enter(_:_:argument:factoryClass:)`` throws, so that the check itself
  /// stays small.
  @usableFromInline @inline(never)
  func factoryMismatch(
    _ binding: Binding, _ frame: UnsafeMutablePointer<Frame>, value: Any.Type, argument: Any.Type
  ) -> ResolutionError {
    let argumentText = argument == Void.self ? "" : " taking \(KeyTable.typeName(argument))"
    return mismatch(
      binding, frame,
      text: "expected a factory of \(KeyTable.typeName(value))\(argumentText), found \(binding.registration.summary)")
  }

  enum Claim<Value> {
    /// The instance exists.
    case found(Value)
    /// The caller must make it, then ``settle(_:_:_:_:began:synchronous:)``, passing on the
    /// count of cache resets before the creation began (see ``Container/beginCreating()``).
    case create(UInt64)
    /// Another resolution is making it; wait and ask again.
    case wait(creatorIsAsync: Bool)
    /// This very resolution is making it: a cycle, with the creator's path.
    case cycle([Int])
    /// The container was disposed: nothing more is made in it.
    case disposed
  }

  /// Looks up the shared instance of `cell`, or claims its creation exactly once.
  ///
  /// A creation in progress is this step's own cycle when its creator is this step or above it,
  /// or an asynchronous factory call that awaits this code (in this task, or in a task whose
  /// structured child this is; even through a captured container or a provider), or is
  /// synchronous and on this thread; any other creator (another resolution, a child task of
  /// this one running side by side, or the factory that started this unstructured task) is
  /// waited for.
  func claim<Value: Sendable>(
    _ cell: SharedCell, _ binding: Binding, thread: UInt?, frame: UnsafeMutablePointer<Frame>
  ) -> Claim<Value> {
    let scope = binding.scope.kind
    if let value = cell.stored(scope, as: Value.self) { return .found(value) }
    let claim: Claim<Value> = cell.state.withLock { state in
      switch scope {
      case .singleton: if let value = cell.loadSingleton(Value.self) { return .found(value) }
      case .cached, .graph: if let cached = state.cached, let value = cached as? Value { return .found(value) }
      case .weak: if let object = state.weakInstance, let value = object as? Value { return .found(value) }
      case .unique: break
      }
      if let creator = state.creator {
        if frame.isAt(orBelow: creator.frame) || (thread != nil && creator.thread == thread) {
          // The creator's step is above this one, or lower on this thread's stack: either way it
          // waits for this step, so its frame is alive and still. Its path is read now, not kept
          // for every creation (a walk from the root).
          return .cycle(UnsafeMutablePointer<Frame>(bitPattern: creator.frame)?.path ?? [])
        }
        // Awaited by the creator through a handle or a task: the loop ran from the creator down
        // to the factory call that awaits this code, then here.
        if let awaiting = FactoryCall.pathAwaiting(creator.frame, from: frame) { return .cycle(awaiting) }
        return .wait(creatorIsAsync: creator.thread == nil)
      }
      state.creator = SharedCell.Creator(
        frame: UInt(bitPattern: frame), thread: thread, resets: state.resets)
      if thread != nil { cell.creationLock.lock() }
      return .create(0)
    }
    guard case .create = claim else { return claim }
    guard let began = beginCreating() else {
      letGo(cell, synchronous: thread != nil)
      return .disposed
    }
    return .create(began)
  }

  /// Ends a creation claimed with ``claim(_:_:thread:frame:)``: stores a made instance by
  /// its scope and records it for disposal (a failure is not cached), then lets waiters go.
  /// `argument` is what the instance was made for.
  func settle<Argument: Sendable, Value: Sendable>(
    _ cell: SharedCell, _ binding: Binding, _ argument: Argument, _ result: Result<Value, any Error>,
    began: UInt64, synchronous: Bool
  ) {
    if case .success(let value) = result {
      // An observed step learns here that it made the instance (see `Observation`).
      if let record = MadeRecord.current, record.task == currentTaskAddress { record.note(binding.serial) }
      // Recorded before it is published: a step that finds it published (without a lock) and
      // makes something from it records that after it, so disposal, newest first, closes the
      // dependent first; and a reset that finds it in the cache finds its record to drop.
      if binding.scope.isDisposedByContainer { recordCreated(value, by: binding, for: argument, isShared: true) }
      cell.publish(value, binding.scope.kind)
    }
    endCreating(began)
    letGo(cell, synchronous: synchronous)
  }

  /// Gives up the creator role on `cell` and wakes the steps waiting for it, which look again.
  private func letGo(_ cell: SharedCell, synchronous: Bool) {
    let waiters = cell.state.withLock { state in
      state.creator = nil
      return state.asyncWaiters.takeAll()
    }
    if synchronous { cell.creationLock.unlock() }
    for waiter in waiters { waiter.resume() }
  }

  /// Applies `binding`'s decorators, in order, to what its synchronous or main-actor factory
  /// made.
  @usableFromInline
  func decorate<Value: Sendable>(
    _ value: Value, _ binding: Binding, _ resolver: Resolver, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    var decoratedValue = value
    do {
      for decoration in binding.decorators {
        if isValidationCopy { noteDecorating(binding.index, decoration.location) }
        defer { if isValidationCopy { noteDecorating(binding.index, nil) } }
        let result = try DecoratorFailure.naming(decoration, step: binding.index) {
          try apply(decoration, to: decoratedValue, binding, resolver, frame)
        }
        decoratedValue = try decorated(result, by: decoration, binding, frame)
      }
    } catch {
      keepForDisposal(value, of: binding)
      throw error
    }
    return decoratedValue
  }

  /// Applies `binding`'s decorators, in order, to what its asynchronous factory made, awaiting
  /// the asynchronous ones.
  func decorateAsync<Value: Sendable>(
    _ value: Value, _ binding: Binding, _ resolver: Resolver, _ frame: UnsafeMutablePointer<Frame>
  ) async throws -> Value {
    var decoratedValue = value
    do {
      for decoration in binding.decorators {
        if isValidationCopy { noteDecorating(binding.index, decoration.location) }
        defer { if isValidationCopy { noteDecorating(binding.index, nil) } }
        let result: any Sendable
        if case .async(let apply) = decoration.apply {
          do { result = try await apply(resolver, decoratedValue) } catch {
            throw DecoratorFailure.wrapping(error, of: decoration, step: binding.index)
          }
        } else {
          result = try DecoratorFailure.naming(decoration, step: binding.index) {
            try apply(decoration, to: decoratedValue, binding, resolver, frame)
          }
        }
        decoratedValue = try decorated(result, by: decoration, binding, frame)
      }
    } catch {
      keepForDisposal(value, of: binding)
      throw error
    }
    return decoratedValue
  }

  /// Keeps what the factory of `binding` made, when a decorator of it failed, to dispose of with
  /// the container if its scope is one the container disposes of: nobody received it, and it may
  /// hold a resource (a database the factory opened).
  @inline(never)
  func keepForDisposal(_ made: some Sendable, of binding: Binding) {
    guard !isValidationCopy, binding.scope.isDisposedByContainer else { return }
    recordCreated(made, by: binding, for: (), isShared: false)
  }

  /// Runs one decorator that does not need to be awaited.
  private func apply(
    _ decoration: Decoration, to value: some Sendable, _ binding: Binding, _ resolver: Resolver,
    _ frame: UnsafeMutablePointer<Frame>
  ) throws -> any Sendable {
    switch decoration.apply {
    case .sync(let apply):
      return try apply(resolver, value)
    case .mainActor(let apply):
      guard isOnMainActor else {
        throw mismatch(
          binding, frame,
          text: "the decorator at \(decoration.location) runs on the main actor: resolve it from @MainActor code, "
            + "or with `try await`")
      }
      return try MainActor.assumeIsolated { try apply(resolver, value) }
    case .async:
      throw mismatch(
        binding, frame, text: "the decorator at \(decoration.location) is asynchronous: resolve it with `try await`")
    }
  }

  /// What a decorator returned, as the dependency's type.
  private func decorated<Value: Sendable>(
    _ result: any Sendable, by decoration: Decoration, _ binding: Binding, _ frame: UnsafeMutablePointer<Frame>
  ) throws -> Value {
    guard let value = result as? Value else {
      throw mismatch(
        binding, frame,
        text: "the decorator at \(decoration.location) did not return \(KeyTable.typeName(Value.self))")
    }
    return value
  }

  /// Whether `binding` already has the instance a resolution for `argument` would return.
  func hasInstance(_ binding: Binding, _ argument: some Sendable, _ parent: UnsafeMutablePointer<Frame>?) -> Bool {
    switch binding.scope.kind {
    case .unique: false
    case .graph: parent?.root.hasGraphInstance(of: binding, for: argument) ?? false
    case .weak, .cached, .singleton: binding.cell(for: argument)?.isOccupied ?? false
    }
  }

  // MARK: Errors

  /// What a factory's error becomes: resolution errors pass through, others are wrapped with
  /// the dependency and path.
  @usableFromInline
  func factoryError(_ error: any Error, _ binding: Binding, _ frame: UnsafeMutablePointer<Frame>) -> any Error {
    if error is ResolutionError || error is ValidationSkipped { return error }
    return failure(.factoryFailed, binding.index, frame, underlying: error)
  }

  @usableFromInline @inline(never)
  func failure(
    _ kind: ResolutionError.Kind, _ index: Int, _ frame: UnsafeMutablePointer<Frame>?, path: [Int]? = nil,
    underlying: (any Error)? = nil
  ) -> ResolutionError {
    // Each step's site, as the container that ran it saw it when this was thrown (a factory may
    // resolve from another container it captured). A path of one step needs none but
    // `registeredAt`: the common failure (a missing dependency asked for at the top) stays as
    // cheap as it was.
    var index = index
    var registeredAt = registrationSite(index)
    var indices: [Int]
    var sites: [CodeLocation?]?
    var arguments: [String?]?
    if let path {
      indices = path
      if indices.count > 1 { sites = indices.map { registrationSite($0) } }
    } else if let frame {
      // One walk of the frames: a site is looked up only for a path of more than one step.
      let steps = frame.fromRoot { (index: $0.index, container: $0.container, argument: $0.argumentAddress) }
      indices = steps.map(\.index)
      let appended = indices.last != index
      if appended { indices.append(index) }
      arguments = ArgumentText.path(steps).map { appended ? $0 + [nil] : $0 }
      if indices.count > 1 {
        let mine = ObjectIdentifier(self)
        sites =
          steps.map { step in
            step.index == index && step.container == mine
              ? registeredAt : Frame.registrationSite(step.index, in: step.container)
          } + (appended ? [registeredAt] : [])
      }
    } else {
      indices = [index]
    }
    // A loop longer than the interval at which deep steps look for one (see `enter`) is found
    // past its first repeat: the path ends at that repeat, the loop's first member.
    if kind == .cycle, underlying == nil, let end = Self.firstRepeat(indices, arguments), end < indices.count - 1 {
      indices.removeSubrange((end + 1)...)
      sites?.removeSubrange((end + 1)...)
      arguments?.removeSubrange((end + 1)...)
      index = indices[end]
      registeredAt = sites?[end] ?? registrationSite(index)
    }
    return ResolutionError(
      kind: kind, container: self, index: index, path: indices, registeredAt: registeredAt, pathSites: sites,
      pathArguments: arguments, underlying: underlying.map { String(describing: $0) })
  }

  /// The position of the first step of `path` that repeats an earlier one, among the steps that
  /// take no argument (two arguments that read alike may differ); nil if none does.
  private static func firstRepeat(_ path: [Int], _ arguments: [String?]?) -> Int? {
    var seen: Set<Int> = []
    for (position, index) in path.enumerated() where arguments?[position] == nil {
      if !seen.insert(index).inserted { return position }
    }
    return nil
  }

  /// Where `index` was registered as this container sees it; nil when it was not, or when its
  /// key's default is used.
  func registrationSite(_ index: Int) -> CodeLocation? {
    effectiveRegistration(index).flatMap { $0.0.isDefault ? nil : $0.0.location }
  }

  /// A cycle across concurrent resolutions: this one (at `parent`'s step, if any) waits for
  /// dependency `index`, whose maker waits for … a dependency this one is making. The path is the
  /// simple loop.
  func crossResolutionCycle(
    _ loop: [Int], _ index: Int, _ parent: UnsafeMutablePointer<Frame>?, underlying: String? = nil
  )
    -> ResolutionError
  {
    var path = (parent?.path ?? []) + loop
    if let last = path.last, let start = path.firstIndex(of: last), start < path.count - 1 {
      path = Array(path[start...])
    }
    return failure(.cycle, index, parent, path: path, underlying: underlying.map { MismatchDescription(text: $0) })
  }

  /// A cycle found through a shared instance being created: the creator's path leads to the
  /// dependency, and this resolution's path leads back to it.
  func cycle(_ creatorPath: [Int], _ frame: UnsafeMutablePointer<Frame>) -> ResolutionError {
    let mine = frame.path
    // The creator's path leads to this step when this step runs below it; a path of the same
    // length is another resolution of the same step (started through a handle), which closes it.
    let continues = mine.count > creatorPath.count && mine.starts(with: creatorPath)
    return failure(.cycle, frame.pointee.index, frame, path: continues ? mine : creatorPath + mine)
  }

  @usableFromInline @inline(never)
  func mismatch(_ binding: Binding, _ frame: UnsafeMutablePointer<Frame>, text: String) -> ResolutionError {
    failure(.factoryMismatch, binding.index, frame, underlying: MismatchDescription(text: text))
  }
}

/// What an observed step that may find its instance made: the ``Binding/serial`` of the last
/// binding whose instance was made under it, written by the step that made it (``settle``). The
/// step's own creation settles last, so the step made its instance if the record holds its
/// binding's serial when it returns.
final class MadeRecord: Sendable {
  /// The record of the observed step running in this task (or on this thread), if any. Tasks
  /// made meanwhile inherit it, but only the step's own task writes it.
  @TaskLocal static var current: MadeRecord?
  let serial = Atomic<UInt>(0)
  let task = currentTaskAddress
  /// The dependency this record's step is about.
  let index: Int
  /// The record of the same dependency's step in a child container (or scope copy) that handed
  /// the step to this record's container and observes it too (see `Container/delegatedStep`):
  /// what settles here is written there as well, so that each observer learns who made it.
  let outer: MadeRecord?

  init(index: Int) {
    self.index = index
    if let current = Self.current, current.index == index, current.task == task {
      outer = current
    } else {
      outer = nil
    }
  }

  /// Notes that `serial`'s binding made its instance, in this record and the ones it forwards to.
  func note(_ serial: UInt) {
    var record: MadeRecord? = self
    while let next = record {
      next.serial.store(serial, ordering: .relaxed)
      record = next.outer
    }
  }
}

/// The observer call around one resolution: written once, used by both drivers.
struct Observation {
  let observer: any ResolutionObserver
  let index: Int
  let scope: Scope
  let registeredAt: CodeLocation?
  let requester: Int?
  let depth: Int
  /// Whether the instance existed when the step began.
  let reused: Bool
  /// For a step that makes its instance through a cell (a shared instance, or a graph one of
  /// an asynchronous resolution), where it learns whether it made it or found one another step
  /// made meanwhile, and its binding's serial; nil for a step whose instance existed or not
  /// when it began (``reused`` tells).
  let made: (record: MadeRecord, serial: UInt)?
  let start: ContinuousClock.Instant

  /// Tells `observer` that the step making `index` under `parent` begins.
  init(
    _ observer: (any ResolutionObserver)?, index: Int, scope: Scope, registeredAt: CodeLocation?, reused: Bool,
    made: (record: MadeRecord, serial: UInt)? = nil, parent: UnsafeMutablePointer<Frame>?
  ) {
    self.observer = observer ?? SilentObserver()
    self.index = index
    self.scope = scope
    self.registeredAt = registeredAt
    self.reused = reused
    self.made = made
    requester = parent?.pointee.index
    let depth = (parent?.pointee.depth ?? -1) + 1
    self.depth = depth
    let observer = self.observer
    let reference = KeyTable.shared.descriptor(index).reference
    Self.callingBack { observer.willResolve(reference, depth: depth) }
    start = ContinuousClock.now
  }

  /// Runs `callback`, a call of the observer, unless this thread is in one already: what an
  /// observer resolves from inside its own callbacks (a logger it resolves to write to) is not
  /// observed, or each of those resolutions would call it again, without end. The thread's word
  /// keeps the frame the callback began in, tagged (see ``Container/makingHere``).
  private static func callingBack(_ callback: () -> Void) {
    guard knapsack_thread_observing_load() == 0 else { return }
    knapsack_thread_observing_store(UInt(bitPattern: ThreadFrame.current) | 1)
    defer { knapsack_thread_observing_store(0) }
    callback()
  }

  /// Tells `observer` that the resolution of `binding` for `argument` begins.
  init<Argument: Sendable>(
    _ container: Container, _ binding: Binding, _ argument: Argument, _ observer: (any ResolutionObserver)?,
    parent: UnsafeMutablePointer<Frame>?
  ) {
    let throughCell =
      switch binding.scope.kind {
      case .singleton, .cached, .weak: true
      case .graph: parent?.root.hasConcurrentGraph ?? false
      case .unique: false
      }
    self.init(
      observer, index: binding.index, scope: binding.scope,
      registeredAt: binding.registration.isDefault ? nil : binding.registration.location,
      reused: container.hasInstance(binding, argument, parent),
      made: throughCell ? (MadeRecord(index: binding.index), binding.serial) : nil, parent: parent)
  }

  /// Runs the step and tells the observer how it ended.
  func run<Value>(_ step: () throws -> Value) throws -> Value {
    do {
      let value = try made.map { made in try MadeRecord.$current.withValue(made.record) { try step() } } ?? step()
      end(making: value)
      return value
    } catch {
      end(failing: error)
      throw error
    }
  }

  /// Runs an asynchronous step and tells the observer how it ended.
  func runAsync<Value>(_ step: () async throws -> Value) async throws -> Value {
    do {
      let value: Value
      if let made {
        value = try await MadeRecord.$current.withValue(made.record) { try await step() }
      } else {
        value = try await step()
      }
      end(making: value)
      return value
    } catch {
      end(failing: error)
      throw error
    }
  }

  /// Whether the step made its instance: what its record says, for one that made it through a
  /// cell; else whether there was none when it began.
  private var createdInstance: Bool {
    guard let made else { return !reused }
    return made.record.serial.load(ordering: .relaxed) == made.serial
  }

  /// Tells the observer that the step gave `value`; a validation run also notes the instance
  /// (see ``ValidationRecorder/Tap/record(_:index:requester:error:instance:created:)``).
  private func end<Value>(making value: Value) {
    end(failing: nil) { .of(value) }
  }

  /// `made` is asked only by a validation run, and only for a step that gave an instance.
  private func end(failing error: (any Error)?, made: () -> MadeInstance? = { nil }) {
    let table = KeyTable.shared
    let event = ResolutionEvent(
      dependency: table.descriptor(index).reference,
      requestedBy: requester.map { table.descriptor($0).reference },
      scope: scope,
      registeredAt: registeredAt,
      depth: depth,
      duration: ContinuousClock.now - start,
      outcome: error != nil ? .failed : createdInstance ? .created : .reused)
    guard let step = observer as? ValidationRecorder.Tap else { return Self.callingBack { observer.didResolve(event) } }
    step.record(
      event, index: index, requester: requester, error: error, instance: error == nil ? made() : nil,
      created: event.outcome == .created)
  }
}

/// Stands in for an observer that went away between planning and observing.
private struct SilentObserver: ResolutionObserver {
  func didResolve(_ event: ResolutionEvent) {}
}

/// An error's explanation, as text (`ResolutionError.underlying`).
private struct MismatchDescription: Error, CustomStringConvertible {
  let text: String
  var description: String { text }
}

/// An identifier of the calling thread.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
  UInt(bitPattern: pthread_self())
  #else
  UInt(pthread_self())
  #endif
}

/// What a key that takes an argument was asked for again, closing a cycle: said in the error, as
/// the key's name alone cannot tell the loop from a walk over other arguments.
struct RepeatedArgument: Error, CustomStringConvertible {
  let description: String

  /// Nil for a key without an argument.
  init?(_ type: Any.Type, at address: UnsafeRawPointer?) {
    guard let address, type != Void.self else { return nil }
    description = "asked again for the same argument, \(ArgumentText.of(type, at: address, limit: 80))"
  }
}

/// How messages show an argument a step was made for.
enum ArgumentText {
  /// How many characters of an argument a path or a disposal failure shows.
  static let stepLimit = 24

  /// An argument as a step shows it: `\.profile(7)`.
  static func of(_ argument: any Sendable) -> String { String(describing: argument).shortened(to: stepLimit) }

  /// The `description` of the `type` value at `address`, cut to `limit` characters.
  static func of(_ type: Any.Type, at address: UnsafeRawPointer, limit: Int) -> String {
    func shown<T>(_: T.Type) -> String { String(describing: address.load(as: T.self)) }
    return _openExistential(type, do: shown).shortened(to: limit)
  }

  /// The argument of each step, as a path shows it; nil when no step took one (nearly every
  /// path). Read while the steps run: a frame points to its argument only for as long as its
  /// step runs.
  static func path(_ steps: [(index: Int, container: ObjectIdentifier, argument: UnsafeRawPointer?)]) -> [String?]? {
    guard steps.contains(where: { $0.argument != nil }) else { return nil }
    let table = KeyTable.shared
    return steps.map { step in
      guard let address = step.argument, let type = table.descriptor(step.index).argumentType else { return nil }
      return of(type, at: address, limit: stepLimit)
    }
  }
}
