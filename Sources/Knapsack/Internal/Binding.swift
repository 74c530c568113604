public import Synchronization

/// Identifies one instance of a binding: the binding, and the argument for an argument key
/// whose argument is `Hashable`.
@usableFromInline
struct InstanceKey: Hashable, @unchecked Sendable {
  // Safe: `argument` is only ever made from a `Sendable` argument value, and is immutable.
  /// The binding's ``Binding/serial``, which no other binding ever has, even one made after
  /// this one is freed.
  @usableFromInline let bindingSerial: UInt
  @usableFromInline let argument: ArgumentIdentity?

  /// The key of `binding`'s instance for `argument` (a `Hashable` argument's value, else none).
  @inlinable
  init<Argument: Sendable>(_ binding: Binding, argument: Argument) {
    bindingSerial = binding.serial
    self.argument = Argument.self == Void.self ? nil : Self.hashable(argument)
  }

  /// An argument as a key: its value and type if it is `Hashable`, else nil (so is no
  /// argument). What shared instances, graph instances and the cycle check tell arguments apart
  /// by.
  @usableFromInline
  static func hashable(_ argument: some Sendable) -> ArgumentIdentity? {
    argument is Void ? nil : ArgumentIdentity(argument)
  }

  /// Whether instances can be kept per `argument`: it is `Hashable`, or no argument at all (`()`,
  /// also as the value of an `any Sendable` argument). A scope that keeps instances (any but
  /// unique) needs it, or a second argument would get the first one's instance.
  @usableFromInline
  static func canKeep(_ argument: some Sendable) -> Bool {
    argument is Void || argument is any Hashable
  }
}

/// An argument as the engine tells arguments apart: a `Hashable` value, or an object's identity,
/// with the value's type. `AnyHashable` alone finds `1`, `Int8(1)` and `1.0` equal, which are
/// three different arguments to a key whose argument is `any Sendable`. Class instances keep one
/// type, so that they compare by their own `==` as before, a subclass's instance with its base
/// class's (and an object whose runtime class changes, as key-value observing does on Apple
/// platforms, stays the same argument). A value type: keeping one in a key allocates nothing more
/// than its `AnyHashable` does.
@usableFromInline
struct ArgumentIdentity: Hashable {
  let value: AnyHashable
  let type: ObjectIdentifier

  /// The identity of a `Hashable` value; nil for any other.
  init?(_ value: Any) {
    guard let hashable = value as? any Hashable else { return nil }
    self.value = AnyHashable(hashable)
    let valueType = Swift.type(of: hashable)
    type = ObjectIdentifier(valueType is AnyClass ? AnyObject.self : valueType)
  }

  /// The identity of an object that is not `Hashable`: the object itself (whose identity is
  /// already unique, so it keeps the one type of class instances).
  init(object: ObjectIdentifier) {
    value = AnyHashable(object)
    type = ObjectIdentifier(AnyObject.self)
  }
}

/// Where one shared instance (singleton, cached or weak) lives, and who is making it; or one
/// graph-scoped instance of an asynchronous resolution, whose child tasks may ask for it at once
/// (kept like a cached one, in the resolution's ``GraphStore``).
@usableFromInline
final class SharedCell: Sendable {
  struct Creator {
    /// The frame of the step making the instance (its address: unique among live frames, and
    /// the step lives until it lets the cell go), and the thread of a synchronous one.
    let frame: UInt
    let thread: UInt?
    /// ``State/resets`` when the creation began: a reset since then means the instance is made
    /// from what was before it, so it is handed to its caller but not kept.
    let resets: UInt
  }

  struct State {
    var creator: Creator?
    var asyncWaiters = AsyncWaiters()
    var cached: (any Sendable)?
    weak var weakInstance: AnyObject?
    /// How many times `Container.resetCached()` cleared this cell.
    var resets: UInt = 0
  }

  /// The singleton, published once as a retained `Box` pointer so that reads need no lock.
  @usableFromInline let singleton = Atomic<UInt>(0)
  let state = Locked(State())
  /// Held by a synchronous creator while its factory runs; waiting threads block on it.
  let creationLock = BlockingLock()

  deinit {
    if let pointer = UnsafeRawPointer(bitPattern: singleton.load(ordering: .acquiring)) {
      Unmanaged<AnyObject>.fromOpaque(pointer).release()
    }
  }

  @inlinable
  func loadSingleton<Value: Sendable>(_: Value.Type) -> Value? {
    guard let pointer = UnsafeRawPointer(bitPattern: singleton.load(ordering: .acquiring)) else { return nil }
    return Unmanaged<Box<Value>>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.value }
  }

  /// The stored instance of `scope`, if there is one.
  func stored<Value: Sendable>(_ scope: Scope.Kind, as _: Value.Type) -> Value? {
    switch scope {
    case .singleton: loadSingleton(Value.self)
    // Unwrapped before the cast: an absent instance cast to an optional `Value` would succeed.
    case .cached, .graph: state.withLock { $0.cached }.flatMap { $0 as? Value }
    case .weak: state.withLock { $0.weakInstance }.flatMap { $0 as? Value }
    case .unique: nil
    }
  }

  var isOccupied: Bool {
    singleton.load(ordering: .acquiring) != 0 || state.withLock { $0.cached != nil || $0.weakInstance != nil }
  }

  /// Stores an instance; the caller holds the creator role, so there is no race. A cached
  /// instance whose creation began before a reset is not stored: the next resolution makes one
  /// from what changed.
  func publish<Value: Sendable>(_ value: Value, _ scope: Scope.Kind) {
    switch scope {
    case .singleton:
      let box = Unmanaged.passRetained(Box(value) as AnyObject)
      singleton.store(UInt(bitPattern: box.toOpaque()), ordering: .releasing)
    case .cached, .graph:
      state.withLock { state in
        if state.creator?.resets ?? state.resets == state.resets { state.cached = value }
      }
    case .weak:
      // Only a class instance is held: any other value would be boxed into an object made for
      // the purpose (which `Int` and other bridged values may outlive in a cache of the
      // runtime's), and must behave like a unique one instead.
      guard objectIdentity(of: value) != nil else { return }
      state.withLock { $0.weakInstance = value as AnyObject }
    case .unique: break
    }
  }
}

/// A registration bound into one container, with that container's instance storage.
@usableFromInline
final class Binding: Sendable {
  @usableFromInline let registration: Registration
  @usableFromInline let decorators: [Decoration]
  /// The shared instance (for an argument key, the one of the argument `()`: a key whose
  /// argument cannot be told apart from others keeps no instance, it fails in `enter`).
  @usableFromInline let cell = SharedCell()
  /// An argument key's shared instances, one per `Hashable` argument value; nil for an argument
  /// whose instance an override scope that ended disposed (see ``endArguments(_:)``).
  private let argumentCells = Locked(ArgumentCells())

  /// The cells of an argument key's arguments, and how many there may be before the cells that
  /// keep nothing are dropped.
  private struct ArgumentCells {
    var cells: [ArgumentIdentity: SharedCell?] = [:]
    var sweepAt = 64
  }
  /// A number no other binding in the process has: what a graph-scope store finds this
  /// binding's instance by without holding the binding (an address could be reused by a later
  /// binding once this one is freed; a serial is never reused).
  @usableFromInline let serial: UInt

  /// The source of ``serial``. Counted only when a container plans a registration it has not
  /// bound before (the first resolution of a key after it was registered or decorated), never
  /// on a resolution's fast path.
  private static let serials = Atomic<UInt>(0)

  init(registration: Registration, decorators: [Decoration]) {
    self.registration = registration
    self.decorators = decorators
    serial = Self.serials.add(1, ordering: .relaxed).newValue
  }

  @inlinable var index: Int { registration.index }
  @inlinable var scope: Scope { registration.scope }

  /// The cell that stores the shared instance for `argument`; nil if the override scope this
  /// binding's container copies for ended and disposed that instance.
  func cell(for argument: some Sendable) -> SharedCell? {
    guard let key = InstanceKey.hashable(argument) else { return cell }
    return argumentCells.withLock { table in
      if let existing = table.cells[key] { return existing }
      if table.cells.count >= table.sweepAt { Self.sweep(&table) }
      let fresh = SharedCell()
      table.cells[key] = fresh
      return fresh
    }
  }

  /// Drops the cells that keep nothing (a weak instance released, a cached one reset, a factory
  /// that threw) and that no resolution holds (none is making or waiting for their instance, which
  /// would hold the cell): each argument would otherwise keep its cell for as long as the binding,
  /// so a weak or cached key asked for ever new arguments would grow without end. A later
  /// resolution of a dropped argument makes a new cell, as for a first one. Every so many new
  /// arguments (twice as many as are kept after a sweep), so that it costs each one a constant.
  private static func sweep(_ table: inout ArgumentCells) {
    var unused: [ArgumentIdentity] = []
    // An index, not `indices`, which would hold the storage and make the check below copy it.
    var index = table.cells.startIndex
    while index != table.cells.endIndex {
      // Uniquely referenced: no resolution holds it, so none can claim it while it is checked.
      if isKnownUniquelyReferenced(&table.cells.values[index]), table.cells.values[index]?.isOccupied == false {
        unused.append(table.cells.keys[index])
      }
      table.cells.formIndex(after: &index)
    }
    for argument in unused { table.cells.removeValue(forKey: argument) }
    table.sweepAt = max(64, table.cells.count * 2)
  }

  /// Refuses `arguments` from now on: an override scope's copy disposed their instances when the
  /// scope ended, and a handle made in the scope must get an error rather than those instances.
  func endArguments(_ arguments: Set<ArgumentIdentity>) {
    argumentCells.withLock { table in
      for argument in arguments { table.cells[argument] = .some(nil) }
    }
  }

  /// Every cell, for clearing cached instances.
  var allCells: [SharedCell] { [cell] + argumentCells.withLock { $0.cells.values.compactMap { $0 } } }

  /// How many arguments have a cell (or are refused), for tests of what a binding keeps.
  var argumentCellCount: Int { argumentCells.withLock { $0.cells.count } }

  /// Drops the cached instances of every cell, and keeps a creation already running from storing
  /// what it makes from the state before the reset.
  /// Returns the identities of the class instances it dropped.
  func resetCached() -> [ObjectIdentifier] {
    allCells.compactMap { cell in
      cell.state.withLock { state in
        defer {
          state.cached = nil
          state.resets &+= 1
        }
        return state.cached.flatMap { objectIdentity(of: $0) }
      }
    }
  }
}

/// Something a resolution can wait for: a shared instance's cell being made, or a ``Lazy``'s
/// first read under way.
protocol WaitTarget: AnyObject, Sendable {
  /// Who is making what the target will hand out; nil once nobody is.
  var holder: WaitGraph.Holder? { get }
}

extension SharedCell: WaitTarget {
  var holder: WaitGraph.Holder? {
    state.withLock { $0.creator }.map { WaitGraph.Holder(frame: $0.frame, thread: $0.thread) }
  }
}

/// The process-wide record of resolutions that are waiting for a shared instance, or for a
/// ``Lazy``'s first read, that another resolution is making. Before it blocks, a waiter follows
/// the chain of waits; if the chain leads back to itself, the wait would deadlock and it throws a
/// cycle error instead. Only contended creations touch it.
final class WaitGraph: Sendable {
  static let shared = WaitGraph()

  /// Who makes what a ``WaitTarget`` will hand out: a step (its frame), a synchronous maker's
  /// thread, or the asynchronous first read of a `Lazy` (its ``FactoryCall``). Each is stuck
  /// while anything under it waits.
  struct Holder: Sendable {
    /// The address of the step making a shared instance; 0 for a `Lazy`'s read, which is no step.
    var frame: UInt = 0
    /// The thread of a synchronous maker, which it holds until it is done.
    var thread: UInt?
    /// The call that an asynchronous `Lazy` read makes its value in.
    var call: FactoryCall?

    /// Tells holders apart in one walk of the graph.
    var identity: AnyHashable {
      if frame != 0 { return frame }
      if let call { return ObjectIdentifier(call) }
      return "thread \(thread ?? 0)"
    }
  }

  /// Each waiter (by its step's frame address, or for a `Lazy`'s reader, which may have no step,
  /// an odd number the graph hands out): what it waits for.
  private let waits = Locked(Waits())

  private struct Waits {
    var entries: [UInt: Wait] = [:]
    /// The next identity for a `Lazy`'s reader: odd, so never a frame's address.
    var nextReader: UInt = 1
  }

  /// What one waiter waits for, and where it runs: its step (if any), its thread if it blocks one,
  /// and the innermost asynchronous factory call or `Lazy` read where it runs (with where it
  /// found that call bound): the calls that await it even when its own frames do not lead to
  /// them.
  private struct Wait {
    let target: any WaitTarget
    let index: Int
    let step: UnsafeMutablePointer<Frame>?
    let thread: UInt?
    let calls: (call: FactoryCall, address: UInt)?
    /// The addresses of the steps this waiter runs under: its own and those above it, and those
    /// of the factory calls that await it and above them. Gathered once, as the wait begins,
    /// since they stay put while it waits (each call awaits the waiter): a walk of the graph asks
    /// every listed waiter whether it is under a holder, and walking their frames for each
    /// question took time that grew with the fourth power of the depth of a graph whose levels
    /// each wait for a shared instance a sibling task makes.
    let steps: Set<UInt>

    init(
      target: any WaitTarget, index: Int, step: UnsafeMutablePointer<Frame>?, thread: UInt?,
      calls: (call: FactoryCall, address: UInt)?
    ) {
      self.target = target
      self.index = index
      self.step = step
      self.thread = thread
      self.calls = calls
      var steps: Set<UInt> = []
      step?.insertSteps(into: &steps)
      if let (call, address) = calls { call.forEachAwaitingStep(seenAt: address) { $0.insertSteps(into: &steps) } }
      self.steps = steps
    }

    /// Whether this waiter runs under `holder`, so that `holder` is stuck while it waits.
    func isUnder(_ holder: Holder) -> Bool {
      if holder.frame != 0, steps.contains(holder.frame) { return true }
      // A synchronous maker holds its thread until it is done: what blocks that thread is under it.
      if let thread, thread == holder.thread { return true }
      if let target = holder.call, let (call, address) = calls, call.awaits(target, seenAt: address) { return true }
      return false
    }
  }

  /// Registers the step at `frame` (on `thread`, if it blocks one) as waiting for `cell` (of
  /// dependency `index`); returns the dependencies of the cycle instead if the wait would close
  /// one. End the wait with ``endWait(_:)``.
  func beginWait(
    _ frame: UnsafeMutablePointer<Frame>, for cell: SharedCell, index: Int, thread: UInt?
  ) -> [Int]? {
    let wait = Wait(target: cell, index: index, step: frame, thread: thread, calls: FactoryCall.seen)
    return begin(wait, as: UInt(bitPattern: frame)).loop
  }

  /// Registers the reader of a `Lazy` (`target`, of dependency `index`) as waiting for its first
  /// read, which another thread or task is making: from the step at `step` if it reads inside a
  /// factory, on `thread` if it blocks one. Returns the identity to end the wait with, or the
  /// dependencies of the cycle if the wait would close one.
  func beginWait(
    for target: some WaitTarget, index: Int, step: UnsafeMutablePointer<Frame>?, thread: UInt?
  ) -> (reader: UInt, loop: [Int]?) {
    begin(Wait(target: target, index: index, step: step, thread: thread, calls: FactoryCall.seen), as: nil)
  }

  /// A holder is stuck while a waiter under it (in its own factory, in a child task of it, or
  /// on its thread) waits; a new wait closes a cycle if, following what stuck holders wait for,
  /// it comes back to a holder that this waiter is under. Steps of one resolution that run side
  /// by side (child tasks) wait for each other like any two resolutions: only a holder above
  /// the waiter is its own.
  private func begin(_ mine: Wait, as identity: UInt?) -> (reader: UInt, loop: [Int]?) {
    waits.withLock { waits in
      // Every waiter stays alive (blocked or suspended) while it is listed, and so do the steps
      // above it; the factory calls it lists keep their frames: walking them under the lock is
      // safe.
      var pending: [(target: any WaitTarget, path: [Int])] = [(mine.target, [mine.index])]
      var seen: Set<AnyHashable> = []
      while let (current, path) = pending.popLast() {
        guard let holder = current.holder else { continue }
        if mine.isUnder(holder) { return (0, path) }
        guard seen.insert(holder.identity).inserted else { continue }
        for wait in waits.entries.values where wait.isUnder(holder) {
          pending.append((wait.target, path + [wait.index]))
        }
      }
      let id = identity ?? waits.nextReader
      if identity == nil { waits.nextReader &+= 2 }
      waits.entries[id] = mine
      return (id, nil)
    }
  }

  /// Ends the wait of the step at `frame`.
  func endWait(_ frame: UnsafeMutablePointer<Frame>) { endWait(reader: UInt(bitPattern: frame)) }

  /// Ends the wait registered as `reader`.
  func endWait(reader: UInt) {
    _ = waits.withLock { $0.entries.removeValue(forKey: reader) }
  }
}
