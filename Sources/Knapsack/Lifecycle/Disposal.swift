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
  /// Each instance is disposed exactly once, even if several tasks call this at once; they all
  /// wait for the same disposal. A shared instance whose factory is still running when disposal
  /// begins is waited for and disposed too. Every instance is disposed even if some fail; the failures are
  /// thrown together as a ``DisposalError``. After disposal, resolving from this container (or its
  /// children) throws ``ResolutionError/Kind/containerDisposed``.
  public func dispose() async throws {
    let task = state.withLock { state -> Task<[DisposalError.Failure], Never> in
      if let running = state.disposal { return running }
      state.disposed = true
      let task = Task { await self.disposeEverything() }
      state.disposal = task
      return task
    }
    invalidatePlans()
    let failures = await task.value
    if !failures.isEmpty { throw DisposalError(failures: failures) }
  }

  /// Whether ``dispose()`` was called on this container or one it descends from.
  public var isDisposedContainer: Bool { isDisposed }

  /// Whether instances to dispose of were created since the last disposal.
  var hasUndisposedInstances: Bool { state.withLock { !$0.created.isEmpty } }

  /// Disposes the instances created so far without marking the container disposed; used when an
  /// override scope ends, so that a `Lazy` made inside it can still resolve later. The
  /// dependencies it disposes (but an argument key's) are marked first: a resolution of one of
  /// them here that starts afterwards throws ``ResolutionError/Kind/containerDisposed`` instead
  /// of receiving the disposed instance (or splitting the singleton with a new one while older
  /// instances still hold the first).
  func disposeCreatedInstances() async -> [DisposalError.Failure] {
    await disposeInstances(endingScope: true)
  }

  private func disposeEverything() async -> [DisposalError.Failure] {
    var failures: [DisposalError.Failure] = []
    let children = state.withLock { $0.children.objects }
    for child in children.reversed() {
      do {
        try await child.dispose()
      } catch let error as DisposalError {
        failures += error.failures
      } catch {
        failures.append(
          DisposalError.Failure(
            dependency: DependencyReference(name: "child container", typeName: "Container", location: nil),
            error: "\(error)"))
      }
    }
    return failures + (await disposeInstances())
  }

  /// Disposes the instances created so far, newest first. `endingScope` marks their dependencies
  /// as disposed with the scope, in the same lock that takes them, before any is disposed.
  private func disposeInstances(endingScope: Bool = false) async -> [DisposalError.Failure] {
    var failures: [DisposalError.Failure] = []
    // A shared instance whose factory was already running when disposal began is disposed too:
    // wait for it (new resolutions fail from now on, so this ends when the factory returns).
    while state.withLock({ $0.creating }) > 0 {
      try? await Task.sleep(for: .milliseconds(1))
    }
    let created = state.withLock { state in
      defer { state.created = [] }
      if endingScope {
        // Not an argument key's: its instances are one per argument, and refusing the key would
        // refuse arguments the scope never made an instance for.
        let refused = state.created.map(\.dependency).filter { state.bindings[$0]?.registration.takesArgument != true }
        state.disposedWithScope.formUnion(refused)
      }
      return state.created
    }
    if endingScope, !created.isEmpty { invalidatePlans() }
    for entry in created.reversed() {
      do {
        if let dispose = entry.dispose {
          try await dispose(entry.instance)
        } else if let disposable = entry.instance as? any Disposable {
          try await disposable.dispose()
        }
      } catch {
        failures.append(
          DisposalError.Failure(dependency: KeyTable.shared.descriptor(entry.dependency).reference, error: "\(error)"))
      }
    }
    return failures
  }
}
