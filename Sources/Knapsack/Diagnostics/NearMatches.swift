import CKnapsack

extension Container {
  /// The registrations closest to a dependency nobody provides, nearest first: the same type
  /// under another name (or without one), a key of that type, then a type with the same base
  /// name (an optional or existential variant, or a type of that name from another module), then
  /// those related by conformance: for an existential (`any Store`), the types and keys whose
  /// value conforms to it (a `SQLiteStore` registered by its own type, which Knapsack does not
  /// resolve as `any Store`); for any other type, the existentials it conforms to (`any Store`
  /// registered, `SQLiteStore` asked for).
  ///
  /// Only errors call this. Its cost does not grow with the container: it looks only at the
  /// dependencies whose type has the same base name, or conforms, and keeps those visible from
  /// here (a key's default is not a registration: which keys a process has seen depends on what
  /// it ran). Conformance is asked of the runtime once for each dependency and existential.
  /// The dependencies on the way to it (`path`) are not suggested: one of them is what asked.
  ///
  /// Nor does it grow with how many dependencies share the type: they are kept in name order
  /// (see ``NearMatchGroup``), and it reads each list only until it has `limit` registrations. A
  /// validation that finds a missing `Key<Bool>` asked for by each of thousands of `Key<Bool>`
  /// registrations used to read them all for each one: time quadratic in their number.
  func nearMatches(to index: Int, excluding path: [Int] = [], limit: Int = 5) -> [ResolutionError.NearMatch] {
    let table = KeyTable.shared
    // The snapshot is taken inside the lock: descriptors only grow, so it covers every index the
    // grouping already holds, even when another error extended it a moment ago.
    let (descriptors, group) = table.byBaseName.withLock { grouping in
      let descriptors = table.descriptors
      if grouping.indexed < descriptors.count {
        NearMatchGroup.add(descriptors[grouping.indexed...], to: &grouping.groups, in: descriptors)
        grouping.indexed = descriptors.count
      }
      return (descriptors, grouping.groups[Self.baseName(descriptors[index].typeName)] ?? [:])
    }
    let wantedType = descriptors[index].typeName
    var excluded = Set(path).union([index])
    /// The first `count` of `list` (in name order) that are registered here and not excluded.
    /// An index past the snapshot is skipped: the conformance cache may have been extended by
    /// another error, with a newer snapshot, since this one was taken.
    func registered(_ list: [Int], _ count: Int) -> [(index: Int, site: CodeLocation)] {
      var found: [(index: Int, site: CodeLocation)] = []
      for candidate in list where candidate < descriptors.count && !excluded.contains(candidate) {
        guard found.count < count else { break }
        if let registration = effectiveRegistration(candidate)?.0 { found.append((candidate, registration.location)) }
      }
      return found
    }
    // The same type, registered by type, then by a key; then the other types of the base name,
    // together in name order.
    let same = group[wantedType] ?? NearMatchGroup()
    var nearest = registered(same.types, limit)
    nearest += registered(same.keys, limit - nearest.count)
    if nearest.count < limit {
      let remaining = limit - nearest.count
      var others: [(index: Int, site: CodeLocation)] = []
      for (typeName, lists) in group where typeName != wantedType {
        others += registered(lists.types, remaining) + registered(lists.keys, remaining)
      }
      nearest += others.sorted { NearMatchGroup.precedes($0.index, $1.index, in: descriptors) }.prefix(remaining)
    }
    if nearest.count < limit, let wanted = descriptors[index].valueType {
      let related = table.relatedByConformance(to: wanted, in: descriptors)
      excluded.formUnion(nearest.map(\.index))
      let remaining = limit - nearest.count
      let found = registered(related.types, remaining) + registered(related.keys, remaining)
      nearest += found.sorted { NearMatchGroup.precedes($0.index, $1.index, in: descriptors) }.prefix(remaining)
    }
    return nearest.map { ResolutionError.NearMatch(dependency: descriptors[$0.index].reference, site: $0.site) }
  }

  /// `Store` for `Store`, `Store?`, `Optional<Store>`, `any Store`, `App.Store`, compared
  /// case-insensitively.
  static func baseName(_ typeName: String) -> String {
    var name = Substring(typeName)
    var changed = true
    while changed {
      changed = false
      for prefix in ["any ", "some ", "Optional<", "Swift.Optional<", "ImplicitlyUnwrappedOptional<"]
      where name.hasPrefix(prefix) {
        name = name.dropFirst(prefix.count)
        if prefix.hasSuffix("<"), name.hasSuffix(">") { name = name.dropLast() }
        changed = true
      }
      while name.hasSuffix("?") || name.hasSuffix("!") {
        name = name.dropLast()
        changed = true
      }
      if name.hasPrefix("("), name.hasSuffix(")"), !name.contains(",") {
        name = name.dropFirst().dropLast()
        changed = true
      }
    }
    // The last component of a qualified name, outside generic arguments.
    var depth = 0
    var start = name.startIndex
    for position in name.indices {
      switch name[position] {
      case "<": depth += 1
      case ">": depth -= 1
      case "." where depth == 0: start = name.index(after: position)
      default: break
      }
    }
    return name[start...].lowercased()
  }
}

/// The dependencies of one type name that near matches may name, registered by type and by a key,
/// each list in name order (then index order, the order the process first saw them).
/// Multibindings and contributions are never near matches: they are left out.
struct NearMatchGroup {
  var types: [Int] = []
  var keys: [Int] = []

  /// Whether `left` comes before `right` in a list.
  static func precedes(_ left: Int, _ right: Int, in descriptors: Descriptors) -> Bool {
    (descriptors[left].displayName, left) < (descriptors[right].displayName, right)
  }

  /// Adds `added`, new descriptors, to `groups` (by base name, then type name), each list kept in
  /// order: the new ones of a list are sorted, then merged in, in time linear in the list.
  static func add(
    _ added: Slice<Descriptors>, to groups: inout [String: [String: NearMatchGroup]], in descriptors: Descriptors
  ) {
    var batches: [String: [String: NearMatchGroup]] = [:]
    for descriptor in added where descriptor.kind != .multibinding && descriptor.kind != .contribution {
      batches[Container.baseName(descriptor.typeName), default: [:]][descriptor.typeName, default: NearMatchGroup()]
        .append(descriptor)
    }
    for (base, byType) in batches {
      for (typeName, batch) in byType {
        groups[base, default: [:]][typeName, default: NearMatchGroup()].merge(batch, in: descriptors)
      }
    }
  }

  /// Adds `descriptor` at the end of its list (types or keys), unsorted: a batch to ``merge(_:in:)``.
  mutating func append(_ descriptor: Descriptor) {
    if descriptor.kind == .type { types.append(descriptor.index) } else { keys.append(descriptor.index) }
  }

  /// Merges `batch`, new dependencies in any order, into the lists, keeping each in order.
  mutating func merge(_ batch: NearMatchGroup, in descriptors: Descriptors) {
    types = Self.merged(types, batch.types, in: descriptors)
    keys = Self.merged(keys, batch.keys, in: descriptors)
  }

  /// `list`, in order, with `added` merged in.
  private static func merged(_ list: [Int], _ added: [Int], in descriptors: Descriptors) -> [Int] {
    guard !added.isEmpty else { return list }
    let sorted = added.sorted { precedes($0, $1, in: descriptors) }
    guard !list.isEmpty else { return sorted }
    var result: [Int] = []
    result.reserveCapacity(list.count + sorted.count)
    var (i, j) = (0, 0)
    while i < list.count, j < sorted.count {
      if precedes(sorted[j], list[i], in: descriptors) {
        result.append(sorted[j])
        j += 1
      } else {
        result.append(list[i])
        i += 1
      }
    }
    return result + list[i...] + sorted[j...]
  }
}

extension KeyTable {
  /// The keys and types related to `wanted` by conformance (see ``Conformance/relates(_:_:to:)``),
  /// each list in name order (see ``byConformance``). `descriptors` is a snapshot of every
  /// descriptor so far.
  func relatedByConformance(to wanted: Any.Type, in descriptors: Descriptors) -> NearMatchGroup {
    let protocols = Conformance.protocols(of: wanted)
    return byConformance.withLock { cache in
      var (indexed, related) = cache[ObjectIdentifier(wanted)] ?? (0, NearMatchGroup())
      guard indexed < descriptors.count else { return related }
      var added = NearMatchGroup()
      for descriptor in descriptors[indexed...] {
        // A multibinding or a contribution has no value type: never a near match.
        guard let type = descriptor.valueType, Conformance.relates(wanted, protocols, to: type) else { continue }
        added.append(descriptor)
      }
      related.merge(added, in: descriptors)
      indexed = descriptors.count
      cache[ObjectIdentifier(wanted)] = (indexed, related)
      return related
    }
  }
}

/// What the runtime knows of protocol conformances, for the near matches of an existential that
/// nobody registered. Only errors use it.
enum Conformance {
  /// The protocols that the existential `type` (`any Store`, `any Store & Named`) is made of, as
  /// the runtime's protocol descriptors; nil for any other type, and for an existential with no
  /// protocol that the runtime records (`Any`, `AnyObject`, `any Sendable`: a marker protocol
  /// leaves no trace at run time), which any type would match.
  static func protocols(of type: Any.Type) -> [UnsafeRawPointer]? {
    // The metadata of an existential (the ABI's `ExistentialTypeMetadata`): a word for its kind,
    // 0x303; 32 bits of flags; the number of protocols, 32 bits; a word for the superclass
    // constraint, if the flags say there is one (0x4000_0000); then a word for each protocol.
    let word = MemoryLayout<UInt>.size
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    guard metadata.load(as: UInt.self) == 0x303 else { return nil }
    let flags = metadata.load(fromByteOffset: word, as: UInt32.self)
    let count = Int(metadata.load(fromByteOffset: word + 4, as: UInt32.self))
    // A superclass constraint (`any Base & Store`) is not checked here: no near match then.
    guard flags & 0x4000_0000 == 0 else { return nil }
    let first = word + 8
    var protocols: [UnsafeRawPointer] = []
    for offset in 0..<count {
      let reference = metadata.load(fromByteOffset: first + offset * word, as: UInt.self)
      // An Objective-C protocol (its low bit set, on platforms with Objective-C interop) is no
      // Swift protocol descriptor: no near match is looked for then.
      guard reference & 1 == 0, let descriptor = UnsafeRawPointer(bitPattern: reference) else { return nil }
      protocols.append(descriptor)
    }
    return protocols.isEmpty ? nil : protocols
  }

  /// Whether a dependency of type `candidate` may be what an error asking for `wanted` meant.
  /// For an existential `wanted` (`protocols` are its protocols, see ``protocols(of:)``): a type
  /// that conforms to it. For any other: an existential that `wanted` conforms to, one made of
  /// protocols the runtime records (see ``protocols(of:)``).
  static func relates(_ wanted: Any.Type, _ protocols: [UnsafeRawPointer]?, to candidate: Any.Type) -> Bool {
    guard ObjectIdentifier(candidate) != ObjectIdentifier(wanted) else { return false }
    if let protocols { return type(candidate, conformsTo: protocols) }
    guard let candidateProtocols = Self.protocols(of: candidate) else { return false }
    return type(wanted, conformsTo: candidateProtocols)
  }

  /// Whether `type` conforms to each of `protocols` (see ``protocols(of:)``).
  static func type(_ type: Any.Type, conformsTo protocols: [UnsafeRawPointer]) -> Bool {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    return protocols.allSatisfy { swift_conformsToProtocol(metadata, $0) != nil }
  }
}
