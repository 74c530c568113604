public import Synchronization

/// One step of a resolution in progress: the dependency being made and the step that asked for
/// it. Frames form the resolution path used for cycle detection, error messages, graph-scoped
/// instances and the dependency graph.
@usableFromInline
final class Frame: Sendable {
  @usableFromInline let index: Int
  @usableFromInline let parent: Frame?
  let depth: Int
  /// Graph-scoped instances of the top-level resolution (root frames only): a lock-free list of
  /// retained `GraphNode`s, newest first.
  @usableFromInline let graphHead = Atomic<UInt>(0)
  @usableFromInline let finishedFlag = Atomic<Bool>(false)

  /// The container making the dependency: the same key made by another container (a child
  /// wrapping its parent's value) is not a cycle.
  @usableFromInline let container: ObjectIdentifier

  @usableFromInline
  init(index: Int, parent: Frame?, in container: Container) {
    self.index = index
    self.parent = parent
    self.container = ObjectIdentifier(container)
    self.depth = (parent?.depth ?? -1) + 1
  }

  deinit {
    var raw = graphHead.load(ordering: .acquiring)
    while let pointer = UnsafeRawPointer(bitPattern: raw) {
      let node = Unmanaged<GraphNode>.fromOpaque(pointer)
      raw = node._withUnsafeGuaranteedRef { $0.next }
      node.release()
    }
  }

  @usableFromInline
  var root: Frame {
    var frame = self
    while let parent = frame.parent { frame = parent }
    return frame
  }

  /// Marks the factory call as returned: a resolver kept beyond it starts fresh resolutions.
  @inlinable
  func finish() { finishedFlag.store(true, ordering: .releasing) }
  @usableFromInline var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }

  /// The indices from the root to this frame.
  var path: [Int] {
    var indices: [Int] = []
    var frame: Frame? = self
    while let current = frame {
      indices.append(current.index)
      frame = current.parent
    }
    return indices.reversed()
  }

  /// Whether this frame or one above it makes `index` in the same container.
  @usableFromInline
  func contains(_ index: Int, in container: ObjectIdentifier) -> Bool {
    var frame: Frame? = self
    while let current = frame {
      if current.index == index, current.container == container { return true }
      frame = current.parent
    }
    return false
  }

  /// The graph-scoped instance of `binding` made in this resolution, if any.
  @inlinable
  func graphValue<Value: Sendable>(for binding: Binding, as _: Value.Type) -> Value? {
    // A node for `binding` always holds a Box of the binding's value type.
    graphNode(for: binding)?._withUnsafeGuaranteedRef { unsafeDowncast($0.box, to: Box<Value>.self).value }
  }

  /// The node of `binding` in this frame's graph-scope list, unretained (the list keeps it).
  @inlinable
  func graphNode(for binding: Binding) -> Unmanaged<GraphNode>? {
    let id = ObjectIdentifier(binding)
    var raw = graphHead.load(ordering: .acquiring)
    while let pointer = UnsafeRawPointer(bitPattern: raw) {
      let node = Unmanaged<GraphNode>.fromOpaque(pointer)
      if node._withUnsafeGuaranteedRef({ $0.binding == id }) { return node }
      raw = node._withUnsafeGuaranteedRef { $0.next }
    }
    return nil
  }

  /// Records the graph-scoped instance of `binding` for the rest of this resolution.
  @inlinable
  func storeGraphValue<Value: Sendable>(_ value: Value, for binding: Binding) {
    let box = Box(value)
    var head = graphHead.load(ordering: .acquiring)
    while true {
      let node = Unmanaged.passRetained(GraphNode(binding: ObjectIdentifier(binding), box: box, next: head))
      let (exchanged, current) = graphHead.compareExchange(
        expected: head, desired: UInt(bitPattern: node.toOpaque()), ordering: .acquiringAndReleasing)
      if exchanged { return }
      node.release()
      head = current
    }
  }

  /// Whether this resolution has a graph-scoped instance of `binding`.
  func hasGraphValue(for binding: Binding) -> Bool {
    graphNode(for: binding) != nil
  }
}

/// One graph-scoped instance in a root frame's list.
@usableFromInline
final class GraphNode: Sendable {
  @usableFromInline let binding: ObjectIdentifier
  @usableFromInline let box: any AnyObject & Sendable
  @usableFromInline let next: UInt

  @usableFromInline
  init(binding: ObjectIdentifier, box: any AnyObject & Sendable, next: UInt) {
    self.binding = binding
    self.box = box
    self.next = next
  }
}

/// A registration bound into one container, with that container's instance storage.
@usableFromInline
final class Binding: Sendable {
  struct State {
    /// The root frame and thread of the resolution creating the shared instance, if any.
    var creator: (root: ObjectIdentifier, thread: UInt?, path: [Int])?
    var asyncWaiters: [CheckedContinuation<Void, Never>] = []
    var cached: (any Sendable)?
    weak var weakInstance: AnyObject?
  }

  @usableFromInline let registration: Registration
  @usableFromInline let decorators: [Decoration]
  /// The singleton, published once as a retained `Box` pointer so that reads need no lock.
  @usableFromInline let singleton = Atomic<UInt>(0)
  let state = Locked(State())
  let creationLock = BlockingLock()

  init(registration: Registration, decorators: [Decoration]) {
    self.registration = registration
    self.decorators = decorators
  }

  deinit {
    let raw = singleton.load(ordering: .acquiring)
    if let pointer = UnsafeRawPointer(bitPattern: raw) {
      Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }
  }

  @inlinable var index: Int { registration.index }
  @inlinable var scope: Scope { registration.scope }

  @inlinable
  func loadSingleton<Value: Sendable>(_: Value.Type) -> Value? {
    let raw = singleton.load(ordering: .acquiring)
    guard let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
    return Unmanaged<Box<Value>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.value }
  }

  /// The stored shared instance (singleton or cached), if there is one.
  func storedInstance<Value: Sendable>(_: Value.Type) -> Value? {
    if scope == .singleton { return loadSingleton(Value.self) }
    return state.withLock { $0.cached as? Value }
  }

  /// Stores a shared instance; the caller holds the creator role, so there is no race.
  func publish<Value: Sendable>(_ value: Value) {
    if scope == .singleton {
      let box = Unmanaged.passRetained(Box(value) as AnyObject)
      singleton.store(UInt(bitPattern: box.toOpaque()), ordering: .releasing)
    } else {
      state.withLock { $0.cached = value }
    }
  }

  var hasSharedInstance: Bool {
    if scope == .singleton { return singleton.load(ordering: .acquiring) != 0 }
    return state.withLock { $0.cached != nil }
  }
}

/// The process-wide record of resolutions that are waiting for another resolution's shared
/// instance. Before it blocks, a resolution follows the chain of waits; if the chain leads back
/// to itself, the wait would deadlock and it throws a cycle error instead.
final class WaitGraph: Sendable {
  static let shared = WaitGraph()
  private let waits = Locked<[ObjectIdentifier: Binding]>([:])

  /// Registers `root` as waiting for `binding`; returns the dependencies of the cycle instead if
  /// the wait would close one: `binding`, then each dependency the chain of waiting resolutions
  /// waits for, ending with one that `root` itself is creating.
  func beginWait(root: ObjectIdentifier, for binding: Binding) -> [Int]? {
    waits.withLock { waits in
      var current = binding
      var path: [Int] = [binding.index]
      var seen: Set<ObjectIdentifier> = []
      while let creator = current.state.withLock({ $0.creator }) {
        if creator.root == root { return path }
        guard seen.insert(creator.root).inserted, let next = waits[creator.root] else { break }
        path.append(next.index)
        current = next
      }
      waits[root] = binding
      return nil
    }
  }

  func endWait(root: ObjectIdentifier) {
    _ = waits.withLock { $0.removeValue(forKey: root) }
  }
}
