extension Container {
  /// The registrations closest to a dependency nobody provides, nearest first: the same type
  /// under another name (or without one), a key of that type, then a type with the same base
  /// name (an optional or existential variant, or a type of that name from another module).
  ///
  /// Only errors call this. Its cost does not grow with the container: it looks only at the
  /// dependencies whose type has the same base name, and keeps those visible from here (a key's
  /// default is not a registration: which keys a process has seen depends on what it ran).
  /// The dependencies on the way to it (`path`) are not suggested: one of them is what asked.
  func nearMatches(to index: Int, excluding path: [Int] = [], limit: Int = 5) -> [ResolutionError.NearMatch] {
    let table = KeyTable.shared
    // The snapshot is taken inside the lock: descriptors only grow, so it covers every index the
    // grouping already holds, even when another error extended it a moment ago.
    let (descriptors, candidates) = table.byBaseName.withLock { grouping in
      let descriptors = table.descriptors
      for descriptor in descriptors[grouping.indexed...] {
        grouping.groups[Self.baseName(descriptor.typeName), default: []].append(descriptor.index)
      }
      grouping.indexed = descriptors.count
      return (descriptors, grouping.groups[Self.baseName(descriptors[index].typeName)] ?? [])
    }
    let wantedType = descriptors[index].typeName
    // The nearest `limit` so far, in order. A candidate is looked up (a lock per container level)
    // only if it would rank among them: one pass, no sort, however many share the base name.
    var nearest: [(rank: Int, name: String, match: ResolutionError.NearMatch)] = []
    for candidate in candidates where candidate != index && !path.contains(candidate) {
      let descriptor = descriptors[candidate]
      guard descriptor.kind != .multibinding, descriptor.kind != .contribution else { continue }
      let rank = descriptor.typeName != wantedType ? 2 : descriptor.kind == .type ? 0 : 1
      let position = nearest.firstIndex { (rank, descriptor.displayName) < ($0.rank, $0.name) } ?? nearest.endIndex
      guard position < limit, let registration = effectiveRegistration(candidate)?.0 else { continue }
      nearest.insert(
        (
          rank, descriptor.displayName,
          ResolutionError.NearMatch(dependency: descriptor.reference, site: registration.location)
        ),
        at: position)
      if nearest.count > limit { nearest.removeLast() }
    }
    return nearest.map(\.match)
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
