/// One module of the checked graph: its name and its files' facts.
struct ModuleFacts {
  var name: String
  var files: [FileFacts]
}

/// One line of the report, printed in the compiler's format.
struct Finding: Hashable, Comparable {
  enum Severity: String { case error, warning, remark, note }
  var severity: Severity
  var site: Site
  var message: String
  /// For a note, the site and message of the finding it belongs to: SwiftPM, Xcode and editors
  /// attach a note to the diagnostic printed right before it, so it sorts right after that one.
  var anchor: Site?
  var anchorMessage: String?

  init(severity: Severity, site: Site, message: String, anchor: Finding? = nil) {
    self.severity = severity
    self.site = site
    self.message = message
    self.anchor = anchor?.site
    self.anchorMessage = anchor?.message
  }

  static func < (lhs: Finding, rhs: Finding) -> Bool {
    (lhs.anchor ?? lhs.site, lhs.anchorMessage ?? lhs.message, lhs.anchor == nil ? 0 : 1, lhs.site, lhs.message)
      < (rhs.anchor ?? rhs.site, rhs.anchorMessage ?? rhs.message, rhs.anchor == nil ? 0 : 1, rhs.site, rhs.message)
  }

  /// One line, as SwiftPM, Xcode and editors read a diagnostic: source text that a message
  /// quotes (a key's type, a factory, a callee written over several lines) joined onto it.
  var line: String { "\(site.prefix): \(severity.rawValue): \(oneLine(message))" }
}

/// `text` on one line: each run of white space that holds a line break becomes one space, or
/// nothing after an opening bracket and before a closing one, a dot or a comma
/// (`Key<\n  [String: Int]\n>` is `Key<[String: Int]>`, `Factory\n  .make` is `Factory.make`).
func oneLine(_ text: String) -> String {
  guard text.contains(where: \.isNewline) else { return text }
  var result = ""
  var pending = ""
  for character in text {
    if character.isWhitespace {
      pending.append(character)
      continue
    }
    if pending.contains(where: \.isNewline) {
      let joined = result.last.map { "<([".contains($0) } ?? true || ">)].,".contains(character)
      if !joined { result.append(" ") }
    } else {
      result += pending
    }
    pending = ""
    result.append(character)
  }
  return result + (pending.contains(where: \.isNewline) ? "" : pending)
}

/// Value types of the standard library and Foundation that a key commonly provides: a holder
/// keeps a copy, so none is captive by itself.
let standardValueTypes: Set<String> = [
  "String", "Substring", "Character", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16",
  "UInt32", "UInt64", "Double", "Float", "Float16", "Decimal", "Date", "URL", "URLComponents", "URLRequest", "UUID",
  "Data", "TimeInterval", "Duration", "DateComponents", "Locale", "TimeZone", "Calendar", "Set", "Array",
  "Dictionary", "Optional", "Result", "Range", "ClosedRange", "ContinuousClock", "SuspendingClock",
]

/// Scope order, as the container's: unique < graph < weak < cached < singleton.
let scopeOrder = ["unique": 0, "graph": 1, "weak": 2, "cached": 3, "singleton": 4]

/// Checks the graph of `app`: the facts of its module and of every module it depends on.
func analyze(app: String, modules: [ModuleFacts]) -> [Finding] {
  let modules = helpersFollowed(modules)
  // Every file of the modules given takes part (the plugins give those that depend on Knapsack):
  // a file that imports only a module of the app can still call a container's methods, which
  // Swift makes visible through any module the build loads.
  let names = TypeNames(modules)
  let files = injectionsFollowed(typesQualified(keysToldApart(modules, names: names), names: names), names: names)
    .flatMap(\.files)
  // A key may be declared in several clauses of an `#if`: each clause counts, since the check
  // cannot tell which one a build takes. The first declaration gives the key's scope and type.
  let declarationsOfKey = Dictionary(grouping: files.flatMap(\.declarations), by: \.id)
  let declarations = declarationsOfKey.compactMapValues(\.first)
  let registrations = Dictionary(grouping: files.flatMap(\.registrations), by: \.id)
  let valueTypes = Set(modules.flatMap(\.files).flatMap(\.valueTypes))
  // A type resolved by a spelling its registration does not use (`Billing.Ledger` for `Ledger`,
  // or `API.Session` for `Session` registered inside `extension API`) is the registered one.
  let registeredTypes = registrations.keys.filter(\.isType).sorted()
  func provided(_ reference: Reference) -> Reference {
    guard let target = reference.target, target.isType, registrations[target] == nil,
      let registered = registeredTypes.first(where: { $0.isQualifiedSpelling(of: target, modules: names.modules) })
    else { return reference }
    var resolved = reference
    resolved.target = registered
    return resolved
  }
  var findings: [Finding] = []

  // Registrations and resolutions the check cannot follow.
  for reference in files.flatMap(\.unfollowedRegistrations) {
    findings.append(
      Finding(
        severity: .remark, site: reference.site,
        message: "knapsack-check did not cover this registration: \(reference.unfollowable ?? "it cannot be followed")")
    )
  }
  for reference in files.flatMap(\.uncheckedKeys) {
    findings.append(
      Finding(
        severity: .remark, site: reference.site,
        message: "knapsack-check did not cover this key: \(reference.unfollowable ?? "it cannot be followed")"))
  }
  for registration in files.flatMap(\.registrations) {
    if let caveat = registration.caveat {
      findings.append(
        Finding(
          severity: .remark, site: registration.site,
          message:
            "knapsack-check did not cover this registration fully: \(caveat); it is counted once as a provider of \(registration.id)"
        ))
    }
  }

  // Factories: a key's registrations, or else its default.
  struct Factory {
    var scope: String
    var resolves: [Reference]
    /// What its `Lazy` and `Provider` handles, and the `@LazyInjected` properties of the instances
    /// it makes, resolve on first access: resolutions that need a provider, but not edges of
    /// cycles; a `Lazy` is an edge of a captive dependency (it keeps the first value it reads).
    var deferred: [Reference] = []
    var isAlias: Bool
    var site: Site
  }
  var factories: [DependencyID: [Factory]] = [:]
  for (id, list) in registrations {
    factories[id] = list.map {
      Factory(
        scope: $0.scope ?? declarations[id]?.scope ?? "unique", resolves: $0.resolves.map(provided),
        deferred: $0.deferred.map(provided), isAlias: $0.isAlias, site: $0.site)
    }
  }
  for (id, list) in declarationsOfKey where factories[id] == nil {
    let defaults = list.filter { !$0.isRequired }.map {
      Factory(
        scope: $0.scope, resolves: $0.resolves.map(provided), deferred: $0.deferred.map(provided),
        isAlias: $0.isAlias, site: $0.site)
    }
    if !defaults.isEmpty { factories[id] = defaults }
  }
  // A multibinding's contributions: each is a dependency of the multibinding, with its own
  // scope and factory, named as the container names it, `\.sinks contribution (Sinks.swift:12)`.
  for contribution in files.flatMap(\.contributions) {
    let id = DependencyID(text: "\(contribution.id.text) contribution (\(contribution.site.short))", isType: false)
    factories[id] = [
      Factory(
        scope: contribution.scope ?? "unique", resolves: contribution.resolves.map(provided),
        deferred: contribution.deferred.map(provided), isAlias: false, site: contribution.site)
    ]
    let edge = Reference(target: id, site: contribution.site)
    if factories[contribution.id]?.isEmpty ?? true {
      factories[contribution.id] = [Factory(scope: "unique", resolves: [edge], isAlias: false, site: contribution.site)]
    } else {
      factories[contribution.id]?[0].resolves.append(edge)
    }
  }
  /// Every resolution of every factory, deferred ones included.
  let allResolutions = factories.values.flatMap { $0.flatMap { $0.resolves + $0.deferred } }
  for reference in allResolutions where reference.target == nil {
    findings.append(
      Finding(
        severity: .remark, site: reference.site,
        message: explained(
          "knapsack-check did not cover this resolution: \(reference.unfollowable ?? "it cannot be followed")",
          reference)))
  }

  // A registration of a key path that names no key of the graph but one a letter or two away:
  // a misspelt key, which the compiler reports only once this check passes (a required key's
  // error, at its declaration, would come first). Said at the registration, with the key it may mean.
  for (id, list) in registrations where !id.isType && declarationsOfKey[id] == nil {
    guard let site = list.map(\.site).min(), let near = nearestKey(to: id, among: declarations) else { continue }
    findings.append(
      Finding(
        severity: .warning, site: site,
        message:
          "no key named \(id.spelled) is declared in the module graph of '\(app)'; did you mean \(near.id.spelled), declared at \(near.site.short)?"
      ))
  }

  // Missing providers.
  let overrides = Dictionary(grouping: files.flatMap(\.overrideRegistrations), by: \.target)
  /// For a dependency that only overrides register: where, and that they do not provide it.
  func onlyOverridden(_ id: DependencyID) -> String {
    guard let sites = overrides[id]?.map(\.site).sorted(), let first = sites.first else { return "" }
    let more = sites.count > 1 ? " and \(sites.count - 1) more" : ""
    return
      "; it is registered only in the override scope of withOverrides (\(first.short)\(more)), which provides it inside that scope alone"
  }
  for declaration in declarationsOfKey.values.joined()
  where declaration.isRequired && registrations[declaration.id] == nil {
    if declaration.isSilenced {
      findings.append(
        Finding(
          severity: .remark, site: declaration.site,
          message:
            "required key \(declaration.id) is not registered in the module graph of '\(app)'; silenced by '// \(silencingMarker)' (provided at run time)"
        ))
    } else {
      findings.append(
        Finding(
          severity: .error, site: declaration.site,
          message:
            "required key \(declaration.id.noted(declaration.typeText)) has no registration in the module graph of '\(app)'\(onlyOverridden(declaration.id)); register it (container.register(\(declaration.id.spelled)) \(declaration.takesArgument ? "{ r, argument in ... }" : "{ ... }")), or mark a provider that exists only at run time with '// \(silencingMarker)'"
        ))
    }
  }
  let unregistered = allResolutions.filter {
    $0.target.map { $0.isType && factories[$0] == nil } ?? false
  }
  /// `Session` for `Session`, `Billing.Session`, `Session?` or `Box<Session>`'s `Box`: what a
  /// near match shares with the type nobody registers.
  func baseName(_ type: Substring) -> Substring {
    let bare = type.prefix { $0 != "<" && $0 != "?" }
    return bare.split(separator: ".").last ?? bare
  }
  /// The registrations closest to a type nobody registers, as `validate()` lists them: the same
  /// type under another name (or without one), a key of that type, then a type of the same base
  /// name (an optional, or one qualified by another module); each with its site.
  func nearby(_ id: DependencyID) -> String {
    let (type, _) = id.typeAndName
    let base = baseName(type)
    guard !base.isEmpty else { return "" }
    var matches: [(rank: Int, text: String)] = []
    for (candidate, list) in registrations where candidate != id {
      guard let site = list.map(\.site).min() else { continue }
      if candidate.isType {
        let (candidateType, _) = candidate.typeAndName
        guard baseName(candidateType) == base else { continue }
        matches.append((candidateType == type ? 0 : 2, "\(candidate) at \(site.short)"))
      } else if let declaration = declarations[candidate], baseName(declaration.valueType[...]) == base {
        matches.append((1, "\(candidate.spelled) (\(declaration.typeText)) at \(site.short)"))
      }
    }
    let nearest = matches.sorted { ($0.rank, $0.text) < ($1.rank, $1.text) }.prefix(3).map(\.text)
    return nearest.isEmpty ? "" : "; registered nearby: \(nearest.joined(separator: ", "))"
  }
  for references in Dictionary(grouping: unregistered, by: \.target).values {
    // The first resolution of the type, with the type as it spells it.
    if let first = references.min(by: { $0.site < $1.site }), let id = first.target {
      findings.append(
        Finding(
          severity: .error, site: first.site,
          message: explained(
            "\(id) is resolved here but registered nowhere in the module graph of '\(app)'\(onlyOverridden(id))\(nearby(id))",
            first)
        ))
    }
  }

  // Cycles: a depth-first walk with an explicit stack (a chain of thousands of keys must not
  // overflow the thread's stack), each key walked once; an edge back to a key on the stack closes
  // a cycle, reported once, from its smallest member.
  var reported: Set<[DependencyID]> = []
  var explored: Set<DependencyID> = []
  func siteOf(_ id: DependencyID) -> Site? { factories[id]?.first?.site ?? declarations[id]?.site }
  func edges(_ id: DependencyID) -> [Reference] { (factories[id] ?? []).flatMap(\.resolves) }
  for root in factories.keys.sorted() where !explored.contains(root) {
    // Each entry: a key, its resolutions, and how many of them were followed.
    var stack: [(id: DependencyID, edges: [Reference], next: Int)] = [(root, edges(root), 0)]
    var position: [DependencyID: Int] = [root: 0]
    while let top = stack.last {
      guard top.next < top.edges.count else {
        explored.insert(top.id)
        position[top.id] = nil
        stack.removeLast()
        continue
      }
      stack[stack.count - 1].next += 1
      guard let next = top.edges[top.next].target else { continue }
      if let start = position[next] {
        // Each key of the cycle with the site of its resolution of the next one.
        let loop = stack[start...].map { (id: $0.id, edge: $0.edges[$0.next - 1]) }
        let ids = loop.map(\.id)
        let rotation = ids.indices.min { ids[$0] < ids[$1] } ?? 0
        guard reported.insert(Array(ids[rotation...] + ids[..<rotation])).inserted else { continue }
        let ordered = Array(loop[rotation...] + loop[..<rotation])
        // A contribution's name holds its site already.
        let text =
          (ordered.map { $0.id.isContribution ? "\($0.id)" : $0.id.noted(siteOf($0.id)?.short ?? "?") }
          + ["\(ids[rotation])"])
          .joined(separator: " -> ")
        guard let first = siteOf(ids[rotation]) else { continue }
        let cycle = Finding(severity: .error, site: first, message: "dependency cycle: \(text)")
        findings.append(cycle)
        for (member, edge) in ordered {
          findings.append(
            Finding(
              severity: .note, site: edge.site,
              message: explained("\(member) resolves the next key of the cycle here", edge), anchor: cycle))
        }
      } else if !explored.contains(next) {
        position[next] = stack.count
        stack.append((next, edges(next), 0))
      }
    }
  }

  // Captive dependencies: a container-owned instance that holds a shorter-lived one directly, or
  // through value types.
  func valueType(of id: DependencyID) -> String {
    id.isType ? String(id.text.prefix { $0 != " " }) : declarations[id]?.valueType ?? ""
  }
  /// Whether `id` is made as a value: a struct or enum of the graph (a generic one by its name
  /// without arguments), a standard or Foundation value type, a collection, optional or tuple
  /// written as such, or a multibinding (an array of its contributions).
  func isValue(_ id: DependencyID) -> Bool {
    if let declaration = declarations[id], multibindingKinds.contains(where: declaration.typeText.hasPrefix) {
      return true
    }
    let type = valueType(of: id)
    if type.hasPrefix("[") || type.hasSuffix("?") || type.hasPrefix("(") { return true }
    let name = String(type.prefix { $0 != "<" })
    let bare = name.hasPrefix("Foundation.") ? String(name.dropFirst("Foundation.".count)) : name
    // `Billing.Session` for a `Session` that module Billing declares.
    let inModule = name.firstIndex(of: ".").flatMap { dot in
      names.modules.contains(String(name[..<dot])) ? String(name[name.index(after: dot)...]) : nil
    }
    return valueTypes.contains(name) || inModule.map(valueTypes.contains) == true || standardValueTypes.contains(bare)
  }
  /// What an instance of `scope` should not outlive, as a captive dependency's message says it.
  func lifetime(_ scope: String) -> String {
    switch scope {
    case "weak": "one holder"
    case "cached": "resetCached()"
    default: "one use"
    }
  }
  func shortestScope(_ id: DependencyID) -> String? {
    factories[id]?.map(\.scope).max { (scopeOrder[$0] ?? 0) < (scopeOrder[$1] ?? 0) }
  }
  for id in factories.keys.sorted() {
    for factory in factories[id] ?? [] where ["weak", "cached", "singleton"].contains(factory.scope) {
      let holderOrder = scopeOrder[factory.scope] ?? 0
      var pending = factory.resolves.compactMap { ref in ref.target.map { ([$0], ref) } }
      var seen: Set<DependencyID> = []
      while let (path, first) = pending.popLast() {
        guard let held = path.last, seen.insert(held).inserted, let heldScope = shortestScope(held),
          holderOrder > scopeOrder[heldScope] ?? 0
        else { continue }
        // A value is looked through to what it holds; an alias to the instance of the key it
        // resolves, which lives as long as that key's scope says: the holder holds that one.
        let isAlias = factories[held].map { !$0.isEmpty && $0.allSatisfy(\.isAlias) } ?? false
        if isAlias || isValue(held) {
          pending += (factories[held] ?? []).flatMap {
            $0.resolves.compactMap { $0.target.map { (path + [$0], first) } }
          }
          continue
        }
        let through = path.dropLast().map(\.description)
        let via = through.isEmpty ? "" : " through \(through.joined(separator: ", "))"
        findings.append(
          Finding(
            severity: .warning, site: first.site,
            message: explained(
              "captive dependency: \(id.noted(factory.scope)) holds \(held.noted(heldScope))\(via), which should not outlive \(lifetime(heldScope))",
              first)))
      }
      // A `Lazy` it keeps keeps the first value it reads (but a singleton or cached object,
      // weakly), as `validate()` counts it: a value read out of one is not looked through (the
      // run does not make it for the holder).
      for lazy in factory.deferred where lazy.keepsFirstValue {
        guard var held = lazy.target else { continue }
        // An alias hands out the instance of the key it resolves: the `Lazy` keeps that one.
        var of = ""
        if let aliases = factories[held], !aliases.isEmpty, aliases.allSatisfy(\.isAlias),
          let source = aliases.first?.resolves.first?.target
        {
          of = " of \(held)"
          held = source
        }
        // A cached object, which its container keeps, a `Lazy` holds weakly: it does not keep it
        // past a reset (as `validate()` counts it).
        guard let heldScope = shortestScope(held), holderOrder > scopeOrder[heldScope] ?? 0, !isValue(held),
          heldScope != "cached"
        else {
          continue
        }
        findings.append(
          Finding(
            severity: .warning, site: lazy.site,
            message: explained(
              "captive dependency: \(id.noted(factory.scope)) holds \(held.noted(heldScope)) through a Lazy\(of), which keeps the first value it reads, but that should not outlive \(lifetime(heldScope)): hold a Provider to resolve it anew each time",
              lazy)))
      }
    }
  }
  return Array(Set(findings)).sorted()
}

/// The name of the type a key's values have, as a factory's call names it: the key type's last
/// generic argument, without a trailing `?` or `!` (a made instance is promoted to an optional)
/// and without generic arguments of its own. `Billing.Box` for `Key<Billing.Box<Int>?>`.
func valueTypeName(ofKey keyType: String) -> String? {
  guard let open = keyType.firstIndex(of: "<"), keyType.last == ">" else { return nil }
  let arguments = keyType[keyType.index(after: open)..<keyType.index(before: keyType.endIndex)]
  // The last argument at the top level: after the last comma outside brackets.
  var depth = 0
  var start = arguments.startIndex
  for index in arguments.indices {
    switch arguments[index] {
    case "<", "(", "[": depth += 1
    case ">", ")", "]": depth -= 1
    case "," where depth == 0: start = arguments.index(after: index)
    default: break
    }
  }
  var value = arguments[start...].trimmingCharacters(in: .whitespaces)
  while value.hasSuffix("?") || value.hasSuffix("!") { value.removeLast() }
  return String(value.prefix { $0 != "<" })
}

/// The position of the parameter of `helper` that each argument of `call` goes to, matched in
/// order as Swift does: an argument goes to the next parameter with its label; a parameter it
/// skips has a default, or is given by a trailing closure. Nil when an argument fits none: the
/// call is not one of `helper`.
func parameterPositions(of call: KeyPathCall, in helper: RegisteringFunction) -> [Int]? {
  var positions: [Int] = []
  for label in call.labels {
    let next = positions.last.map { $0 + 1 } ?? 0
    guard let position = helper.parameterLabels[next...].firstIndex(where: { $0 == label }) else { return nil }
    positions.append(position)
  }
  return positions
}

/// The scope `call` registers with through the scope parameter at position `parameter` of
/// `helper`: the one it passes (nil if not a literal scope), or the parameter's default if it
/// passes none (see ``parameterPositions(of:in:)``).
func scopeOf(_ call: KeyPathCall, passedTo parameter: Int, _ helper: RegisteringFunction) -> String? {
  guard let argument = parameterPositions(of: call, in: helper)?.firstIndex(of: parameter) else {
    return helper.scopeDefault
  }
  return call.scopes[argument]
}

/// The modules each module imports, in any of its files: what a module sees.
struct ModuleImports {
  private var imports: [String: Set<String>] = [:]

  init(_ modules: [ModuleFacts]) {
    for module in modules { imports[module.name, default: []].formUnion(module.files.flatMap(\.imports)) }
  }

  /// The modules `roots` see: themselves and what they import, directly or through other
  /// modules' imports.
  func visible(from roots: some Sequence<String>) -> Set<String> {
    var seen: Set<String> = []
    var pending = Array(roots)
    while let next = pending.popLast() {
      if seen.insert(next).inserted { pending += imports[next] ?? [] }
    }
    return seen
  }
}

/// The modules' facts with each call of a registration helper (see ``RegisteringFunction``) that
/// passes a key path, `singleton(\.clock) { SystemClock() }`, counted as a registration of that
/// key at the call, with the scope the helper names (or the call passes it) and what the closure
/// the call passes resolves. A call matches a helper by its name, and the position and label of
/// the key path. A helper no such call reaches stays a registration the check cannot follow.
func helpersFollowed(_ modules: [ModuleFacts]) -> [ModuleFacts] {
  let helpers = modules.flatMap(\.files).flatMap(\.registeringFunctions)
  guard !helpers.isEmpty else { return modules }
  let byName = Dictionary(grouping: helpers, by: \.name)
  let imports = ModuleImports(modules)
  /// The helper a call in `module` calls: of those whose name, key path position and labels fit
  /// it, one of the caller's own module, else one of a module it sees, else any (the first by
  /// site, so that every run picks the same).
  func helper(called call: KeyPathCall, from module: String, seeing: Set<String>) -> RegisteringFunction? {
    let fitting = (byName[call.callee] ?? []).filter {
      $0.parameter == call.argument && $0.label == call.label && parameterPositions(of: call, in: $0) != nil
    }
    let own = fitting.filter { $0.site.module == module }
    let seen = fitting.filter { $0.site.module.map(seeing.contains) ?? false }
    return (own.isEmpty ? seen.isEmpty ? fitting : seen : own).min { $0.site < $1.site }
  }
  var used: Set<RegisteringFunction> = []
  var result = modules.map { module in
    var module = module
    let seeing = imports.visible(from: [module.name])
    module.files = module.files.map { file in
      var file = file
      for call in file.keyPathCalls {
        guard let helper = helper(called: call, from: module.name, seeing: seeing) else { continue }
        used.insert(helper)
        // In an override scope's configuration, as a `register` written there: no provider.
        if call.isOverride {
          file.overrideRegistrations.append(Reference(target: .key(call.key), site: call.site))
          continue
        }
        file.registrations.append(
          Registration(
            id: .key(call.key),
            scope: helper.scope ?? helper.scopeParameter.flatMap { scopeOf(call, passedTo: $0, helper) },
            resolves: call.resolves, constructions: call.constructions, deferred: call.deferred, site: call.site,
            caveat: call.isInLoop ? "this registration is in a loop" : nil))
      }
      return file
    }
    return module
  }
  for index in result.indices {
    for fileIndex in result[index].files.indices {
      for helper in result[index].files[fileIndex].registeringFunctions where !used.contains(helper) {
        result[index].files[fileIndex].unfollowedRegistrations.append(
          Reference(
            target: nil, site: helper.site,
            unfollowable: "the key path is a parameter of \(helper.name), and no call passes it a key path"))
      }
    }
  }
  return result
}

/// `message`, followed by what led to `reference` when it is an `@Injected` property's: `(@Injected
/// in TodoScreen, made by TodoScreen() at App/main.swift:7)`.
func explained(_ message: String, _ reference: Reference) -> String {
  reference.via.map { "\(message) (\($0))" } ?? message
}

/// The modules' facts with each key told apart by the module that declares it, when two modules
/// declare keys of one name (`var config` in two features): such a key is `\.config (Module)`.
///
/// A key path names the key of a declaring module its module sees: itself, or one it imports,
/// directly or through other modules (Swift makes an extension's members visible through every
/// import of the module, transitively). As in Swift, a module's key shadows that of a module it
/// imports. When the module sees several, the file's own imports decide, if they can. Otherwise
/// Swift chooses by the value's type: a registration whose factory makes a named type registers
/// the one key of that value type; any other is counted as a provider of each (with a remark), and
/// a resolution is not followed (with a remark).
func keysToldApart(_ modules: [ModuleFacts], names: TypeNames) -> [ModuleFacts] {
  var declaring: [String: Set<String>] = [:]
  for module in modules {
    for declaration in module.files.flatMap(\.declarations) where !declaration.id.isType {
      declaring[declaration.id.text, default: []].insert(module.name)
    }
  }
  let shared = declaring.filter { $0.value.count > 1 }
  guard !shared.isEmpty else { return modules }
  /// The type of each key of a shared name in each module that declares it, qualified by the
  /// modules that declare the types it names (`Key<Billing.Config>`), or nil when the check
  /// cannot tell which module's type a name means.
  var keyTypes: [String: [String: String?]] = [:]
  for module in modules {
    for file in module.files {
      for declaration in file.declarations where shared[declaration.id.text] != nil {
        let type = names.qualified(normalizedType(declaration.typeText), in: module.name, imports: file.imports)
        keyTypes[declaration.id.text, default: [:]][module.name] = type.isCertain ? type.text : nil
      }
    }
  }

  let imports = ModuleImports(modules)
  let reachable = names.reachable
  /// The declarers of the key `name` left once those a declarer's module imports are dropped:
  /// they are shadowed, as in Swift, when their key has the same type. Keys of different types
  /// all stay, since Swift then chooses by the value's type. Types compare by the module that
  /// declares each name (`Key<Billing.Config>` is Billing's `Key<Config>`); one name written
  /// alike in both (`Key<Config>`, each module with a `Config` of its own) is two types, and a
  /// key whose type names one the check cannot place shadows nothing.
  func unshadowed(_ declarers: Set<String>, of name: String) -> Set<String> {
    declarers.filter { candidate in
      !declarers.contains {
        guard $0 != candidate, reachable[$0]?.contains(candidate) == true,
          case let mine?? = keyTypes[name]?[$0], case let theirs?? = keyTypes[name]?[candidate]
        else { return false }
        return mine == theirs
      }
    }
  }

  return modules.map { module in
    var result = module
    result.files = module.files.map { file in
      // The file's own module, and what its own imports make visible: not every import of the
      // module's other files, which would tell nothing apart.
      let inFile = imports.visible(from: file.imports).union([module.name])
      /// The key `id` names in this file: one, or the candidates when the check cannot tell.
      func told(_ id: DependencyID) -> (id: DependencyID?, candidates: [String]) {
        guard !id.isType, let declarers = shared[id.text] else { return (id, []) }
        var seen = unshadowed(declarers.intersection(reachable[module.name] ?? [module.name]), of: id.text)
        if seen.count > 1, case let narrowed = unshadowed(seen.intersection(inFile), of: id.text), !narrowed.isEmpty {
          seen = narrowed
        }
        if seen.isEmpty { seen = declarers }
        guard seen.count == 1, let declarer = seen.first else { return (nil, seen.sorted()) }
        return (id.declared(in: declarer), [])
      }
      func several(_ id: DependencyID, _ candidates: [String]) -> String {
        let modules = candidates.dropLast().joined(separator: ", ") + " and " + (candidates.last ?? "")
        return
          "\(modules) \(candidates.count == 2 ? "both" : "all") declare \(id.spelled) and this file sees them; which one it names depends on the value's type"
      }
      func told(_ references: [Reference]) -> [Reference] {
        references.map { reference in
          guard let target = reference.target else { return reference }
          let (id, candidates) = told(target)
          var reference = reference
          reference.target = id
          if id == nil { reference.unfollowable = several(target, candidates) }
          return reference
        }
      }
      var file = file
      file.declarations = file.declarations.map { declaration in
        var declaration = declaration
        if shared[declaration.id.text] != nil { declaration.id = declaration.id.declared(in: module.name) }
        declaration.resolves = told(declaration.resolves)
        declaration.deferred = told(declaration.deferred)
        return declaration
      }
      file.registrations = file.registrations.flatMap { registration -> [Registration] in
        var registration = registration
        registration.resolves = told(registration.resolves)
        registration.deferred = told(registration.deferred)
        var (id, candidates) = told(registration.id)
        // Swift picks the key by the value's type: a factory that makes one named type registers
        // the one key whose value is that type, if one is.
        if id == nil, let made = registration.madeType {
          let type = names.qualified(made, in: module.name, imports: file.imports)
          let matching = candidates.filter { declarer in
            guard type.isCertain, case let keyType?? = keyTypes[registration.id.text]?[declarer] else { return false }
            return valueTypeName(ofKey: keyType) == type.text
          }
          if matching.count == 1, let declarer = matching.first { id = registration.id.declared(in: declarer) }
        }
        if let id {
          registration.id = id
          return [registration]
        }
        let original = registration.id
        return candidates.map { declarer in
          var counted = registration
          counted.id = original.declared(in: declarer)
          counted.caveat = several(original, candidates)
          return counted
        }
      }
      file.overrideRegistrations = told(file.overrideRegistrations)
      // What a type's `@Injected` properties name, as the file that declares them spells it.
      for index in file.injectingTypes.indices {
        file.injectingTypes[index].injections = told(file.injectingTypes[index].injections)
        file.injectingTypes[index].lazyInjections = told(file.injectingTypes[index].lazyInjections)
      }
      // A contribution to a multibinding of a name several modules declare goes to the one the
      // file names, or, when the check cannot tell, is not followed (the multibinding counts as
      // provided anyway).
      file.contributions = file.contributions.compactMap { contribution in
        var contribution = contribution
        contribution.resolves = told(contribution.resolves)
        contribution.deferred = told(contribution.deferred)
        guard let id = told(contribution.id).id else { return nil }
        contribution.id = id
        return contribution
      }
      return file
    }
    return result
  }
}

/// What tells types of one name in several modules apart: the modules of the graph, the types
/// each declares and the modules each imports.
struct TypeNames {
  /// The modules of the graph, by name: what qualifies a type (`Billing.Config`).
  let modules: Set<String>
  let declared: [String: Set<String>]
  /// The type aliases each module declares, by name.
  let aliases: [String: Set<String>]
  /// The modules each module sees through its imports, itself included (transitively).
  let reachable: [String: Set<String>]

  init(_ modules: [ModuleFacts]) {
    self.modules = Set(modules.map(\.name))
    var declared: [String: Set<String>] = [:]
    var aliases: [String: Set<String>] = [:]
    for module in modules {
      declared[module.name, default: []].formUnion(module.files.flatMap(\.declaredTypes))
      aliases[module.name, default: []].formUnion(module.files.flatMap(\.typeAliases))
    }
    self.declared = declared
    self.aliases = aliases
    let imports = ModuleImports(modules)
    var reachable: [String: Set<String>] = [:]
    for module in modules { reachable[module.name] = imports.visible(from: [module.name]) }
    self.reachable = reachable
  }

  /// `type` (normalized) as written in a file of `module` that imports `imports`, each type name
  /// in it qualified by the module of the graph that declares it (`Billing.Config` for `Config`
  /// written in Billing or in a file that imports it), without `Swift.` (and `Knapsack.`, unless
  /// Knapsack is a module of the graph). A name stays as written when no module of the graph
  /// declares it (`Int`, `URL`); it is uncertain when several that the file sees do (a nested
  /// type of one name counts too), since the check does not know which one Swift picks, and when
  /// it is a type alias, since the check does not know what it stands for.
  func qualified(_ type: String, in module: String, imports: [String]) -> (text: String, isCertain: Bool) {
    var isCertain = true
    let importedModules = imports.filter { $0 != module && modules.contains($0) }
    /// The modules among `seen` that declare `name`, else those that they re-export
    /// (`@_exported import`) or import.
    func declarers(of name: String, among seen: [String]) -> Set<String> {
      let found = Set(seen.filter { declared[$0]?.contains(name) == true })
      guard found.isEmpty else { return found }
      return Set(seen.filter { $0 != module }.flatMap { reachable[$0] ?? [] }).subtracting([module]).filter {
        declared[$0]?.contains(name) == true
      }
    }
    /// `name` (the first name of `path`) qualified by the one module of `found` that declares it.
    func qualify(_ path: String, _ name: String, declaredBy found: Set<String>) -> String {
      guard found.count == 1, let declarer = found.first, aliases[declarer]?.contains(name) != true else {
        if !found.isEmpty { isCertain = false }
        return path
      }
      return "\(declarer).\(path)"
    }
    func qualify(_ path: String) -> String {
      var parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      guard let first = parts.first, let initial = first.first, !initial.isNumber else { return path }
      let ownType = declared[module]?.contains(first) == true
      if parts.count > 1, first == "Swift" || (first == "Knapsack" && !modules.contains(first)), !ownType {
        parts.removeFirst()
        return parts.joined(separator: ".")
      }
      // `Billing.Ledger`: the module's own type, or one of a module it re-exports.
      if parts.count > 1, parts[1] != "", modules.contains(first), !ownType {
        parts.removeFirst()
        return qualify(parts.joined(separator: "."), parts[0], declaredBy: declarers(of: parts[0], among: [first]))
      }
      return qualify(path, first, declaredBy: declarers(of: first, among: [module] + importedModules))
    }
    var result = ""
    var path = ""
    for character in type {
      if character.isIdentifierPart || character == "." || character == "`" {
        path.append(character)
      } else {
        result += qualify(path)
        path = ""
        result.append(character)
      }
    }
    result += qualify(path)
    return (result, isCertain)
  }
}

/// The modules' facts with each type a registration or a resolution names qualified by the module
/// that declares it, when the check can tell (see ``TypeNames/qualified(_:in:imports:)``): one
/// type however a file spells it, `Ledger` in Billing and `Billing.Ledger` elsewhere, and two
/// types of one name in two modules told apart.
func typesQualified(_ modules: [ModuleFacts], names: TypeNames) -> [ModuleFacts] {
  modules.map { module in
    var result = module
    result.files = module.files.map { file in
      func qualified(_ id: DependencyID) -> DependencyID {
        guard id.isType else { return id }
        let (type, name) = id.typeAndName
        let text = names.qualified(String(type), in: module.name, imports: file.imports).text
        return DependencyID(text: text + name, isType: true, written: id.written)
      }
      func qualified(_ references: [Reference]) -> [Reference] {
        references.map { reference in
          var reference = reference
          reference.target = reference.target.map(qualified)
          return reference
        }
      }
      var file = file
      for index in file.declarations.indices {
        file.declarations[index].resolves = qualified(file.declarations[index].resolves)
        file.declarations[index].deferred = qualified(file.declarations[index].deferred)
      }
      for index in file.registrations.indices {
        file.registrations[index].id = qualified(file.registrations[index].id)
        file.registrations[index].resolves = qualified(file.registrations[index].resolves)
        file.registrations[index].deferred = qualified(file.registrations[index].deferred)
      }
      for index in file.contributions.indices {
        file.contributions[index].resolves = qualified(file.contributions[index].resolves)
        file.contributions[index].deferred = qualified(file.contributions[index].deferred)
      }
      file.overrideRegistrations = qualified(file.overrideRegistrations)
      for index in file.injectingTypes.indices {
        file.injectingTypes[index].injections = qualified(file.injectingTypes[index].injections)
        file.injectingTypes[index].lazyInjections = qualified(file.injectingTypes[index].lazyInjections)
      }
      return file
    }
    return result
  }
}

/// The declared key whose name is nearest `id`'s, at most two edits away (one for a short
/// name), if one is: what a registration of an undeclared key path probably meant.
func nearestKey(to id: DependencyID, among declarations: [DependencyID: KeyDeclaration]) -> KeyDeclaration? {
  let name = Array(id.spelled.dropFirst(2))
  let limit = name.count < 5 ? 1 : 2
  var best: (distance: Int, declaration: KeyDeclaration)?
  for (candidate, declaration) in declarations where !candidate.isType {
    let other = Array(candidate.spelled.dropFirst(2))
    guard abs(other.count - name.count) <= limit else { continue }
    let distance = editDistance(name, other)
    if distance <= limit,
      distance < best?.distance ?? .max
        || (distance == best?.distance && candidate.text < (best?.declaration.id.text ?? ""))
    {
      best = (distance, declaration)
    }
  }
  return best?.declaration
}

/// The number of single-character insertions, deletions and replacements that turn `a` into `b`.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  var previous = Array(0...b.count)
  for (i, x) in a.enumerated() {
    var current = [i + 1] + Array(repeating: 0, count: b.count)
    for (j, y) in b.enumerated() {
      current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}
