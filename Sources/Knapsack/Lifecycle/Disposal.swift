import Synchronization

/// A value that holds a resource and must be closed when its container goes away: a database
/// connection, a file handle, a server.
///
/// When a container is disposed, it calls ``dispose()`` on every shared instance it created
/// (singleton and cached scopes) that conforms, in reverse order of creation, exactly once.
public protocol Disposable: Sendable {
  /// Releases the resource. Errors are collected and reported by ``Container/dispose()``.
  func dispose() async throws
}

extension Container {
  /// Disposes this container: its live child containers first, then every shared instance it
  /// created that is ``Disposable`` or was registered with a `dispose` closure, in reverse order
  /// of creation.
  ///
  /// Each instance is disposed exactly once, even if several tasks call this at once (they all
  /// wait for the same disposal) or several shared keys hand it out. A shared instance whose
  /// factory is still running when disposal begins is waited for and disposed too, and so are the
  /// cached instances ``resetCached()`` dropped and is disposing in the background. Every
  /// instance is disposed even if some fail; the failures are thrown together as a
  /// ``DisposalError`` (a child disposed on its own before is not disposed, nor reported,
  /// again). After disposal, resolving from this container (or its children) throws
  /// ``ResolutionError/Kind/containerDisposed``.
  ///
  /// Called inside an override scope (such as a test under the `.overrides` trait), it also
  /// disposes what the scope's copies of this container and of its children made there, which
  /// is what this container handed out in the scope; the scope would otherwise dispose them
  /// only when it ends.
  ///
  /// Called from within this container's own disposal (a ``Disposable`` whose `dispose()` closes
  /// the container that made it, or its parent's), it returns at once: waiting would wait for the
  /// disposal that is waiting for it. That disposal goes on when it returns. Called from within
  /// the disposal of a container below this one (a child disposed on its own, whose instance
  /// closes its parent), it begins this container's disposal and returns at once: that disposal
  /// waits for the child's, and goes on when the child's ends. Called and awaited by a factory
  /// while it makes a shared instance (singleton, cached, weak or graph-scoped) of this container
  /// or of one below it, it never returns: the disposal waits for that instance, whose factory
  /// waits for the disposal. Dispose from outside the factory, or in a task it does not await.
  public func dispose() async throws {
    if let running = Self.disposalsRunning {
      if running.contains(self) { return }
      // Called from within the disposal of a container below this one (a session's instance that
      // closes the app's container when the session alone is disposed): this disposal would
      // wait for that one, which waits for this call. It is begun, and goes on when that one ends.
      if running.containsDescendant(of: self) {
        _ = beginDisposal(DisposedInstances(), copies: copiesInScope())
        return
      }
    }
    let copies = copiesInScope()
    let disposal = beginDisposal(DisposedInstances(), copies: copies)
    var failures = await disposal.task.value
    // Begun by a call from another scope: what this scope's copies made is disposed too, once the
    // disposal all callers wait for is done.
    if !disposal.started { failures += await Self.disposeCreatedInstances(of: copies) }
    if !failures.isEmpty { throw DisposalError(failures: failures) }
  }

  /// The copies of this container and of its descendants in the override scope open here and in
  /// the scopes it is nested in, innermost scope first, deeper copies first: what they made is
  /// newer than what the container itself made, and made from it.
  private func copiesInScope() -> [Container] {
    var copies: [Container] = []
    var scope = OverrideScope.active
    while let current = scope {
      copies += current.existingOverlays(from: self)
      scope = current.enclosing
    }
    return copies
  }

  /// Marks this container disposed and starts disposing it, unless that was done already:
  /// returns the disposal, and whether this call started it. `disposed` holds what was disposed
  /// by the disposal of the container this one belongs to, if any; `copies` are this container's
  /// copies in the caller's override scopes (see ``copiesInScope()``), disposed first.
  private func beginDisposal(
    _ disposed: DisposedInstances, copies: [Container] = []
  ) -> (task: Task<[DisposalError.Failure], Never>, started: Bool) {
    let disposal = state.withLock { state -> (task: Task<[DisposalError.Failure], Never>, started: Bool) in
      if let running = state.disposal { return (running, false) }
      state.disposed = true
      let task = Task {
        await Self.$disposalsRunning.withValue(DisposalChain(self, outer: Self.disposalsRunning)) {
          await self.disposeEverything(disposed, copies: copies)
        }
      }
      state.disposal = task
      return (task, true)
    }
    // Below a container already disposed, nothing changes for a plan: that container's
    // invalidation reached this one and those below it, and a plan made since sees it disposed.
    // (Each child of a long line invalidating the line below it took quadratic time.)
    if parent?.isDisposed != true { invalidatePlans() }
    return disposal
  }

  /// The containers whose disposal the current task runs, innermost first: bound in each
  /// disposal's task, and so inherited by the tasks it starts (a child's disposal, a task a
  /// `dispose()` starts). A ``dispose()`` of one of them from there returns at once.
  @TaskLocal static var disposalsRunning: DisposalChain?

  /// Whether instances to dispose of were created since the last disposal.
  var hasUndisposedInstances: Bool { state.withLock { !$0.created.isEmpty } }

  /// Disposes the instances created so far without marking the container disposed; used when an
  /// override scope ends, so that a `Lazy` made inside it can still resolve later. The
  /// dependencies it disposes (but an argument key's) are marked first: a resolution of one of
  /// them here that starts afterwards throws ``ResolutionError/Kind/containerDisposed`` instead
  /// of receiving the disposed instance (or splitting the singleton with a new one while older
  /// instances still hold the first).
  func disposeCreatedInstances() async -> [DisposalError.Failure] {
    await disposeInstances(DisposedInstances(), endingScope: true)
  }

  /// ``disposeCreatedInstances()`` of each of `copies` in turn (an override scope's, deeper ones
  /// first).
  ///
  /// In a task of its own, as a container's disposal is: the caller's task may be cancelled (a
  /// test cut short by its time limit, whose `.overrides` scope then ends), and a `dispose()` that
  /// awaits something cancellable would fail at once in it, leaving its resource open.
  static func disposeCreatedInstances(of copies: [Container]) async -> [DisposalError.Failure] {
    guard !copies.isEmpty else { return [] }
    return await Task {
      var failures: [DisposalError.Failure] = []
      for copy in copies { failures += await copy.disposeCreatedInstances() }
      return failures
    }.value
  }

  private func disposeEverything(_ disposed: DisposedInstances, copies: [Container]) async -> [DisposalError.Failure] {
    var failures: [DisposalError.Failure] = []
    failures += await Self.disposeCreatedInstances(of: copies)
    let children = state.withLock { $0.children.objects }
    for child in children.reversed() {
      // A child that someone else began disposing is waited for, but its failures were thrown
      // to that caller: they are not reported twice.
      let disposal = child.beginDisposal(disposed)
      let childFailures = await disposal.task.value
      if disposal.started { failures += childFailures }
    }
    return failures + (await disposeInstances(disposed))
  }

  /// Disposes the instances created so far, newest first (each object is recorded once, see
  /// ``recordCreated(_:by:)``), but those that `disposed` says a child already disposed (an
  /// instance two containers' factories returned without making it, such as `Analytics.shared`,
  /// made first in the child). `endingScope` marks their dependencies as disposed with the
  /// scope, in the same lock that takes them, before any is disposed.
  private func disposeInstances(
    _ disposed: DisposedInstances, endingScope: Bool = false
  ) async -> [DisposalError.Failure] {
    var failures: [DisposalError.Failure] = []
    // A shared instance whose factory was already running when disposal began is disposed too:
    // wait for it (new resolutions fail from now on, so this ends when the factory returns).
    while state.withLock({ !$0.creating.isEmpty }) {
      try? await Task.sleep(for: .milliseconds(1))
    }
    let created = state.withLock { state in
      defer {
        state.created = []
        state.createdObjects = []
        state.heldBeyondReset = []
      }
      if endingScope {
        // What the copy handed out is refused from now on: a key by its registration, an
        // argument key per argument (refusing the key would refuse arguments the scope never
        // made an instance for). Not what a failed decorator left, which nobody received.
        var endedArguments: [Int: Set<ArgumentIdentity>] = [:]
        for entry in state.created where entry.isShared {
          guard let binding = state.bindings[entry.dependency] else { continue }
          if !binding.registration.takesArgument {
            state.disposedWithScope[entry.dependency] = binding.registration
          } else if let argument = entry.argument.flatMap({ InstanceKey.hashable($0) }) {
            // (An argument that is not `Hashable` has no instance kept to refuse.)
            endedArguments[entry.dependency, default: []].insert(argument)
          }
        }
        for (dependency, arguments) in endedArguments { state.bindings[dependency]?.endArguments(arguments) }
      }
      return state.created
    }
    if endingScope, !created.isEmpty { invalidatePlans() }
    for entry in created.reversed() {
      if let object = objectIdentity(of: entry.instance), !disposed.insert(entry.instance, object) {
        continue
      }
      do {
        try await entry.disposeInstance()
      } catch {
        failures.append(
          DisposalError.Failure(
            dependency: KeyTable.shared.descriptor(entry.dependency).reference, error: "\(error)",
            argument: entry.argument.map(ArgumentText.of)))
      }
    }
    // What cache resets dropped, made before what was kept, is closed last: what the background
    // has not begun is disposed here, and what it is disposing is waited for.
    await Self.disposeDropped(state)
    while state.withLock({ $0.draining }) > 0 {
      try? await Task.sleep(for: .milliseconds(1))
    }
    return failures
  }
}

extension Container.Disposal {
  /// Disposes the instance: with the registration's `dispose:` closure, else as ``Disposable``.
  func disposeInstance() async throws {
    if let dispose {
      try await dispose(instance)
    } else if let disposable = instance as? any Disposable {
      try await disposable.dispose()
    }
  }
}

/// The objects one disposal (a container's, with its children's) has disposed, kept alive until
/// it ends so that no other object reuses their identity meanwhile.
final class DisposedInstances: Sendable {
  private let objects = Locked<[ObjectIdentifier: any Sendable]>([:])

  /// Notes `instance` (whose identity is `object`) as disposed; false if it was already.
  func insert(_ instance: any Sendable, _ object: ObjectIdentifier) -> Bool {
    objects.withLock { objects in
      guard objects[object] == nil else { return false }
      objects[object] = instance
      return true
    }
  }
}

/// The containers whose disposal a task runs (``Container/disposalsRunning``), innermost first: a
/// list that each nested disposal extends by one link, so that a line of nested children is
/// disposed in linear time (an array copied at each level took quadratic time).
final class DisposalChain: Sendable {
  let container: Container
  /// The chain this one extends. Mutable only so that ``deinit`` can unlink it.
  private let outer: Mutex<DisposalChain?>

  init(_ container: Container, outer: DisposalChain?) {
    self.container = container
    self.outer = Mutex(outer)
  }

  /// Whether `container` is in the chain.
  func contains(_ container: Container) -> Bool {
    var link: DisposalChain? = self
    while let current = link {
      if current.container === container { return true }
      link = current.outer.withLock { $0 }
    }
    return false
  }

  /// Whether a container in the chain descends from `ancestor` (each container above the chain's
  /// is looked at once).
  func containsDescendant(of ancestor: Container) -> Bool {
    var seen: Set<ObjectIdentifier> = []
    var link: DisposalChain? = self
    while let current = link {
      var above = current.container.parent
      while let container = above, seen.insert(ObjectIdentifier(container)).inserted {
        if container === ancestor { return true }
        above = container.parent
      }
      link = current.outer.withLock { $0 }
    }
    return false
  }

  /// Frees the links that only this one held one by one: freed recursively, a chain as long as
  /// a line of ten thousand nested children (kept past its disposals by a task one of them
  /// started) would take a stack frame per link.
  deinit {
    var next = outer.withLock { $0.take() }
    while var link = next {
      next = nil
      guard isKnownUniquelyReferenced(&link) else { return }
      next = link.outer.withLock { $0.take() }
    }
  }
}
