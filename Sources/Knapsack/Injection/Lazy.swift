import Synchronization

/// A dependency resolved on first use and kept after that.
///
/// Get one from a resolver, `r.lazy(\.cache)`, to defer an expensive dependency or to break a
/// cycle: the value is resolved from the same container (and override scope) when first read,
/// not while the factory that asked for it runs.
public struct Lazy<Value: Sendable>: Sendable {
  private let provider: Provider<Value>
  private let storage = LazyStorage<Value>()

  init(index: Int, context: ResolutionContext) {
    provider = Provider(index: index, context: context)
  }

  /// The value, resolved on first access. Concurrent first reads resolve once.
  public var value: Value {
    get throws { try storage.value { try provider.get() } }
  }
}

/// A way to resolve a dependency later, as often as needed.
///
/// Each ``get()`` resolves again, so the key's scope decides whether it is the same instance.
/// Get one from a resolver, `r.provider(\.session)`; it also breaks cycles.
public struct Provider<Value: Sendable>: Sendable {
  let index: Int
  let container: Container
  let scope: OverrideScope?

  init(index: Int, context: ResolutionContext) {
    self.index = index
    self.container = context.container
    self.scope = OverrideScope.current
  }

  /// Resolves the dependency now.
  ///
  /// It resolves in the override scope it was made in (or in none, if it was made outside any),
  /// whatever scope is open where it is called.
  public func get() throws -> Value {
    let open = openOverrideScopes.load(ordering: .relaxed) == 0 ? nil : OverrideScope.current
    if open === scope { return try container.resolveValue(index, nil) }
    return try OverrideScope.$current.withValue(scope) {
      openOverrideScopes.add(1, ordering: .relaxed)
      defer { openOverrideScopes.subtract(1, ordering: .relaxed) }
      return try container.resolveValue(index, nil)
    }
  }
}

/// The once-only storage behind ``Lazy`` and ``LazyInjected``.
final class LazyStorage<Value: Sendable>: Sendable {
  private let stored = Locked<Value?>(nil)
  private let creation = Locked<Void>(())

  func value(_ make: () throws -> Value) throws -> Value {
    if let value = stored.withLock({ $0 }) { return value }
    // One creator at a time; later readers find the stored value.
    return try creation.withLock { _ in
      if let value = stored.withLock({ $0 }) { return value }
      let value = try make()
      stored.withLock { $0 = value }
      return value
    }
  }
}
