public import CKnapsack
import Synchronization

/// The process-wide table that gives every key and every (type, name) pair a dense index.
///
/// Containers keep their slots in arrays indexed by it, so a resolution never hashes a key path.
/// Looking a key path up goes through a direct-mapped cache of atomic words, keyed by the key
/// path object's address (key path literals are uniqued per use site, and the table makes every
/// cached object immortal, so an address is never reused for another key path).
@usableFromInline
final class KeyTable: Sendable {
  @usableFromInline static let shared = KeyTable()

  private struct TypeKey: Hashable {
    let type: ObjectIdentifier
    let name: String?
  }

  /// A key path as a dictionary key.
  private struct KeyPathID: Hashable, @unchecked Sendable {
    // Safe: key paths are immutable once created, and these are only hashed and compared
    // inside `state`'s lock.
    let keyPath: AnyKeyPath
  }

  /// Where contributions to a multibinding are made: its key, the contributing line, and which
  /// of the contributions from that line a container sees this one is (1 for the first; a loop
  /// or a helper called twice contributes several times from one line).
  struct ContributionSite: Hashable {
    let place: ContributionPlace
    let ordinal: Int
  }

  /// A multibinding's key and a line that contributes to it.
  struct ContributionPlace: Hashable {
    let key: Int
    let location: CodeLocation
  }

  private struct State {
    var byKeyPath: [KeyPathID: Int] = [:]
    var byType: [TypeKey: Int] = [:]
    /// Indices of contributions whose containers are gone, ready for the next contribution
    /// from the same site (their descriptors already say the right thing).
    var freeContributionIndices: [ContributionSite: [Int]] = [:]
    /// The site of each contribution index.
    var contributionSites: [Int: ContributionSite] = [:]
    /// Every descriptor so far, by index, in pages that are never moved (see ``Descriptors``).
    var pages: [DescriptorPage] = []
    var count = 0
    /// The indices described by each display name, in order (see ``indices(named:)``): also
    /// what tells a new dependency that would be shown like another apart from it.
    var byName: [String: [Int]] = [:]
    /// How many key path objects the address cache remembers for each key (see
    /// ``rememberedPerKey``).
    var remembered: [Int: Int] = [:]

    /// The last number given to a key named apart from others of each name (see ``append(_:)``).
    var numbered: [String: Int] = [:]

    /// Adds the descriptor of the next index. Reports and graphs tell dependencies apart by
    /// name, so a key named like another is named apart, when first seen: by its module if no
    /// key of that name comes from it (`\.config (Settings)`, a key of the same name declared in
    /// another module), else by a number in the order the process first sees them
    /// (`\.subscript(step:) #2`, another argument of a subscript key).
    mutating func append(_ descriptor: Descriptor) {
      var descriptor = descriptor
      let name = descriptor.displayName
      if let taken = byName[name], !descriptor.sharesItsName,
        !taken.contains(where: { self[$0].sharesItsName })
      {
        var base = name
        if let module = descriptor.module, !taken.contains(where: { self[$0].module == module }) {
          base = "\(name) (\(module))"
        }
        if byName[base] != nil || base == name {
          var number = numbered[base, default: 1]
          repeat { number += 1 } while byName["\(base) #\(number)"] != nil
          numbered[base] = number
          base = "\(base) #\(number)"
        }
        descriptor = descriptor.renamed(base)
      }
      if count % DescriptorPage.size == 0 { pages.append(DescriptorPage()) }
      pages[count / DescriptorPage.size].append(descriptor)
      count += 1
      byName[descriptor.displayName, default: []].append(descriptor.index)
    }

    /// The descriptor of `index`, which is below ``count``.
    @inline(__always)
    subscript(index: Int) -> Descriptor { DescriptorPage.descriptor(index, in: pages) }

    var descriptors: Descriptors { Descriptors(pages: pages, count: count) }
  }

  /// The most key path objects remembered for one key: a key path literal is one object per
  /// use site, but one with a subscript argument (`\.[plugin: id]`) is a new object each time
  /// it is evaluated. Remembering each would keep every one of them alive, so past this many a
  /// key is looked up by value, in the locked table. High enough that a key an app resolves in
  /// a thousand places (a logger) is remembered at every one.
  static let rememberedPerKey = 1024

  private let state = Locked(State())

  /// Indices grouped by the base name of their type, then by their type's name, in name order,
  /// for the near matches an error lists (see `Container.nearMatches(to:)`): built on the first
  /// error, extended on later ones.
  let byBaseName = Locked<(indexed: Int, groups: [String: [String: NearMatchGroup]])>((0, [:]))

  /// For each type an error asked for, the indices of the keys and types related to it by
  /// conformance (for `any Store`, those whose value conforms to it; for `SQLiteStore`, the
  /// existentials it conforms to), in name order, for the near matches an error lists: built on
  /// the first such error, extended on later ones by the dependencies seen since.
  let byConformance = Locked<[ObjectIdentifier: (indexed: Int, related: NearMatchGroup)]>([:])

  /// Every descriptor so far: a snapshot that copies none of them, and that later additions
  /// neither change nor copy (see ``Descriptors``).
  var descriptors: Descriptors { state.withLock { $0.descriptors } }

  /// The descriptor of `index`. Always inlined, with the page read below it: a caller that
  /// uses one field (an error's `reference`) then copies only that field, where a call copied the
  /// whole descriptor (650 more instructions on the failure path, S7).
  @inline(__always)
  func descriptor(_ index: Int) -> Descriptor {
    state.withLock { $0[index] }
  }

  /// The index of a key path, registering it on first sight with `describe`.
  @inline(__always)
  func index(of keyPath: AnyKeyPath, describe: (Int) -> Descriptor) -> Int {
    if let hit = AddressCache.lookup(ObjectIdentifier(keyPath)) { return hit }
    return slowIndex(of: keyPath, describe: describe)
  }

  private func slowIndex(of keyPath: AnyKeyPath, describe: (Int) -> Descriptor) -> Int {
    // Describe outside the lock: it runs the key's getter, user code.
    let id = KeyPathID(keyPath: keyPath)
    if let known = state.withLock({ $0.byKeyPath[id] }) {
      if shouldRemember(keyPath, known) { remember(keyPath, index: known) }
      return known
    }
    var next = state.withLock { $0.count }
    while true {
      let described = describe(next)
      // Another thread may have described this key, or taken the index, meanwhile: then use
      // its index, or describe again at the next free one.
      let index: Int? = state.withLock { state in
        if let raced = state.byKeyPath[id] { return raced }
        guard state.count == next else {
          next = state.count
          return nil
        }
        state.append(described)
        state.byKeyPath[id] = next
        return next
      }
      if let index {
        if shouldRemember(keyPath, index) { remember(keyPath, index: index) }
        return index
      }
    }
  }

  /// The indices of the dependencies a reference names, in order: one, but for contributions
  /// made from one line in several containers, which share their name (diagnostics only).
  func indices(named reference: DependencyReference) -> [Int] {
    state.withLock { state in
      (state.byName[reference.name] ?? []).filter { state[$0].typeName == reference.typeName }
    }
  }

  /// How many key path objects of the key at `index` the address cache remembers.
  func rememberedCount(of index: Int) -> Int {
    state.withLock { $0.remembered[index, default: 0] }
  }

  /// Whether `keyPath`, of the key at `index`, may be remembered: it is already (its entry only
  /// lost its slot to another), or fewer than ``rememberedPerKey`` objects of the key are (then
  /// it counts).
  private func shouldRemember(_ keyPath: AnyKeyPath, _ index: Int) -> Bool {
    if AddressCache.keeps(ObjectIdentifier(keyPath)) { return true }
    return state.withLock { state in
      let count = state.remembered[index, default: 0]
      guard count < Self.rememberedPerKey else { return false }
      state.remembered[index] = count + 1
      return true
    }
  }

  private func remember(_ keyPath: AnyKeyPath, index: Int) {
    // The cache maps the object's address, so the object must never be freed (another could
    // take its address). Immortal, it never is, and the runtime stops counting its references:
    // the retain and release around each use of a key path literal then write nothing, so
    // threads resolving through the same literal no longer contend for its reference count.
    immortalize(Unmanaged.passUnretained(keyPath).toOpaque())
    AddressCache.store(ObjectIdentifier(keyPath), index: index)
  }

  /// The index of a type registration, registering it on first sight. Static, so that a hit
  /// in the cache does not touch ``shared``.
  @inlinable
  static func index<T>(of type: T.Type, name: String?) -> Int {
    if name == nil, let hit = AddressCache.lookup(ObjectIdentifier(type)) { return hit }
    return shared.slowIndex(of: type, name: name)
  }

  @usableFromInline
  func slowIndex(of type: Any.Type, name: String?) -> Int {
    let metatype = ObjectIdentifier(type)
    let key = TypeKey(type: metatype, name: name)
    let index: Int = state.withLock { state in
      if let known = state.byType[key] { return known }
      let index = state.count
      // The name as a Swift string literal (quotes, backslashes and line breaks escaped), as a
      // fix that registers it spells it.
      func shown(_ typeName: String) -> String { name.map { "\(typeName) (name: \($0.debugDescription))" } ?? typeName }
      var typeName = Self.typeName(type)
      // Another type of the same name (from another module, or nested in another type) is
      // registered: this one is named by its qualified name.
      if state.byName[shown(typeName)] != nil { typeName = Self.typeName(type, qualified: true) }
      let display = shown(typeName)
      state.append(
        Descriptor(
          index: index, kind: .type, displayName: display, typeName: typeName, declaration: nil,
          defaultRegistration: nil, valueType: type))
      state.byType[key] = index
      return index
    }
    // Metatypes are never deallocated, so their address is a stable identity.
    if name == nil { AddressCache.store(metatype, index: index) }
    return index
  }

  /// An index for a contribution made at `site`: one its container holds alone. It is one a
  /// gone container gave back (see ``recycleContributionIndices(_:)``) if there is one, so that
  /// contributing into containers that come and go does not grow the table.
  func contributionIndex(at site: ContributionSite, _ describe: (Int) -> Descriptor) -> Int {
    state.withLock { state in
      if let index = state.freeContributionIndices[site]?.popLast() { return index }
      let index = state.count
      state.append(describe(index))
      state.contributionSites[index] = site
      return index
    }
  }

  /// Takes back the contribution indices of a container that is gone: nothing can resolve
  /// them any more (children, overlays and errors hold their container).
  func recycleContributionIndices(_ indices: [Int]) {
    guard !indices.isEmpty else { return }
    state.withLock { state in
      for index in indices {
        if let site = state.contributionSites[index] { state.freeContributionIndices[site, default: []].append(index) }
      }
    }
  }
}

/// Every descriptor up to a count, as the table held them when taken.
///
/// The table only appends, and keeps its descriptors in pages of fixed size that it never moves
/// nor writes twice: a snapshot is the list of pages and the count, and neither taking one nor
/// adding a descriptor while snapshots are held copies any descriptor. (An array snapshot made
/// every later addition copy the whole array while it was held: registering thousands of new
/// dependencies while an error listed its near matches took time quadratic in the table, under
/// the table's lock, which every resolution that names a dependency takes.)
struct Descriptors: RandomAccessCollection, Sendable {
  let pages: [DescriptorPage]
  let endIndex: Int

  fileprivate init(pages: [DescriptorPage], count: Int) {
    self.pages = pages
    self.endIndex = count
  }

  var startIndex: Int { 0 }

  subscript(index: Int) -> Descriptor {
    precondition(index >= 0 && index < endIndex, "descriptor index out of range")
    return DescriptorPage.descriptor(index, in: pages)
  }
}

/// A block of ``DescriptorPage/size`` descriptor slots, filled in index order.
final class DescriptorPage: @unchecked Sendable {
  /// A constant the compiler folds (a `static let` is read through its lazy initializer).
  @inline(__always) static var size: Int { 256 }

  // Safe: a slot is written once, inside the key table's lock, before the count that covers it
  // is (also inside that lock); it is read only below a count read inside the lock, and never
  // written again. `filled` is changed only inside the lock, and read by `deinit`.
  private let slots = UnsafeMutablePointer<Descriptor>.allocate(capacity: size)
  private var filled = 0

  /// Writes `descriptor` into the next free slot; only inside the key table's lock, on a page
  /// that is not full.
  fileprivate func append(_ descriptor: Descriptor) {
    (slots + filled).initialize(to: descriptor)
    filled += 1
  }

  /// The descriptor of `index` in `pages`, the table's pages in order; `index` is below a count
  /// read inside the table's lock.
  @inline(__always)
  fileprivate static func descriptor(_ index: Int, in pages: [DescriptorPage]) -> Descriptor {
    pages[index / size].slots[index % size]
  }

  deinit {
    slots.deinitialize(count: filled)
    slots.deallocate()
  }
}

extension String {
  func replacingPrefix(_ prefix: String, with replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }
}

/// Makes an object immortal: it is never freed, and retaining or releasing it changes nothing
/// (the runtime's entry point for objects that live as long as the process; it only sets the
/// object's reference count to the immortal value, atomically).
@_silgen_name("_swift_stdlib_immortalize")
private func immortalize(_ object: UnsafeMutableRawPointer)

/// A lock-free, direct-mapped cache from an object's address to an index.
///
/// Each entry is one atomic word of the C table `knapsack_key_cache`, pointing to an immutable
/// ``Entry``; the cache keeps every entry it ever stored alive, so a reader may use what it
/// loaded without retaining it. A collision only costs a trip to the locked table. The table is
/// a C global so that the hot path reaches it with no lazy-initialization check.
@usableFromInline
enum AddressCache {
  @usableFromInline static var size: Int { Int(KNAPSACK_KEY_CACHE_SIZE) }
  /// Every entry ever published, by address.
  private static let kept = Locked<[UInt: Entry]>([:])

  @usableFromInline
  final class Entry: Sendable {
    @usableFromInline let address: UInt
    @usableFromInline let index: Int
    init(address: UInt, index: Int) {
      self.address = address
      self.index = index
    }
  }

  @inlinable
  static func slot(_ address: UInt) -> Int { Int(truncatingIfNeeded: (address >> 4) ^ (address >> 16)) & (size - 1) }

  @inlinable
  static func lookup(_ id: ObjectIdentifier) -> Int? {
    let address = UInt(bitPattern: id)
    guard let pointer = UnsafeRawPointer(bitPattern: knapsack_key_cache_load(slot(address))) else { return nil }
    return Unmanaged<Entry>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.address == address ? $0.index : nil }
  }

  /// Whether an entry for `id` was ever stored.
  static func keeps(_ id: ObjectIdentifier) -> Bool {
    kept.withLock { $0[UInt(bitPattern: id)] != nil }
  }

  static func store(_ id: ObjectIdentifier, index: Int) {
    let address = UInt(bitPattern: id)
    // One entry per address, reused when two addresses that share a slot take turns.
    let entry = kept.withLock { kept -> Entry? in
      if let existing = kept[address] { return existing.index == index ? existing : nil }
      let fresh = Entry(address: address, index: index)
      kept[address] = fresh
      return fresh
    }
    guard let entry else { return }
    knapsack_key_cache_store(slot(address), UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque()))
  }
}
