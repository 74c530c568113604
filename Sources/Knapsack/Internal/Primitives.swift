public import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bumped whenever any container's registrations, decorators, observers or disposal state
/// change. Each cached slot remembers the generation it was planned in; a mismatch sends the
/// resolution to the slow path, which plans the slot again. This keeps the fast path free of
/// locks and lets observers and disposal cost nothing until they are used.
@usableFromInline let planGeneration = Atomic<UInt64>(1)

/// How many ``withOverrides(_:operation:)-(_,()->R)`` scopes are open anywhere in the process.
/// While it is zero, resolutions skip reading the task-local override scope.
@usableFromInline let openOverrideScopes = Atomic<Int>(0)

/// State guarded by a pthread mutex: Knapsack's one lock type.
///
/// Not `Synchronization.Mutex`: on Linux its contended path parks inside the uninstrumented
/// standard library, so ThreadSanitizer cannot see the ordering it provides and reports false
/// races; pthread calls are intercepted by ThreadSanitizer and checked for real.
final class Locked<State>: @unchecked Sendable {
  // Safe: `state` is only read or written inside `withLock`, while `lock` is held.
  private var state: State
  private let lock = BlockingLock()

  init(_ state: State) { self.state = state }

  func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// A mutual-exclusion lock that can be held across a call and released later; ``Locked`` uses it,
/// and it lets threads block while another thread runs a shared instance's factory.
final class BlockingLock: @unchecked Sendable {
  // Safe: the pthread mutex lives at a stable heap address for the object's whole life and is
  // only touched through pthread_mutex_* calls, which are thread-safe by definition.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  func lock() { pthread_mutex_lock(mutex) }
  func unlock() { pthread_mutex_unlock(mutex) }
}

/// The frame of the synchronous factory running on this thread, if any.
///
/// A factory that resolves through a captured container (or a `Lazy` or `Provider`) instead of
/// its resolver starts a new top-level resolution on the same thread; continuing from this frame
/// keeps its resolution path, so a cycle through such calls is reported instead of overflowing
/// the stack.
@usableFromInline
enum ThreadFrame {
  private static let key: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
  }()

  /// The innermost running frame (unretained: the factory call that set it keeps it alive).
  @usableFromInline
  static var current: Frame? {
    guard let key, let pointer = pthread_getspecific(key) else { return nil }
    return Unmanaged<Frame>.fromOpaque(pointer).takeUnretainedValue()
  }

  /// Makes `frame` the current one and returns the previous one, to pass to ``restore(_:)``.
  @usableFromInline
  static func enter(_ frame: Frame) -> Frame? {
    guard let key else { return nil }
    let previous = pthread_getspecific(key)
    pthread_setspecific(key, Unmanaged.passUnretained(frame).toOpaque())
    return previous.map { Unmanaged<Frame>.fromOpaque($0).takeUnretainedValue() }
  }

  @usableFromInline
  static func restore(_ previous: Frame?) {
    guard let key else { return }
    pthread_setspecific(key, previous.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
  }
}

/// An identifier of the calling thread.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
  UInt(bitPattern: pthread_self())
  #else
  UInt(pthread_self())
  #endif
}

/// A table of object references indexed by a dense integer, readable without a lock.
///
/// Two levels of atomic words: a directory of 256 leaves of 256 entries each. Every stored
/// object is retained until the table dies, so a reader may use what it loaded without retaining
/// it, even if a writer has since replaced the entry.
@usableFromInline
final class SlotTable<Element: AnyObject>: @unchecked Sendable {
  // Safe: the directory and its leaves are only read and written through `Atomic`, leaves are
  // installed with compare-and-exchange and freed only in deinit, and `retained` is guarded by
  // its lock.
  @inlinable static var capacity: Int { 1 << 16 }
  @usableFromInline let directory: UnsafeMutablePointer<Atomic<UInt>>
  private let retained = Locked<[UInt]>([])

  init() {
    directory = .allocate(capacity: 256)
    for offset in 0..<256 { (directory + offset).initialize(to: Atomic(0)) }
  }

  deinit {
    for offset in 0..<256 {
      let raw = directory[offset].load(ordering: .acquiring)
      if let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: raw) {
        leaf.deinitialize(count: 256)
        leaf.deallocate()
      }
    }
    directory.deinitialize(count: 256)
    directory.deallocate()
    for raw in retained.withLock({ $0 }) {
      if let pointer = UnsafeRawPointer(bitPattern: raw) { Unmanaged<Element>.fromOpaque(pointer).release() }
    }
  }

  /// The element at `index`, unretained; valid for as long as the table lives.
  @inlinable
  func load(_ index: Int) -> Unmanaged<Element>? {
    guard index < Self.capacity else { return nil }
    let leafRaw = directory[index >> 8].load(ordering: .acquiring)
    guard let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: leafRaw) else { return nil }
    let raw = leaf[index & 0xFF].load(ordering: .acquiring)
    guard let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
    return Unmanaged<Element>.fromOpaque(pointer)
  }

  /// Stores `element` at `index` (replacing any earlier one, which stays alive).
  func store(_ element: Element, at index: Int) {
    guard index < Self.capacity else { return }
    let leaf = leaf(for: index)
    let raw = UInt(bitPattern: Unmanaged.passRetained(element).toOpaque())
    retained.withLock { $0.append(raw) }
    leaf[index & 0xFF].store(raw, ordering: .releasing)
  }

  private func leaf(for index: Int) -> UnsafeMutablePointer<Atomic<UInt>> {
    let entry = index >> 8
    while true {
      let existing = directory[entry].load(ordering: .acquiring)
      if let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: existing) { return leaf }
      let fresh = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: 256)
      for offset in 0..<256 { (fresh + offset).initialize(to: Atomic(0)) }
      let (exchanged, _) = directory[entry].compareExchange(
        expected: 0, desired: UInt(bitPattern: fresh), ordering: .acquiringAndReleasing)
      if exchanged { return fresh }
      // Another thread installed its leaf first: use that one.
      fresh.deinitialize(count: 256)
      fresh.deallocate()
    }
  }
}

/// An immutable box that lets a value of any type be stored behind an object reference.
@usableFromInline
final class Box<Value: Sendable>: Sendable {
  @usableFromInline let value: Value
  @usableFromInline init(_ value: Value) { self.value = value }
}
