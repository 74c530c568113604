import Synchronization

/// One step of a resolution in progress: the dependency being made and the step that asked for
/// it. Frames form the resolution path used for cycle detection, error messages, graph-scoped
/// instances and the dependency graph.
@usableFromInline
final class Frame: Sendable {
  let index: Int
  let parent: Frame?
  let depth: Int
  /// Graph-scoped instances of the top-level resolution; made on first use, on root frames only.
  private let graphInstances = AtomicLazyReference<Locked<[ObjectIdentifier: any Sendable]>>()
  private let finishedFlag = Atomic<Bool>(false)

  init(index: Int, parent: Frame?) {
    self.index = index
    self.parent = parent
    self.depth = (parent?.depth ?? -1) + 1
  }

  var root: Frame {
    var frame = self
    while let parent = frame.parent { frame = parent }
    return frame
  }

  /// Marks the factory call as returned: a resolver kept beyond it starts fresh resolutions.
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

  func contains(_ index: Int) -> Bool {
    var frame: Frame? = self
    while let current = frame {
      if current.index == index { return true }
      frame = current.parent
    }
    return false
  }

  func graphInstance(for binding: Binding) -> (any Sendable)? {
    graphInstances.load()?.withLock { $0[ObjectIdentifier(binding)] }
  }

  func storeGraphInstance(_ value: any Sendable, for binding: Binding) {
    let store = graphInstances.load() ?? graphInstances.storeIfNil(Locked([:]))
    store.withLock { $0[ObjectIdentifier(binding)] = value }
  }
}

/// A registration bound into one container, with that container's instance storage.
final class Binding: Sendable {
  struct State {
    /// The root frame and thread of the resolution creating the shared instance, if any.
    var creator: (root: ObjectIdentifier, thread: UInt?, path: [Int])?
    var asyncWaiters: [CheckedContinuation<Void, Never>] = []
    var cached: (any Sendable)?
    weak var weakInstance: AnyObject?
  }

  let registration: Registration
  let decorators: [Decoration]
  /// The singleton, published once as a retained `Box` pointer so that reads need no lock.
  let singleton = Atomic<UInt>(0)
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

  var index: Int { registration.index }
  var scope: Scope { registration.scope }

  @inline(__always)
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
