/// The planned route to one dependency in one container, cached in the container's slot table
/// until the plan generation changes.
final class Slot: Sendable {
  let generation: UInt64
  /// Make the dependency here, with this binding's storage.
  let binding: Binding?
  /// Ask this container instead (an ancestor that owns a shared instance).
  let delegate: Container?
  /// Why neither is possible.
  let failure: ResolutionError.Kind?
  /// Told about every resolution through this slot; nil on the fast path.
  let observer: (any ResolutionObserver)?
  /// Whether ``observer`` is set, readable without copying the existential.
  let isObserved: Bool

  init(
    generation: UInt64, binding: Binding? = nil, delegate: Container? = nil, failure: ResolutionError.Kind? = nil,
    observer: (any ResolutionObserver)? = nil
  ) {
    self.generation = generation
    self.binding = binding
    self.delegate = delegate
    self.failure = failure
    self.observer = observer
    self.isObserved = observer != nil
  }
}
