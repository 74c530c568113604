public import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a pthread mutex: Knapsack's one lock type.
///
/// Not `Synchronization.Mutex`: on Linux its contended path parks inside the uninstrumented
/// standard library, so ThreadSanitizer cannot see the ordering it provides and reports false
/// races; pthread calls are intercepted by ThreadSanitizer and checked for real.
final class Locked<State>: @unchecked Sendable {
  // Safe: `state` is only read or written inside `withLock`, while `lock` is held. It lives
  // behind a pointer rather than in a stored `var`, so each access skips the dynamic
  // exclusivity check the lock already makes unnecessary.
  private let state: UnsafeMutablePointer<State>
  private let lock = BlockingLock()

  init(_ state: State) {
    self.state = .allocate(capacity: 1)
    self.state.initialize(to: state)
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
  }

  func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state.pointee)
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

/// A table of object references indexed by a dense integer, readable without a lock.
///
/// Indices below 65,536 live in two levels of atomic words (a directory of 256 leaves of 256
/// entries); larger ones in a locked dictionary, so every key can be cached. Every stored
/// object is retained until the table dies, so a reader may use what it loaded without
/// retaining it, even if a writer has since replaced the entry.
@usableFromInline
final class SlotTable<Element: AnyObject>: @unchecked Sendable {
  // Safe: the directory and its leaves are only read and written through `Atomic`, leaves are
  // installed with compare-and-exchange and freed only in deinit; `retained` and `overflow` are
  // guarded by their locks.
  @inlinable static var directCapacity: Int { 1 << 16 }
  @usableFromInline let directory: UnsafeMutablePointer<Atomic<UInt>>
  private let retained = Locked<[Element]>([])
  private let overflow = Locked<[Int: Element]>([:])

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
  }

  /// The element at `index`.
  @inlinable
  func load(_ index: Int) -> Element? {
    guard index < Self.directCapacity else { return overflowElement(index) }
    let leafRaw = directory[index >> 8].load(ordering: .acquiring)
    guard let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: leafRaw) else { return nil }
    let raw = leaf[index & 0xFF].load(ordering: .acquiring)
    guard let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
    return Unmanaged<Element>.fromOpaque(pointer).takeUnretainedValue()
  }

  @usableFromInline
  func overflowElement(_ index: Int) -> Element? { overflow.withLock { $0[index] } }

  /// The element at `index`, unretained: valid while the table lives, which the caller ensures
  /// by holding the table's owner.
  @inlinable
  func unmanaged(_ index: Int) -> Unmanaged<Element>? {
    guard index < Self.directCapacity else { return overflowElement(index).map { Unmanaged.passUnretained($0) } }
    let leafRaw = directory[index >> 8].load(ordering: .acquiring)
    guard let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: leafRaw) else { return nil }
    let raw = leaf[index & 0xFF].load(ordering: .acquiring)
    guard let pointer = UnsafeRawPointer(bitPattern: raw) else { return nil }
    return Unmanaged<Element>.fromOpaque(pointer)
  }

  /// Stores `element` at `index` (replacing any earlier one, which stays alive).
  func store(_ element: Element, at index: Int) {
    guard index < Self.directCapacity else {
      overflow.withLock { $0[index] = element }
      return
    }
    let leaf = leaf(for: index)
    retained.withLock { $0.append(element) }
    leaf[index & 0xFF].store(UInt(bitPattern: Unmanaged.passUnretained(element).toOpaque()), ordering: .releasing)
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
