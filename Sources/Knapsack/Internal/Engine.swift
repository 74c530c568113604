public import Synchronization

extension Container {
  // MARK: Entry

  /// The container that should serve a top-level resolution: an override scope's overlay of
  /// this container if a ``withOverrides(_:operation:)-(_,()->R)`` scope is open in this task.
  @usableFromInline
  func servingContainer(_ frame: Frame?) -> Container {
    guard frame == nil, openOverrideScopes.load(ordering: .relaxed) != 0 else { return self }
    return overrideOverlay() ?? self
  }

  @usableFromInline
  func overrideOverlay() -> Container? {
    guard let scope = OverrideScope.current else { return nil }
    if let overlay, overlay.scope == ObjectIdentifier(scope) { return nil }
    return scope.overlay(for: self)
  }

  /// The cached plan for `index`, or a fresh one.
  @inline(__always)
  func withSlot<R>(_ index: Int, _ body: (Slot) throws -> R) rethrows -> R {
    if let unmanaged = slots.load(index) {
      let current = planGeneration.load(ordering: .relaxed)
      let hit = unmanaged._withUnsafeGuaranteedRef { $0.generation == current }
      if hit { return try unmanaged._withUnsafeGuaranteedRef(body) }
    }
    return try body(plan(index))
  }

  // MARK: Synchronous

  /// Resolves `index` as `Value`. Inlined into the caller so that a singleton that already
  /// exists costs two atomic loads and no generic dispatch.
  @inlinable
  func resolveValue<Value: Sendable>(_ index: Int, _ frame: Frame?) throws -> Value {
    if let box = existingSingleton(index, frame) {
      return Unmanaged<Box<Value>>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value }
    }
    return try resolveUncached(index, frame)
  }

  /// The box of an already-made singleton for `index`, if the cached plan is current, nothing
  /// observes it and no override scope could apply.
  @usableFromInline
  func existingSingleton(_ index: Int, _ frame: Frame?) -> UnsafeRawPointer? {
    if frame == nil, openOverrideScopes.load(ordering: .relaxed) != 0 { return nil }
    guard let unmanaged = slots.load(index) else { return nil }
    let current = planGeneration.load(ordering: .relaxed)
    return unmanaged._withUnsafeGuaranteedRef { slot in
      guard slot.generation == current, !slot.isObserved, let binding = slot.binding else { return nil }
      return UnsafeRawPointer(bitPattern: binding.singleton.load(ordering: .acquiring))
    }
  }

  /// Everything but an existing singleton. Inlinable so that the client specializes it: the
  /// factory's and the value's types are then known statically, with no generic metadata
  /// look-ups at run time.
  @inlinable
  func resolveUncached<Value: Sendable>(_ index: Int, _ frame: Frame?) throws -> Value {
    if frame == nil, openOverrideScopes.load(ordering: .relaxed) != 0, let overlay = overrideOverlay() {
      return try overlay.resolvePlanned(index, ThreadFrame.current)
    }
    return try resolvePlanned(index, frame ?? ThreadFrame.current)
  }

  /// Resolves `index` in this very container (override scopes already applied).
  @inlinable
  func resolvePlanned<Value: Sendable>(_ index: Int, _ frame: Frame?) throws -> Value {
    if let unmanaged = slots.load(index) {
      let current = planGeneration.load(ordering: .relaxed)
      if unmanaged._withUnsafeGuaranteedRef({ $0.generation == current }) {
        return try unmanaged._withUnsafeGuaranteedRef { try resolve(through: $0, index, frame) }
      }
    }
    return try resolve(through: plan(index), index, frame)
  }

  @inlinable
  func resolve<Value: Sendable>(through slot: Slot, _ index: Int, _ frame: Frame?) throws -> Value {
    if let binding = slot.binding, !slot.isObserved {
      if let value = binding.loadSingleton(Value.self) { return value }
      return try instance(of: binding, frame)
    }
    return try resolveSlowly(slot, index, frame)
  }

  @usableFromInline
  func resolveSlowly<Value: Sendable>(_ slot: Slot, _ index: Int, _ frame: Frame?) throws -> Value {
    if let binding = slot.binding {
      guard let observer = slot.observer else { return try instance(of: binding, frame) }
      return try observe(binding, observer, frame) { try instance(of: binding, frame) }
    }
    // The owning container reports a delegated resolution itself, if it is observed too.
    if let delegate = slot.delegate { return try delegate.resolveValue(index, frame) }
    throw failure(slot.failure ?? .notRegistered, index, frame)
  }

  @inlinable
  func instance<Value: Sendable>(of binding: Binding, _ frame: Frame?) throws -> Value {
    switch binding.scope.kind {
    case .unique: return try create(binding, Frame(index: binding.index, parent: frame, in: self))
    case .graph: return try graphInstance(of: binding, frame)
    case .weak, .cached, .singleton: return try scopedInstance(of: binding, frame)
    }
  }

  /// Shared with everything else resolved during the same top-level resolution.
  @inlinable
  func graphInstance<Value: Sendable>(of binding: Binding, _ frame: Frame?) throws -> Value {
    guard let root = frame?.root else {
      return try create(binding, Frame(index: binding.index, parent: frame, in: self))
    }
    if let value = root.graphValue(for: binding, as: Value.self) { return value }
    let value: Value = try create(binding, Frame(index: binding.index, parent: frame, in: self))
    root.storeGraphValue(value, for: binding)
    return value
  }

  /// Weak, cached and singleton instances.
  @usableFromInline
  func scopedInstance<Value: Sendable>(of binding: Binding, _ frame: Frame?) throws -> Value {
    switch binding.scope.kind {
    case .unique, .graph:
      return try instance(of: binding, frame)
    case .weak:
      if let value = binding.state.withLock({ $0.weakInstance }) as? Value { return value }
      let value: Value = try create(binding, Frame(index: binding.index, parent: frame, in: self))
      return binding.state.withLock { state in
        if let raced = state.weakInstance as? Value { return raced }
        state.weakInstance = value as AnyObject
        return value
      }
    case .cached, .singleton:
      return try sharedInstance(of: binding, frame)
    }
  }

  private enum CreationDecision {
    case retry
    case create
    case wait
    case cycle([Int])
  }

  /// Decides what a resolution that wants `binding`'s shared instance does: use the one that
  /// appeared meanwhile, create it (becoming the creator), wait for the creator, or report the
  /// cycle it would close. A synchronous creator (`thread` given) also takes the creation lock
  /// that waiting threads block on.
  private func claimCreation(
    of binding: Binding, root: ObjectIdentifier, thread: UInt?, path: [Int]
  ) -> CreationDecision {
    binding.state.withLock { state in
      if binding.scope == .cached ? state.cached != nil : binding.singleton.load(ordering: .acquiring) != 0 {
        return .retry
      }
      if let creator = state.creator {
        if creator.root == root || (thread != nil && creator.thread == thread) { return .cycle(creator.path) }
        return .wait
      }
      state.creator = (root, thread, path)
      if thread != nil { binding.creationLock.lock() }
      return .create
    }
  }

  /// A singleton or cached instance: made exactly once, however many threads ask at once.
  private func sharedInstance<Value: Sendable>(of binding: Binding, _ frame: Frame?) throws -> Value {
    let creationFrame = Frame(index: binding.index, parent: frame, in: self)
    let root = ObjectIdentifier(creationFrame.root)
    let thread = currentThreadID()
    while true {
      if let value = binding.storedInstance(Value.self) { return value }
      let decision = claimCreation(of: binding, root: root, thread: thread, path: creationFrame.path)
      switch decision {
      case .retry:
        continue
      case .cycle(let creatorPath):
        throw cycle(creatorPath, creationFrame)
      case .wait:
        if let loop = WaitGraph.shared.beginWait(root: root, for: binding) {
          throw crossResolutionCycle(loop, binding, frame)
        }
        binding.creationLock.lock()
        binding.creationLock.unlock()
        WaitGraph.shared.endWait(root: root)
      case .create:
        beginCreating()
        defer {
          binding.state.withLock { $0.creator = nil }
          binding.creationLock.unlock()
          endCreating()
        }
        let value: Value = try create(binding, creationFrame)
        binding.publish(value)
        recordCreated(value, by: binding)
        return value
      }
    }
  }

  /// Runs the factory (and decorators) of `binding` in `frame`.
  @inlinable
  func create<Value: Sendable>(_ binding: Binding, _ frame: Frame) throws -> Value {
    try checkCreation(binding, frame, of: Value.self, .sync)
    let maker = unsafeDowncast(binding.registration.maker, to: SyncMaker<Value>.self)
    let previous = ThreadFrame.enter(frame)
    defer {
      ThreadFrame.restore(previous)
      frame.finish()
    }
    let resolver = Resolver(container: self, frame: frame)
    do {
      let value = try maker.make(resolver)
      return binding.decorators.isEmpty ? value : try decorate(value, binding, resolver)
    } catch {
      throw factoryError(error, binding, frame)
    }
  }

  /// Throws if making `binding` in `frame` would close a cycle, must be skipped by validation,
  /// or needs another kind of factory than `kind` producing `type` (from `argument`, for an
  /// argument factory).
  @usableFromInline
  func checkCreation(
    _ binding: Binding, _ frame: Frame, of type: Any.Type, _ kind: MakerKind, argument: Any.Type? = nil
  ) throws {
    if let parent = frame.parent, parent.contains(binding.index, in: frame.container) {
      throw failure(.cycle, binding.index, frame)
    }
    if isValidationCopy, binding.registration.validation == .skip { throw ValidationSkipped(index: binding.index) }
    guard binding.registration.kind == kind, binding.registration.valueType == ObjectIdentifier(type) else {
      let expected =
        switch kind {
        case .sync: "a synchronous factory of \(type)"
        case .async: "an asynchronous factory of \(type)"
        case .mainActor: "a main-actor factory of \(type)"
        case .argument: "a factory of \(type) taking \(argument.map { "\($0)" } ?? "an argument")"
        }
      throw mismatch(binding, frame, expected: expected)
    }
  }

  /// What a factory's error becomes: resolution errors pass through, others are wrapped with
  /// the dependency and path.
  @usableFromInline
  func factoryError(_ error: any Error, _ binding: Binding, _ frame: Frame) -> any Error {
    if error is ResolutionError || error is ValidationSkipped { return error }
    return failure(.factoryFailed, binding.index, frame, underlying: error)
  }

  @usableFromInline
  func decorate<Value: Sendable>(_ value: Value, _ binding: Binding, _ resolver: Resolver) throws -> Value {
    if binding.decorators.isEmpty { return value }
    var value = value
    for decoration in binding.decorators {
      guard let decorated = try decoration.apply(resolver, value) as? Value else {
        throw mismatch(
          binding, resolver.resolutionContext.frame ?? Frame(index: binding.index, parent: nil, in: self),
          expected: "a decorator returning \(Value.self)")
      }
      value = decorated
    }
    return value
  }

  // MARK: Asynchronous

  func resolveValueAsync<Value: Sendable>(_ index: Int, _ frame: Frame?) async throws -> Value {
    let container = servingContainer(frame)
    let slot = container.withSlot(index) { $0 }
    if let binding = slot.binding {
      if slot.observer == nil, let value = binding.loadSingleton(Value.self) { return value }
      guard let observer = slot.observer else { return try await container.instanceAsync(of: binding, frame) }
      observer.willResolve(KeyTable.shared.descriptor(binding.index).reference, depth: (frame?.depth ?? -1) + 1)
      let start = ContinuousClock.now
      let reused = container.hasInstance(binding, frame)
      do {
        let value: Value = try await container.instanceAsync(of: binding, frame)
        container.report(binding, observer, frame, start: start, reused: reused)
        return value
      } catch {
        container.report(binding, observer, frame, start: start, reused: reused, failed: true)
        throw error
      }
    }
    if let delegate = slot.delegate { return try await delegate.resolveValueAsync(index, frame) }
    throw container.failure(slot.failure ?? .notRegistered, index, frame)
  }

  private func instanceAsync<Value: Sendable>(of binding: Binding, _ frame: Frame?) async throws -> Value {
    guard binding.registration.isAsync else { return try instance(of: binding, frame) }
    switch binding.scope.kind {
    case .unique:
      return try await createAsync(binding, Frame(index: binding.index, parent: frame, in: self))
    case .graph:
      let root = frame?.root
      if let root, let value = root.graphValue(for: binding, as: Value.self) { return value }
      let value: Value = try await createAsync(binding, Frame(index: binding.index, parent: frame, in: self))
      root?.storeGraphValue(value, for: binding)
      return value
    case .weak:
      if let value = binding.state.withLock({ $0.weakInstance }) as? Value { return value }
      let value: Value = try await createAsync(binding, Frame(index: binding.index, parent: frame, in: self))
      return binding.state.withLock { state in
        if let raced = state.weakInstance as? Value { return raced }
        state.weakInstance = value as AnyObject
        return value
      }
    case .cached, .singleton:
      return try await sharedInstanceAsync(of: binding, frame)
    }
  }

  private func sharedInstanceAsync<Value: Sendable>(of binding: Binding, _ frame: Frame?) async throws -> Value {
    let creationFrame = Frame(index: binding.index, parent: frame, in: self)
    let root = ObjectIdentifier(creationFrame.root)
    while true {
      if let value = binding.storedInstance(Value.self) { return value }
      let decision = claimCreation(of: binding, root: root, thread: nil, path: creationFrame.path)
      switch decision {
      case .retry:
        continue
      case .cycle(let creatorPath):
        throw cycle(creatorPath, creationFrame)
      case .wait:
        if let loop = WaitGraph.shared.beginWait(root: root, for: binding) {
          throw crossResolutionCycle(loop, binding, frame)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow = binding.state.withLock { state in
            if state.creator == nil { return true }
            state.asyncWaiters.append(continuation)
            return false
          }
          if resumeNow { continuation.resume() }
        }
        WaitGraph.shared.endWait(root: root)
      case .create:
        beginCreating()
        defer { endCreating() }
        let result: Result<Value, any Error>
        do {
          result = .success(try await createAsync(binding, creationFrame))
        } catch {
          result = .failure(error)
        }
        if case .success(let value) = result {
          binding.publish(value)
          recordCreated(value, by: binding)
        }
        let waiters = binding.state.withLock { state in
          state.creator = nil
          defer { state.asyncWaiters = [] }
          return state.asyncWaiters
        }
        for waiter in waiters { waiter.resume() }
        return try result.get()
      }
    }
  }

  private func createAsync<Value: Sendable>(_ binding: Binding, _ frame: Frame) async throws -> Value {
    guard binding.registration.kind == .async else { return try create(binding, frame) }
    try checkCreation(binding, frame, of: Value.self, .async)
    let maker = unsafeDowncast(binding.registration.maker, to: AsyncMaker<Value>.self)
    defer { frame.finish() }
    let resolver = Resolver(container: self, frame: frame)
    do {
      return try decorate(try await maker.make(resolver), binding, resolver)
    } catch let error as ResolutionError {
      throw error
    } catch let skipped as ValidationSkipped {
      throw skipped
    } catch {
      throw failure(.factoryFailed, binding.index, frame, underlying: error)
    }
  }

  // MARK: Main actor

  @MainActor
  func resolveOnMainActor<Value: Sendable>(_ index: Int, _ frame: Frame?) throws -> Value {
    let container = servingContainer(frame)
    let frame = frame ?? ThreadFrame.current
    let slot = container.withSlot(index) { $0 }
    if let delegate = slot.delegate { return try delegate.resolveOnMainActor(index, frame) }
    guard let binding = slot.binding else { throw container.failure(slot.failure ?? .notRegistered, index, frame) }
    slot.observer?.willResolve(KeyTable.shared.descriptor(binding.index).reference, depth: (frame?.depth ?? -1) + 1)
    let start = ContinuousClock.now
    let reused = binding.loadSingleton(Value.self) != nil
    do {
      let value: Value = try container.mainActorInstance(of: binding, frame)
      if let observer = slot.observer { container.report(binding, observer, frame, start: start, reused: reused) }
      return value
    } catch {
      if let observer = slot.observer {
        container.report(binding, observer, frame, start: start, reused: reused, failed: true)
      }
      throw error
    }
  }

  @MainActor
  private func mainActorInstance<Value: Sendable>(of binding: Binding, _ frame: Frame?) throws -> Value {
    let creationFrame = Frame(index: binding.index, parent: frame, in: self)
    guard binding.scope == .singleton else { return try createOnMainActor(binding, creationFrame) }
    if let value = binding.loadSingleton(Value.self) { return value }
    // The main actor runs one thing at a time, so an existing creator is this very resolution.
    if let creator = binding.state.withLock({ $0.creator }) { throw cycle(creator.path, creationFrame) }
    binding.state.withLock {
      $0.creator = (ObjectIdentifier(creationFrame.root), currentThreadID(), creationFrame.path)
    }
    defer { binding.state.withLock { $0.creator = nil } }
    let value: Value = try createOnMainActor(binding, creationFrame)
    binding.publish(value)
    recordCreated(value, by: binding)
    return value
  }

  @MainActor
  private func createOnMainActor<Value: Sendable>(_ binding: Binding, _ frame: Frame) throws -> Value {
    try checkCreation(binding, frame, of: Value.self, .mainActor)
    let maker = unsafeDowncast(binding.registration.maker, to: MainActorMaker<Value>.self)
    let previous = ThreadFrame.enter(frame)
    defer {
      ThreadFrame.restore(previous)
      frame.finish()
    }
    let resolver = Resolver(container: self, frame: frame)
    do {
      return try decorate(try maker.make(resolver), binding, resolver)
    } catch let error as ResolutionError {
      throw error
    } catch let skipped as ValidationSkipped {
      throw skipped
    } catch {
      throw failure(.factoryFailed, binding.index, frame, underlying: error)
    }
  }

  // MARK: Arguments

  func resolveValue<Argument, Value: Sendable>(_ index: Int, argument: Argument, _ frame: Frame?) throws -> Value {
    let container = servingContainer(frame)
    let frame = frame ?? ThreadFrame.current
    let slot = container.withSlot(index) { $0 }
    if let delegate = slot.delegate { return try delegate.resolveValue(index, argument: argument, frame) }
    guard let binding = slot.binding else { throw container.failure(slot.failure ?? .notRegistered, index, frame) }
    slot.observer?.willResolve(KeyTable.shared.descriptor(binding.index).reference, depth: (frame?.depth ?? -1) + 1)
    let start = ContinuousClock.now
    do {
      let value: Value = try container.makeWithArgument(
        binding, argument, Frame(index: index, parent: frame, in: container))
      if let observer = slot.observer { container.report(binding, observer, frame, start: start, reused: false) }
      return value
    } catch {
      if let observer = slot.observer {
        container.report(binding, observer, frame, start: start, reused: false, failed: true)
      }
      throw error
    }
  }

  private func makeWithArgument<Argument, Value: Sendable>(
    _ binding: Binding, _ argument: Argument, _ frame: Frame
  ) throws -> Value {
    let container = self
    let index = binding.index
    try checkCreation(
      binding, frame, of: Value.self, .argument(ObjectIdentifier(Argument.self)), argument: Argument.self)
    let maker = unsafeDowncast(binding.registration.maker, to: ArgumentMaker<Argument, Value>.self)
    let previous = ThreadFrame.enter(frame)
    defer {
      ThreadFrame.restore(previous)
      frame.finish()
    }
    let resolver = Resolver(container: container, frame: frame)
    let value: Value
    do {
      value = try container.decorate(try maker.make(resolver, argument), binding, resolver)
    } catch let error as ResolutionError {
      throw error
    } catch let skipped as ValidationSkipped {
      throw skipped
    } catch {
      throw container.failure(.factoryFailed, index, frame, underlying: error)
    }
    return value
  }

  // MARK: Observation

  func hasInstance(_ binding: Binding, _ frame: Frame?) -> Bool {
    switch binding.scope.kind {
    case .unique: false
    case .graph: frame?.root.hasGraphValue(for: binding) ?? false
    case .weak: binding.state.withLock { $0.weakInstance != nil }
    case .cached, .singleton: binding.hasSharedInstance
    }
  }

  private func observe<Value>(
    _ binding: Binding, _ observer: any ResolutionObserver, _ frame: Frame?, _ body: () throws -> Value
  ) rethrows -> Value {
    let start = ContinuousClock.now
    let reused = hasInstance(binding, frame)
    observer.willResolve(KeyTable.shared.descriptor(binding.index).reference, depth: (frame?.depth ?? -1) + 1)
    do {
      let value = try body()
      report(binding, observer, frame, start: start, reused: reused)
      return value
    } catch {
      report(binding, observer, frame, start: start, reused: reused, failed: true)
      throw error
    }
  }

  func report(
    _ binding: Binding, _ observer: any ResolutionObserver, _ frame: Frame?, start: ContinuousClock.Instant,
    reused: Bool,
    failed: Bool = false
  ) {
    let table = KeyTable.shared
    observer.didResolve(
      ResolutionEvent(
        dependency: table.descriptor(binding.index).reference,
        requestedBy: frame.map { table.descriptor($0.index).reference },
        scope: binding.scope,
        registeredAt: binding.registration.isDefault ? nil : binding.registration.location,
        depth: (frame?.depth ?? -1) + 1,
        duration: ContinuousClock.now - start,
        outcome: failed ? .failed : reused ? .reused : .created))
  }

  // MARK: Errors

  func failure(
    _ kind: ResolutionError.Kind, _ index: Int, _ frame: Frame?, path: [Int]? = nil, underlying: (any Error)? = nil
  ) -> ResolutionError {
    let table = KeyTable.shared
    let descriptor = table.descriptor(index)
    var indices = path ?? frame?.path ?? []
    if path == nil, indices.last != index { indices.append(index) }
    let registration = effectiveRegistration(index)?.0
    return ResolutionError(
      kind: kind,
      dependency: descriptor.reference,
      registeredAt: registration?.location,
      path: indices.map { table.descriptor($0).reference },
      underlying: underlying.map { String(describing: $0) })
  }

  /// A cycle across concurrent resolutions: this one (`frame`) waits for `binding`, whose
  /// creator waits for … a dependency this one is creating. The path is the simple loop.
  func crossResolutionCycle(_ loop: [Int], _ binding: Binding, _ frame: Frame?) -> ResolutionError {
    var path = (frame?.path ?? []) + loop
    if let last = path.last, let start = path.firstIndex(of: last), start < path.count - 1 {
      path = Array(path[start...])
    }
    return failure(.cycle, binding.index, frame, path: path)
  }

  /// A cycle found through a shared instance being created: the creator's path leads to the
  /// dependency, and this resolution's path leads back to it.
  func cycle(_ creatorPath: [Int], _ frame: Frame) -> ResolutionError {
    let mine = frame.path
    return failure(.cycle, frame.index, frame, path: mine.starts(with: creatorPath) ? mine : creatorPath + mine)
  }

  func mismatch(_ binding: Binding, _ frame: Frame, expected: String) -> ResolutionError {
    let registered =
      binding.registration.isAsync
      ? "an asynchronous factory: resolve it with `try await`" : "a factory of another kind"
    return failure(
      .factoryMismatch, binding.index, frame,
      underlying: MismatchDescription(text: "expected \(expected), found \(registered)"))
  }
}

private struct MismatchDescription: Error, CustomStringConvertible {
  let text: String
  var description: String { text }
}
