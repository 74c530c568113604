// Public so that the engine's inlinable read sections call the C inline functions directly.
public import CKnapsack
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

/// The tasks suspended until a making that another resolution runs ends (a shared instance's, or a
/// `Lazy`'s first read), each under a number of its own, so that one that is cancelled can leave
/// the list and resume at once (see ``suspend(in:enlist:delist:)``).
struct AsyncWaiters {
  private var waiting: [UInt: CheckedContinuation<Void, Never>] = [:]
  private var next: UInt = 0

  /// Adds `waiter`; returns its number.
  mutating func add(_ waiter: CheckedContinuation<Void, Never>) -> UInt {
    next &+= 1
    waiting[next] = waiter
    return next
  }

  /// Takes the waiter numbered `number` out of the list, if it is still in it.
  mutating func remove(_ number: UInt) -> CheckedContinuation<Void, Never>? {
    waiting.removeValue(forKey: number)
  }

  /// Takes every waiter out of the list, to resume them.
  mutating func takeAll() -> [CheckedContinuation<Void, Never>] {
    defer { waiting = [:] }
    return Array(waiting.values)
  }

  /// Suspends the current task until the making it waits for ends (whoever ends it resumes the
  /// waiters `enlist` listed), or until the task is cancelled, which resumes it at once: a
  /// cancelled task does not wait for a factory that another task runs, which may take long.
  /// `enlist` lists the waiter in `state` and returns its number, or returns nil if the making is
  /// over (then this returns at once); `delist` takes a numbered waiter out of the list, if it is
  /// still in it. The caller looks again either way, and a cancelled caller that would wait again
  /// throws `CancellationError` instead.
  static func suspend<State>(
    in state: Locked<State>,
    enlist: @Sendable (inout State, CheckedContinuation<Void, Never>) -> UInt?,
    delist: @Sendable (inout State, UInt) -> CheckedContinuation<Void, Never>?
  ) async {
    // Set and read while `state`'s lock is held.
    let number = Locked<UInt?>(nil)
    await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let listed = state.withLock { state in
          // Checked under the lock that the handler takes: a cancellation either came first, and
          // the task does not wait, or its handler finds the waiter listed.
          guard !Task.isCancelled, let listed = enlist(&state, waiter) else { return false }
          number.withLock { $0 = listed }
          return true
        }
        if !listed { waiter.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in number.withLock { $0 }.flatMap { delist(&state, $0) } }
      waiter?.resume()
    }
  }
}

/// A table of object references indexed by a dense integer, readable without a lock.
///
/// Indices below 65,536 live in two levels of atomic words (a directory of 256 leaves of 256
/// entries); larger ones in a locked dictionary, so every key can be cached. The table holds a
/// reference to each element it stores. A replaced element is retired, not released at once:
/// readers read inside an epoch read section (``read(_:_:)``), and a retired element is
/// released once no reader that could have loaded it is still reading (see `CKnapsack.h`). The
/// table is its own reclamation domain, with its own epoch: retiring here never touches what
/// readers of another table read.
@usableFromInline
final class SlotTable<Element: AnyObject>: RetiredReleasing, @unchecked Sendable {
  // Safe: the directory and its leaves are only read and written through `Atomic`, leaves are
  // installed with compare-and-exchange and freed only in deinit; `overflow` and `retired` are
  // guarded by their locks; an element is released only after `knapsack_reclaimable` says no
  // read section that could see it is open; the domain record is written only by the C side:
  // its table word once, in init, and its epoch with atomics.
  @inlinable static var directCapacity: Int { 1 << 16 }
  @usableFromInline let directory: UnsafeMutablePointer<Atomic<UInt>>
  /// What read sections of this table announce: the address of its `knapsack_domain` (its
  /// epoch counter, on cache lines of its own).
  @usableFromInline let domain: UInt
  /// The record ``domain`` is the address of.
  private let domainRecord: UnsafeMutablePointer<knapsack_domain>
  /// Elements of indices from ``directCapacity`` on, as retained addresses.
  private let overflow = Locked<[Int: UInt]>([:])
  /// Replaced elements (retained addresses) and the epoch in which each was replaced, oldest
  /// first. A reader that holds back one retirement holds back every later one too, so what can
  /// be released is always a prefix, and a release reads no further than the first entry it
  /// must keep: retiring while a long read section holds many back costs the same as any other.
  private let retired = Locked<[(epoch: UInt64, element: UInt)]>([])
  /// How many elements are retired: a store with nothing to replace looks here before locking.
  private let retiredCount = Atomic<Int>(0)
  /// Whether ``HeldBackTables`` keeps this table (while it has retired elements); changed only
  /// under the lock of ``retired``.
  private let isHeldBack = Atomic<Bool>(false)
  /// Set once the table's owner is gone (see ``close()``); read under the lock of ``retired``.
  private let isClosed = Atomic<Bool>(false)

  init() {
    releaseHookInstalled
    directory = .allocate(capacity: 256)
    for offset in 0..<256 { (directory + offset).initialize(to: Atomic(0)) }
    // Two lines of its own, as reader records have: no other object's writes share them.
    domainRecord = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
      .bindMemory(to: knapsack_domain.self, capacity: 1)
    domain = UInt(bitPattern: domainRecord)
    knapsack_domain_init(domainRecord, UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
  }

  deinit {
    for offset in 0..<256 {
      let raw = directory[offset].load(ordering: .acquiring)
      if let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: raw) {
        for entry in 0..<256 { Self.release(leaf[entry].load(ordering: .acquiring)) }
        leaf.deinitialize(count: 256)
        leaf.deallocate()
      }
    }
    directory.deinitialize(count: 256)
    directory.deallocate()
    for element in overflow.withLock({ Array($0.values) }) { Self.release(element) }
    for entry in retired.withLock({ $0 }) { Self.release(entry.element) }
    knapsack_domain_finish(domainRecord)
    UnsafeMutableRawPointer(domainRecord).deallocate()
  }

  /// Runs `body` on the element at `index`, unretained, inside a read section: the element
  /// stays alive until `body` returns, and `body` must retain whatever it keeps.
  @inlinable
  func read<R>(_ index: Int, _ body: (Unmanaged<Element>?) -> R) -> R {
    ReadSection.begin(domain)
    defer { ReadSection.end() }
    return body(address(index).map { Unmanaged<Element>.fromOpaque($0) })
  }

  /// How many elements this table has retired so far, plus one: its domain's epoch.
  var epoch: UInt64 { knapsack_domain_epoch(domainRecord) }

  /// The element at `index`, retained.
  @inlinable
  func load(_ index: Int) -> Element? {
    read(index) { $0?.takeUnretainedValue() }
  }

  /// The address of the element at `index`; call only inside a read section.
  @inlinable
  func address(_ index: Int) -> UnsafeRawPointer? {
    guard index < Self.directCapacity else { return overflowAddress(index) }
    let leafRaw = directory[index >> 8].load(ordering: .acquiring)
    guard let leaf = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: leafRaw) else { return nil }
    // Sequentially consistent, like the read section's start (a store alone would not keep this
    // load after it): a writer that did not see this reader announced has already published its
    // replacement, and this load sees it.
    return UnsafeRawPointer(bitPattern: leaf[index & 0xFF].load(ordering: .sequentiallyConsistent))
  }

  @usableFromInline
  func overflowAddress(_ index: Int) -> UnsafeRawPointer? {
    UnsafeRawPointer(bitPattern: overflow.withLock { $0[index] ?? 0 })
  }

  /// Stores `element` at `index`. The element it replaces is retired; retired elements are
  /// released once no reader can still use them: here, at a later store into this table, or
  /// when the read section that held them back ends (see ``releaseRetired()``).
  func store(_ element: Element, at index: Int) {
    replace(at: index, with: UInt(bitPattern: Unmanaged.passRetained(element).toOpaque()))
  }

  /// Empties `index`; the element it held is retired like a replaced one.
  func remove(at index: Int) {
    replace(at: index, with: 0)
  }

  /// Puts `new` (a retained address, or 0) at `index` and retires what was there.
  private func replace(at index: Int, with new: UInt) {
    let old: UInt
    if index < Self.directCapacity {
      old = leaf(for: index)[index & 0xFF].exchange(new, ordering: .sequentiallyConsistent)
    } else {
      old = overflow.withLock { new == 0 ? $0.removeValue(forKey: index) : $0.updateValue(new, forKey: index) } ?? 0
    }
    guard old != 0 || retiredCount.load(ordering: .relaxed) > 0 else { return }
    let epoch = old != 0 ? knapsack_retire(domainRecord) : 0
    release(retiring: old, in: epoch)
  }

  /// Releases the retired elements that no reader can still use: called when an outermost read
  /// section that held back a release ends (see ``HeldBackTables``).
  func releaseRetired() { release(retiring: 0, in: 0) }

  /// Adds `element` (a retained address, or 0 for none) to the retired ones, retired in `epoch`,
  /// then releases every retired element no reader can still use.
  private func release(retiring element: UInt, in epoch: UInt64) {
    let domain = self.domain
    let reclaimable = retired.withLock { retired -> [UInt] in
      if element != 0 {
        // Writers take their epochs before this lock, so one may arrive after a later one.
        var position = retired.endIndex
        while position > retired.startIndex, retired[position - 1].epoch > epoch { position -= 1 }
        retired.insert((epoch, element), at: position)
      }
      // `knapsack_reclaimable` is monotonic in the epoch: a section that began reading this
      // domain by one retirement's epoch began by every later one's. The first entry held back
      // marks every section that holds it, so every one that holds the rest: each one's end
      // retries them (see `HeldBackTables`).
      let kept = retired.firstIndex { knapsack_reclaimable($0.epoch, domain) == 0 } ?? retired.endIndex
      let released = retired[..<kept].map(\.element)
      if kept > 0 { retired.removeSubrange(..<kept) }
      retiredCount.store(retired.count, ordering: .relaxed)
      // Under this lock, so that the registry's entry follows the last change of `retired`.
      if !isClosed.load(ordering: .relaxed), retired.isEmpty == isHeldBack.load(ordering: .relaxed) {
        isHeldBack.store(!retired.isEmpty, ordering: .relaxed)
        HeldBackTables.keep(self, !retired.isEmpty)
      }
      return released
    }
    // Outside the lock: releasing may run deinitializers of the user's objects.
    for element in reclaimable { Self.release(element) }
  }

  /// Called when the table's owner is gone: no read section can be reading the table any more
  /// (a section that reads it holds its owner), so ``HeldBackTables`` lets it go, and the
  /// table's own deinitialization releases what it retired.
  func close() {
    retired.withLock { _ in
      isClosed.store(true, ordering: .relaxed)
      if isHeldBack.load(ordering: .relaxed) {
        isHeldBack.store(false, ordering: .relaxed)
        HeldBackTables.keep(self, false)
      }
    }
  }

  private static func release(_ element: UInt) {
    if let pointer = UnsafeRawPointer(bitPattern: element) { Unmanaged<Element>.fromOpaque(pointer).release() }
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

/// Gives the C side, once, the function that an outermost read section which held back a
/// release calls when it ends (see `knapsack_read_end`): every table that still has retired
/// elements tries again, whichever domain the section read first.
private let releaseHookInstalled: Void = knapsack_set_release_hook { _ in HeldBackTables.retryAll() }

/// The identity of `value` if it is a class instance; nil for a value, which has none (cast to
/// `AnyObject`, it would be boxed into an object made for the occasion).
func objectIdentity(of value: Any) -> ObjectIdentifier? {
  type(of: value) is AnyClass ? ObjectIdentifier(value as AnyObject) : nil
}

/// A table that can try again to release what it retired (see `knapsack_read_end`).
protocol RetiredReleasing: AnyObject, Sendable {
  func releaseRetired()
}

/// The tables that have retired elements a read section held back, kept (strongly) until they
/// are released: the end of any section that held back a release tries them all again. So what
/// a section read in a nested domain (a parent's, read through a child), or in any domain once
/// it listed more than its record can name, is released when the section ends, not at the next
/// store into its table, which may never come. Touched only by writers that could not release
/// at once and by those sections' ends, never by a resolution's fast path.
enum HeldBackTables {
  private static let tables = Locked<[ObjectIdentifier: any RetiredReleasing]>([:])

  /// Keeps `table` (it has retired elements), or lets it go (it has none left).
  static func keep(_ table: any RetiredReleasing, _ isHeldBack: Bool) {
    tables.withLock { $0[ObjectIdentifier(table)] = isHeldBack ? table : nil }
  }

  /// Has every kept table release what no reader can still use.
  static func retryAll() {
    for table in tables.withLock({ Array($0.values) }) { table.releaseRetired() }
  }
}

/// The runtime address of the task running the calling code, or 0 outside any task: the
/// concurrency runtime's own look-up (see `swift_task_getCurrent` in CKnapsack.h).
@inlinable var currentTaskAddress: UInt { UInt(bitPattern: swift_task_getCurrent()) }

/// The epoch read section of the calling thread (see ``SlotTable/read(_:_:)``).
@usableFromInline
enum ReadSection {
  /// Opens a section that reads `domain` (see ``SlotTable/domain``), or adds the domain to the
  /// thread's open section.
  @inlinable static func begin(_ domain: UInt) { knapsack_read_begin(domain) }
  /// Closes the innermost section. The outermost one, if it held back the release of something
  /// retired, has its first domain try again (see ``SlotTable/releaseRetired()``).
  @inlinable static func end() { knapsack_read_end() }
}

/// Weak references to objects that come and go (a parent's children, a plan's dependents). The
/// gone ones are forgotten once the list has doubled since they last were: linear work,
/// amortized over the appends.
struct WeakList<Object: AnyObject & Sendable>: Sendable {
  private struct Entry: Sendable {
    weak var object: Object?
  }

  private var entries: [Entry] = []
  private var pruneThreshold = 8

  /// How many entries the list holds, gone objects included.
  var count: Int { entries.count }

  /// The objects still alive, in the order they were added.
  var objects: [Object] { entries.compactMap(\.object) }

  mutating func append(_ object: Object) {
    if entries.count >= pruneThreshold { removeGone() }
    entries.append(Entry(object: object))
  }

  /// Forgets the objects that are gone.
  mutating func removeGone() {
    entries.removeAll { $0.object == nil }
    pruneThreshold = max(8, 2 * entries.count)
  }
}

/// An immutable box that lets a value of any type be stored behind an object reference.
@usableFromInline
final class Box<Value: Sendable>: Sendable {
  @usableFromInline let value: Value
  @usableFromInline init(_ value: Value) { self.value = value }
}

/// A container's registrations by dependency index: not thread-safe, a container keeps it in its
/// locked state.
///
/// A registration is kept as it was made (its ``RegistrationFields`` and its typed factory,
/// unboxed) in chunks of records in the order keys were first registered, and its
/// ``Registration`` object is made only when something asks for it (a plan of its key,
/// `isRegistered`, a validation run, a report), then kept: from then on its identity is what
/// bindings, override scopes and plan invalidation compare. Registering thousands of keys at
/// start-up then allocates a chunk per 256 of them instead of an object each, and letting the
/// container go frees the chunks instead of thousands of objects spread over the heap (the
/// benchmark's S4: about 130 allocations for 10,000 registrations, not 10,000). Indices map to
/// records through pages of 256 positions, so that finding one hashes nothing, and a container
/// that holds a few high indices pays for their pages, not for the whole range below them.
///
/// The map is a value that refers to its storage: a copy would share (and mutate) the same
/// records. A container never copies it (it lives in the container's locked state, reached in
/// place), and nothing else must.
struct RegistrationMap {
  private static var pageSize: Int { 256 }

  /// A registration as the container keeps it.
  fileprivate struct Record {
    var fields: RegistrationFields
    /// The typed factory, for a registration whose object is not made yet; nil once it is (or
    /// for one stored as an object).
    var factory: (any RegistrationFactory)?
    /// The registration object, once something asked for it.
    var made: Registration?
  }

  /// The storage, made by the first registration: a container that registers nothing (an
  /// override scope's copy, a child that only resolves) allocates none.
  private var storage: Storage? {
    didSet { borrowed = storage.map { Unmanaged.passUnretained($0) } }
  }
  /// ``storage``, unretained (``storage`` keeps it): what registering and looking up use, so that
  /// neither retains and releases the storage, two atomic operations a registration would
  /// otherwise pay (a tenth of its time).
  private var borrowed: Unmanaged<Storage>?

  private final class Storage {
    /// What the storage holds, behind a pointer: the map is used under its container's lock,
    /// and a class's stored `var`s would add a dynamic exclusivity check to every access.
    private let header = UnsafeMutablePointer<Header>.allocate(capacity: 1)

    private struct Header {
      /// For each page of 256 indices, one past the position of each index's record (0 for
      /// none); nil for a page that was never written.
      var pages: [UnsafeMutablePointer<UInt32>?] = []
      /// The records, 256 per chunk, in the order their indices were first stored.
      var chunks: [UnsafeMutablePointer<Record>] = []
      var count = 0
    }

    init() { header.initialize(to: Header()) }

    deinit {
      let header = self.header.move()
      for (number, chunk) in header.chunks.enumerated() {
        chunk.deinitialize(count: min(RegistrationMap.pageSize, header.count - number * RegistrationMap.pageSize))
        chunk.deallocate()
      }
      for page in header.pages { page?.deallocate() }
      self.header.deallocate()
    }

    var pages: [UnsafeMutablePointer<UInt32>?] {
      get { header.pointee.pages }
      _modify { yield &header.pointee.pages }
    }
    var chunks: [UnsafeMutablePointer<Record>] {
      get { header.pointee.chunks }
      _modify { yield &header.pointee.chunks }
    }
    var count: Int {
      get { header.pointee.count }
      set { header.pointee.count = newValue }
    }

    /// The record of `index`, if it has one.
    func record(_ index: Int) -> UnsafeMutablePointer<Record>? {
      let page = index / RegistrationMap.pageSize
      guard page < pages.count, let positions = pages[page] else { return nil }
      let stored = Int(positions[index % RegistrationMap.pageSize])
      guard stored != 0 else { return nil }
      return chunks[(stored - 1) / RegistrationMap.pageSize] + (stored - 1) % RegistrationMap.pageSize
    }

    /// Stores `record` at `index` and returns the one it replaces, moved out whole: freeing it
    /// here would free its factory's captures under the container's lock.
    func store(_ record: consuming Record, at index: Int) -> Replaced? {
      if let existing = self.record(index) {
        let replaced = Replaced(existing.move())
        existing.initialize(to: record)
        return replaced
      }
      let page = index / RegistrationMap.pageSize
      if page >= pages.count { pages.append(contentsOf: repeatElement(nil, count: page - pages.count + 1)) }
      let positions: UnsafeMutablePointer<UInt32>
      if let existing = pages[page] {
        positions = existing
      } else {
        positions = .allocate(capacity: RegistrationMap.pageSize)
        positions.initialize(repeating: 0, count: RegistrationMap.pageSize)
        pages[page] = positions
      }
      if count % RegistrationMap.pageSize == 0 { chunks.append(.allocate(capacity: RegistrationMap.pageSize)) }
      (chunks[count / RegistrationMap.pageSize] + count % RegistrationMap.pageSize).initialize(to: record)
      count += 1
      // A position fits: 2^32 records would take hundreds of gigabytes.
      positions[index % RegistrationMap.pageSize] = UInt32(truncatingIfNeeded: count)
      return nil
    }
  }

  /// A registration that a `store` replaced. Let it go only once the container's lock is
  /// released: it may hold the last reference to its factory and `dispose:` closure, and freeing
  /// what they captured runs deinits, which may call the container (and would wait for ever for
  /// its lock).
  ///
  /// An object, made only when a store replaces something: a store that replaces nothing, as a
  /// start-up's thousands do, returns nil, one word, where an optional record would be copied
  /// out of the lock at a cost of about 200 instructions.
  final class Replaced {
    private let record: Record
    fileprivate init(_ record: consuming Record) { self.record = record }

    /// The replaced registration's object, if something made it (bindings may hold it).
    var made: Registration? { record.made }
  }

  /// Stores the registration of `index`, made by `factory` with `fields`, and returns the one it
  /// replaces (see ``Replaced``).
  mutating func store(_ factory: any RegistrationFactory, _ fields: RegistrationFields, at index: Int) -> Replaced? {
    // `Factory` is a closure and a tag: it fits in the existential's inline buffer, so keeping it
    // allocates nothing.
    madeStorage()._withUnsafeGuaranteedRef { $0.store(Record(fields: fields, factory: factory, made: nil), at: index) }
  }

  /// Stores an already made registration of its index; returns the one it replaces, as above.
  mutating func store(_ registration: Registration, at index: Int) -> Replaced? {
    madeStorage()._withUnsafeGuaranteedRef {
      $0.store(Record(fields: registration.fields, factory: nil, made: registration), at: index)
    }
  }

  private mutating func madeStorage() -> Unmanaged<Storage> {
    if let borrowed { return borrowed }
    let made = Storage()
    storage = made
    return Unmanaged.passUnretained(made)
  }

  /// The registration of `index`, made now if nothing asked for it before.
  func registration(at index: Int) -> Registration? {
    guard let record = borrowed?._withUnsafeGuaranteedRef({ $0.record(index) }) else { return nil }
    if let made = record.pointee.made { return made }
    guard let factory = record.pointee.factory else { return nil }
    let made = factory.registration(index: index, fields: record.pointee.fields)
    record.pointee.made = made
    record.pointee.factory = nil
    return made
  }

  /// Whether `index` has a registration.
  func contains(_ index: Int) -> Bool { borrowed?._withUnsafeGuaranteedRef { $0.record(index) } != nil }

  /// The indices that hold a registration, in increasing order.
  var keys: [Int] {
    guard let storage else { return [] }
    var keys: [Int] = []
    keys.reserveCapacity(storage.count)
    for (page, positions) in storage.pages.enumerated() {
      guard let positions else { continue }
      for offset in 0..<Self.pageSize where positions[offset] != 0 { keys.append(page * Self.pageSize + offset) }
    }
    return keys
  }
}
