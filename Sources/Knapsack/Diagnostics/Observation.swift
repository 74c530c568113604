/// Receives every resolution made through a container it is installed on.
///
/// Install one with ``Container/observe(_:)``. While no observer is installed, resolutions
/// pay nothing for the feature. ``ResolutionTracer`` is a ready observer that prints a tree.
/// What an observer resolves from inside its own callbacks is not observed. A callback is no
/// factory: an ``Injected`` or ``LazyInjected`` property of an instance it makes resolves from
/// ``Container/current``, as outside any factory.
public protocol ResolutionObserver: Sendable {
  /// Called before a dependency is resolved, with its depth in the resolution (0 = top level).
  func willResolve(_ dependency: DependencyReference, depth: Int)
  /// Called after a dependency was resolved.
  func didResolve(_ event: ResolutionEvent)
}

extension ResolutionObserver {
  /// Does nothing.
  public func willResolve(_ dependency: DependencyReference, depth: Int) {}
}

/// One finished resolution, as an observer sees it.
public struct ResolutionEvent: Sendable, Hashable {
  /// Whether the factory ran or an existing instance was returned.
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// The factory ran.
    case created
    /// An existing shared instance was returned.
    case reused
    /// The resolution threw; ``ResolutionEvent/duration`` is the time until it did.
    case failed
  }

  /// What was resolved.
  public let dependency: DependencyReference
  /// The dependency whose factory asked for it, or nil at the top level.
  public let requestedBy: DependencyReference?
  /// The scope of the registration that served it.
  public let scope: Scope
  /// Where that registration was made, or nil for a key's default.
  public let registeredAt: CodeLocation?
  /// 0 for a top-level resolution, 1 for its direct dependencies, and so on.
  public let depth: Int
  /// How long the resolution took, its dependencies included.
  public let duration: Duration
  /// Whether the factory ran.
  public let outcome: Outcome

  /// Creates an event.
  public init(
    dependency: DependencyReference, requestedBy: DependencyReference?, scope: Scope, registeredAt: CodeLocation?,
    depth: Int, duration: Duration, outcome: Outcome
  ) {
    self.dependency = dependency
    self.requestedBy = requestedBy
    self.scope = scope
    self.registeredAt = registeredAt
    self.depth = depth
    self.duration = duration
    self.outcome = outcome
  }
}

extension Container {
  /// Installs `observer` on this container (replacing any earlier one); it also sees
  /// resolutions in child containers and override scopes made from this one. Pass nil to remove it.
  ///
  /// A shared instance that a parent keeps, resolved through this container, is one step here
  /// (created or reused); what its factory resolves runs in the parent, and the parent's
  /// observer sees that.
  public func observe(_ observer: (any ResolutionObserver)?) {
    state.withLock { $0.observer = observer }
    invalidatePlans()
  }
}
