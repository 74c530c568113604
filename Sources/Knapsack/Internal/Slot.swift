/// The planned route to one dependency in one container, cached in the container's slot table
/// until the plan generation changes.
@usableFromInline
final class Slot: Sendable {
  @usableFromInline let generation: UInt64
  /// Make the dependency here, with this binding's storage.
  @usableFromInline let binding: Binding?
  /// ``binding``, unmanaged (``binding`` keeps it alive), so that the fast path borrows it
  /// without retaining it.
  @usableFromInline let borrowedBinding: Unmanaged<Binding>?
  /// Ask this container instead (an ancestor that owns a shared instance).
  @usableFromInline let delegate: Container?
  /// The override scope to bind while ``delegate`` resolves, when it is an enclosing scope's copy
  /// (see `Container.enclosingScopeCopy(keeping:)`): what its factory resolves otherwise than
  /// through its resolver (a captured container, a `Lazy` it keeps) must be that scope's too.
  let delegateScope: OverrideScope?
  /// Why neither is possible.
  @usableFromInline let failure: ResolutionError.Kind?
  /// Told about every resolution through this slot; nil on the fast path.
  @usableFromInline let observer: (any ResolutionObserver)?
  /// Whether ``observer`` is set, readable without copying the existential.
  @usableFromInline let isObserved: Bool
  /// The cell of ``binding``'s singleton when nothing observes it: what the fast path reads.
  /// Unmanaged, because ``binding`` keeps it alive, and so that reading it retains nothing.
  @usableFromInline let singletonCell: Unmanaged<SharedCell>?
  /// Whether a top-level resolution may run ``binding``'s factory at once (see
  /// ``Container/makeDirect(_:)``): nothing observes it, it keeps no instance beyond the
  /// resolution (unique, or graph, which is unique at the top level), it has no decorators, and
  /// its factory is synchronous.
  @usableFromInline let isDirect: Bool

  init(
    generation: UInt64, binding: Binding? = nil, delegate: Container? = nil, delegateScope: OverrideScope? = nil,
    failure: ResolutionError.Kind? = nil, observer: (any ResolutionObserver)? = nil
  ) {
    self.delegateScope = delegateScope
    self.generation = generation
    self.binding = binding
    self.borrowedBinding = binding.map { Unmanaged.passUnretained($0) }
    self.delegate = delegate
    self.failure = failure
    self.observer = observer
    self.isObserved = observer != nil
    self.singletonCell =
      observer == nil && binding?.scope.kind == .singleton ? binding.map { Unmanaged.passUnretained($0.cell) } : nil
    self.isDirect =
      observer == nil
      && binding.map {
        ($0.scope.kind == .unique || $0.scope.kind == .graph) && $0.decorators.isEmpty
          && $0.registration.kind == .sync
      } ?? false
  }
}
