/// A dependency as errors, reports and graphs name it.
public struct DependencyReference: Sendable, Hashable, Codable, CustomStringConvertible {
  /// `\.storage` for a key; the type name, with its registration name if any, for a type.
  public let name: String
  /// The type of the value, such as `any LocalStorage`.
  public let typeName: String
  /// Where the key was declared, if known.
  public let location: CodeLocation?

  /// Creates a reference.
  public init(name: String, typeName: String, location: CodeLocation?) {
    self.name = name
    self.typeName = typeName
    self.location = location
  }

  /// The name, such as `\.storage`.
  public var description: String { name }
}

/// Why a resolution failed: the dependency, where it was declared or registered, and the
/// resolution path that led there.
///
/// ```text
/// Knapsack: required key \.clock (any AppClock) was never provided.
///   declared at Common/Keys.swift:14
///   path: \.todoList → \.repository → \.clock
///   fix: register it at the composition root, `container.register(\.clock) { ... }`,
///        or in a test, `withOverrides { $0.register(\.clock) { ... } } operation: { ... }`.
/// ```
public struct ResolutionError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The kind of failure.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// A key declared with `.required()` was resolved but nobody registered a factory for it.
    case requiredKeyNotProvided
    /// A type (and name) was resolved but nothing was registered for it.
    case notRegistered
    /// The dependency depends on itself; ``ResolutionError/path`` shows the whole loop.
    case cycle
    /// The factory threw; ``ResolutionError/underlying`` describes the error.
    case factoryFailed
    /// The container (or one it belongs to) was disposed.
    case containerDisposed
    /// The factory registered for the dependency does not produce the requested type or needs
    /// a different resolution call (an asynchronous factory resolved synchronously).
    case factoryMismatch
    /// The resolution went so deep that the thread would run out of stack, or deeper than 10,000
    /// asynchronous steps (a runaway); nothing was created past that point.
    /// ``ResolutionError/path`` shows how it got there.
    case resolutionTooDeep
  }

  /// A registration whose type or name is close to the one asked for: the same type under
  /// another name, a key of that type, a type with the same base name (an optional or
  /// existential variant, another module's type of that name), or one related by conformance:
  /// for an existential (`any Store`), a type or key whose value conforms to it; for another
  /// type (`SQLiteStore`), an existential it conforms to.
  public struct NearMatch: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The dependency that is registered.
    public let dependency: DependencyReference
    /// Where it was registered, or, for a key's default, declared.
    public let site: CodeLocation?

    /// Creates a near match.
    public init(dependency: DependencyReference, site: CodeLocation?) {
      self.dependency = dependency
      self.site = site
    }

    /// `any TodoStore (name: "main") at TodoApp/Composition.swift:12`, or for a key
    /// `\.todoStore (any TodoStore) at TodoKit/Keys.swift:8`.
    public var description: String {
      let name = dependency.subject
      return site.map { "\(name) at \($0)" } ?? name
    }
  }

  /// The kind of failure.
  public let kind: Kind
  /// The dependency that could not be resolved.
  public let dependency: DependencyReference
  /// Where the failing registration was made, if it was registered.
  public let registeredAt: CodeLocation?
  /// The line of your code that asked for ``dependency``: the `resolve` call or subscript, of a
  /// key, a multibinding or a type, at the top level, in a factory or in a decorator; the line
  /// that made the `Lazy` or `Provider` that asked; or the `@Injected` property. Where the call
  /// names no line (a protocol of your own, which passes none, ``Resolving/resolve()``), a
  /// decorator's request falls back to where the decorator was added. A multibinding's
  /// contribution, which no line asks for by itself, takes the line that asked for the
  /// multibinding. `nil` for a request with no line and for an error about a dependency further
  /// down the path, which its own request names. For a cycle, the call that closes its loop,
  /// asking again for a dependency being made: its ``description`` names it after the sites of
  /// each member.
  public var requestedAt: CodeLocation? {
    switch request {
    case .call(let site): site.location
    case .location(let location): location
    case .unnamed, nil: nil
    }
  }
  /// Where ``requestedAt`` comes from: a call's site as the call passed it, made a
  /// `CodeLocation` only when read (a failure costs no `String` for it), or a location.
  private var request: Request?
  private enum Request: Sendable {
    case call(CallSite)
    case location(CodeLocation)
    /// A call that names no line (a protocol's `resolve<T>()`) closed a cycle: no request
    /// further up, for the loop's first dependency, is the one that closed it.
    case unnamed
  }
  /// The resolution path from the top-level request to ``dependency`` (both included).
  public let path: [DependencyReference]
  /// Where each dependency on ``path`` was registered (`nil` where it was not, or where its
  /// key's default was used), in the same order: the registration that served each step, in
  /// the container that ran it, when the error was thrown.
  public var pathRegistrations: [CodeLocation?] {
    guard let origin else { return givenPathRegistrations }
    return origin.sites ?? origin.path.map { _ in registeredAt }
  }
  private let givenPathRegistrations: [CodeLocation?]
  /// A description of the error a factory threw, for ``Kind/factoryFailed``; for
  /// ``Kind/factoryMismatch`` and ``Kind/resolutionTooDeep``, which check failed; for
  /// ``Kind/containerDisposed``, why the container cannot be used; for
  /// ``Kind/requiredKeyNotProvided`` and ``Kind/notRegistered``, nil, or why what a child container
  /// provides does not reach its parent's shared instance.
  public let underlying: String?
  /// For a missing dependency, the registrations closest to it (see ``NearMatch``), nearest
  /// first. Looked up each time it is read, in the container that threw the error (which the
  /// error keeps), so that throwing it costs nothing extra: read it before registering more if
  /// you keep the error.
  public var nearMatches: [NearMatch] {
    guard let origin, kind == .notRegistered || kind == .requiredKeyNotProvided else { return givenNearMatches }
    return origin.container.nearMatches(to: origin.index, excluding: origin.path)
  }
  private let givenNearMatches: [NearMatch]
  /// For an error the engine made: the container and indices it was made from, so that the
  /// near matches are looked up when read, not when thrown (code that tries a resolution and
  /// handles its absence pays nothing for them).
  private let origin: Origin?
  /// For an error the engine made, the indices of ``path``.
  var pathIndices: [Int]? { origin?.path }
  /// The index of ``dependency``, for an error the engine made.
  var dependencyIndex: Int? { origin?.index }
  /// The container whose resolution failed, for an error the engine made.
  var failingContainer: Container? { origin?.container }
  /// Whether ``dependency`` is a key that takes an argument, whose factory the fix of a required
  /// key spells `{ r, argument in ... }`: `{ ... }` is no factory of such a key. Looked up when
  /// read for an error the engine made (throwing costs nothing for it); encoded, so that a
  /// decoded error says the same; not compared (``dependency`` decides it).
  private var takesArgument: Bool {
    origin.map { KeyTable.shared.descriptor($0.index).kind == .argumentKey } ?? decodedTakesArgument
  }
  /// ``takesArgument`` as decoded, for an error that was encoded.
  private var decodedTakesArgument = false
  /// ``pathArguments`` as decoded, for an error that was encoded: a decoded error's path shows
  /// the arguments its steps were made for, as the error did (`\.node(3) → \.node(2)`).
  private var decodedPathArguments: [String?]?
  /// Thrown in a validation run by a step that reached a root known to fail (see
  /// `ValidationMemo`): the report of that root's failure covers it. Not compared, not encoded.
  var isCoveredByReport = false

  private struct Origin: Sendable {
    let container: Container
    let index: Int
    let path: [Int]
    /// The sites of a path longer than one step (see ``pathRegistrations``).
    let sites: [CodeLocation?]?
    /// The argument each step was made for, as text, if any step took one (see
    /// ``pathSteps``).
    let arguments: [String?]?
  }

  /// Creates an error; the engine makes these, tests may compare against them.
  public init(
    kind: Kind, dependency: DependencyReference, registeredAt: CodeLocation? = nil,
    path: [DependencyReference], pathRegistrations: [CodeLocation?]? = nil, underlying: String? = nil,
    nearMatches: [NearMatch] = [], requestedAt: CodeLocation? = nil
  ) {
    self.kind = kind
    self.dependency = dependency
    self.registeredAt = registeredAt
    request = requestedAt.map(Request.location)
    self.path = path
    self.givenPathRegistrations = pathRegistrations ?? path.map { _ in nil }
    self.underlying = underlying
    self.givenNearMatches = nearMatches
    self.origin = nil
  }

  /// An error made by `container`'s engine for the dependency `index` (registered at
  /// `registeredAt`), reached by `path`, whose steps were registered at `pathSites` (nil for a
  /// path of one step).
  init(
    kind: Kind, container: Container, index: Int, path indices: [Int], registeredAt: CodeLocation?,
    pathSites: [CodeLocation?]?, pathArguments: [String?]? = nil, underlying: String?
  ) {
    let table = KeyTable.shared
    self.kind = kind
    dependency = table.descriptor(index).reference
    self.registeredAt = registeredAt
    path = indices.map { table.descriptor($0).reference }
    self.underlying = underlying
    givenPathRegistrations = []
    givenNearMatches = []
    origin = Origin(container: container, index: index, path: indices, sites: pathSites, arguments: pathArguments)
  }

  private enum CodingKeys: String, CodingKey {
    case kind, dependency, registeredAt, requestedAt, path, pathRegistrations, underlying, nearMatches, takesArgument,
      pathArguments
  }

  /// Decodes an error encoded by ``encode(to:)``.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      kind: try container.decode(Kind.self, forKey: .kind),
      dependency: try container.decode(DependencyReference.self, forKey: .dependency),
      registeredAt: try container.decodeIfPresent(CodeLocation.self, forKey: .registeredAt),
      path: try container.decode([DependencyReference].self, forKey: .path),
      pathRegistrations: try container.decode([CodeLocation?].self, forKey: .pathRegistrations),
      underlying: try container.decodeIfPresent(String.self, forKey: .underlying),
      nearMatches: try container.decode([NearMatch].self, forKey: .nearMatches),
      requestedAt: try container.decodeIfPresent(CodeLocation.self, forKey: .requestedAt))
    decodedTakesArgument = try container.decodeIfPresent(Bool.self, forKey: .takesArgument) ?? false
    decodedPathArguments = try container.decodeIfPresent([String?].self, forKey: .pathArguments)
  }

  /// Encodes the error, its near matches included.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kind, forKey: .kind)
    try container.encode(dependency, forKey: .dependency)
    try container.encodeIfPresent(registeredAt, forKey: .registeredAt)
    try container.encodeIfPresent(requestedAt, forKey: .requestedAt)
    try container.encode(path, forKey: .path)
    try container.encode(pathRegistrations, forKey: .pathRegistrations)
    try container.encodeIfPresent(underlying, forKey: .underlying)
    try container.encode(nearMatches, forKey: .nearMatches)
    if takesArgument { try container.encode(true, forKey: .takesArgument) }
    try container.encodeIfPresent(pathArguments, forKey: .pathArguments)
  }

  /// Whether two errors say the same thing, near matches included.
  public static func == (left: ResolutionError, right: ResolutionError) -> Bool {
    left.kind == right.kind && left.dependency == right.dependency && left.registeredAt == right.registeredAt
      && left.requestedAt == right.requestedAt && left.path == right.path
      && left.pathRegistrations == right.pathRegistrations
      && left.underlying == right.underlying && left.nearMatches == right.nearMatches
  }

  /// Hashes what `==` compares, except the sites of the path and the near matches (looked up
  /// when read).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
    hasher.combine(dependency)
    hasher.combine(registeredAt)
    hasher.combine(requestedAt)
    hasher.combine(path)
    hasher.combine(underlying)
  }

  /// `error` with `site`, the call that asked for `index`, if it is a resolution error about
  /// `index` itself and no call nearer to the failure named one already. Out of line: a
  /// `ResolutionError` in the caller's frame would cost every level of a chain its size in stack.
  @usableFromInline @inline(never)
  static func requested(_ error: any Error, _ index: Int, at site: CallSite) -> any Error {
    requested(error, index, .call(site))
  }

  /// `error` with `site` as the code that asked for `index`, on the same conditions as above.
  static func requested(_ error: any Error, _ index: Int, at site: CodeLocation) -> any Error {
    requested(error, index, .location(site))
  }

  /// `error` passed out of a request for `index` that names no line (a protocol's
  /// `resolve<T>()`, a handle made without one). For a cycle it closes, no request further up is
  /// taken for the closing one: the top-level request for the loop's first dependency asks for
  /// the same dependency, but did not close the loop. (A decorator's request still falls back to
  /// where the decorator was added.)
  static func requestedWithoutSite(_ error: any Error, _ index: Int) -> any Error {
    guard var error = error as? ResolutionError, error.kind == .cycle, error.request == nil,
      error.origin?.index == index
    else { return error }
    error.request = .unnamed
    return error
  }

  private static func requested(_ error: any Error, _ index: Int, _ request: Request) -> any Error {
    // The origin's index alone first: copying the whole origin costs the failure path (S7).
    guard var error = error as? ResolutionError, error.request == nil || error.isUnnamedClosing(by: request),
      error.origin?.index == index || error.origin.map({ isContribution($0, of: index) }) == true
    else { return error }
    error.request = request
    return error
  }

  /// Whether this error's loop was closed by a call that names no line, inside the decorator
  /// whose location `request` is: the decorator's location names the closing call then.
  private func isUnnamedClosing(by request: Request) -> Bool {
    guard case .unnamed = self.request, case .location = request else { return false }
    return true
  }

  /// Whether `origin` is one of the contributions of the multibinding at `index`: no line of the
  /// user's asks for a contribution, the resolution of its multibinding does, so an error about
  /// the contribution itself (its factory threw) names the call that asked for the multibinding.
  private static func isContribution(_ origin: Origin, of index: Int) -> Bool {
    let path = origin.path
    return path.count >= 2 && path[path.count - 2] == index
      && KeyTable.shared.descriptor(origin.index).kind == .contribution
  }

  /// This error, with `reason` as why what it misses is not provided (see ``underlying``).
  func explained(by reason: String) -> ResolutionError {
    ResolutionError(self, underlying: reason)
  }

  /// `error` with `underlying`. (`underlying` stays a `let`: as a `var`, making any error copied
  /// it once more, which the failure-path benchmark, S7, counts.)
  private init(_ error: ResolutionError, underlying: String?) {
    kind = error.kind
    dependency = error.dependency
    registeredAt = error.registeredAt
    request = error.request
    path = error.path
    givenPathRegistrations = error.givenPathRegistrations
    self.underlying = underlying
    givenNearMatches = error.givenNearMatches
    origin = error.origin
    decodedTakesArgument = error.decodedTakesArgument
    decodedPathArguments = error.decodedPathArguments
    isCoveredByReport = error.isCoveredByReport
  }

  /// The whole path as one line: `\.todoList → \.repository → \.clock`. (``description``
  /// prints a path of more than 12 steps as its first and last four.)
  /// A step that was made for an argument shows it: `\.node(3)`.
  public var pathDescription: String { pathSteps.joined(separator: " → ") }

  /// Each step of ``path`` as messages show it: its name, then, for a step made for an argument,
  /// the argument's description, cut short: `\.node(3)`. The steps of a chain of one argument
  /// key differ only in their arguments.
  var pathSteps: [String] { Self.steps(path, pathArguments) }

  /// The argument of each step of ``path``, as text, for an error the engine made where a step
  /// took one (or one decoded from such an error).
  var pathArguments: [String?]? { origin?.arguments ?? decodedPathArguments }

  /// Each step of `path` as messages show it, with its argument from `arguments` if it has one.
  static func steps(_ path: [DependencyReference], _ arguments: [String?]?) -> [String] {
    guard let arguments, arguments.count == path.count else { return path.map(\.name) }
    return zip(path, arguments).map { step, argument in argument.map { "\(step.name)(\($0))" } ?? step.name }
  }

  /// A cycle's loop, `\.b → \.c → \.b`, and the steps that led into it when the resolution
  /// began outside it: `(reached from \.a)`. Those steps are not part of the loop, and a `Lazy`
  /// there would not break it. Then what else the error knows of it, such as the argument a key
  /// was asked for again: `: asked again for the same argument, 7`.
  var cycleDescription: String {
    let explained = underlying.map { ": \($0)" } ?? ""
    // Steps as shown, arguments included: a key that walks its arguments (`\.node(3) → \.node(2)`)
    // before it asks for one again loops from that argument's step, not from its first.
    let steps = pathSteps
    guard let last = steps.last, let start = steps.dropLast().firstIndex(of: last), start > 0 else {
      return Self.shortened(steps) + explained
    }
    return "\(Self.shortened(steps[start...])) (reached from \(Self.shortened(steps[..<start])))\(explained)"
  }

  /// Each dependency of a cycle's `path` with its own sites (`\.b: declared at …`), once: the
  /// loop's members first (the last step closes the loop), then the steps that led into it.
  /// Past ``readableSteps`` dependencies, it says how many more there are (the path holds them
  /// all).
  static func cycleMembers(_ path: [DependencyReference], _ registrations: [CodeLocation?]) -> [String] {
    // The loop's own members first (where a fix goes), then the steps that led into it.
    let steps = Array(zip(path, registrations).dropLast())
    let start = path.last.flatMap { last in path.dropLast().firstIndex(of: last) } ?? 0
    var listed: Set<String> = []
    let members = (steps[start...] + steps[..<start]).filter { listed.insert($0.0.name).inserted }
    let lines = members.prefix(readableSteps).map { reference, site in
      "\(reference.name): \(sites(reference.location, site))"
    }
    guard members.count > readableSteps else { return lines }
    return lines + ["… and \(members.count - readableSteps) more (the path lists every one)"]
  }

  /// The line of a cycle's message that names the call closing its loop, `closed at
  /// App/Wiring.swift:42, which asks for \.a again`: the only line that points at a decorator
  /// that closes it. Nil where no line of the user's asked.
  static func closingLine(_ site: CodeLocation?, _ steps: [String]) -> String? {
    guard let site, let repeated = steps.last else { return nil }
    return "closed at \(site), which asks for \(repeated) again"
  }

  /// The most steps a message prints of a path, and of a cycle's members.
  static let readableSteps = 12

  /// A path as messages print it: whole up to ``readableSteps`` steps; a longer one (a deep
  /// chain) as its first and last four steps around how many it leaves out. The error's
  /// ``path`` holds every step.
  static func shortened(_ steps: some Collection<String>) -> String {
    let names = Array(steps)
    guard names.count > readableSteps else { return names.joined(separator: " → ") }
    return (names.prefix(4) + ["… \(names.count - 8) more"] + names.suffix(4)).joined(separator: " → ")
  }

  /// The ``underlying`` text of a cycle closed by a reader of a `Lazy` that would wait for the
  /// `Lazy`'s first read, under way in another thread or task, which waits for the reader.
  static let handleWaitNote = "the first read of its Lazy, under way in another thread or task, waits for this one"

  /// Whether a decorator threw, not the factory, for ``Kind/factoryFailed``: its ``underlying``
  /// text then says where the decorator was added (see `DecoratorFailure`).
  var isDecoratorFailure: Bool { underlying?.hasPrefix(DecoratorFailure.prefix) == true }

  /// A multi-line explanation: what failed, where it was declared or registered, the path,
  /// and how to fix it.
  public var description: String {
    var lines: [String] = []
    let subject = dependency.subject
    switch kind {
    case .requiredKeyNotProvided:
      lines.append(
        underlying.map { "Knapsack: required key \(subject) is not provided where it is needed: \($0)." }
          ?? "Knapsack: required key \(subject) was never provided.")
    case .notRegistered:
      lines.append(
        underlying.map { "Knapsack: \(subject) is not registered where it is needed: \($0)." }
          ?? "Knapsack: nothing is registered for \(subject).")
    case .cycle:
      lines.append("Knapsack: dependency cycle: \(cycleDescription).")
    case .factoryFailed:
      lines.append(
        isDecoratorFailure
          ? "Knapsack: making \(subject): \(underlying ?? "its decorator threw")."
          : "Knapsack: the factory for \(subject) threw: \(underlying ?? "an error").")
    case .containerDisposed:
      lines.append("Knapsack: cannot resolve \(subject): \(underlying ?? "the container was disposed").")
    case .factoryMismatch:
      lines.append("Knapsack: the factory for \(subject) cannot be used here: \(underlying ?? "type mismatch").")
    case .resolutionTooDeep:
      lines.append(
        "Knapsack: resolving \(subject) went \(path.count) levels deep, \(underlying ?? "too deep for this thread's stack")."
      )
    }
    // A factory's error that ends its own sentence ("disk full!") takes no second stop.
    if let first = lines.first, first.hasSuffix("."), [".", "!", "?"].contains(first.dropLast().last) {
      lines[0] = String(first.dropLast())
    }
    if kind == .cycle {
      lines += Self.cycleMembers(path, pathRegistrations).map { "  " + $0 }
      if let closing = Self.closingLine(requestedAt, pathSteps) { lines.append("  " + closing) }
    } else {
      // (A multibinding contribution is declared where it is registered: said once.)
      if let location = dependency.location, location != registeredAt { lines.append("  declared at \(location)") }
      if let registeredAt { lines.append("  registered at \(registeredAt)") }
      if let requestedAt { lines.append("  asked for at \(requestedAt)") }
    }
    if kind != .cycle, path.count > 1 || kind == .resolutionTooDeep {
      lines.append("  path: \(Self.shortened(pathSteps))")
      if kind != .resolutionTooDeep, path.count > 1 {
        let requester = path[path.count - 2]
        let site = Self.sites(requester.location, pathRegistrations[path.count - 2])
        if site != "site unknown" { lines.append("  requested by \(requester.name): \(site)") }
      }
    }
    if !nearMatches.isEmpty {
      lines.append("  registered nearby: \(nearMatches.map(\.description).joined(separator: "; "))")
    }
    if let fix { lines.append("  fix: \(fix)") }
    return lines.joined(separator: "\n")
  }

  /// What to do about this error, the message's `fix:` line: nil where the message says it all
  /// (a factory that threw, a factory of the wrong kind). A validation problem made from this
  /// error prints the same line.
  var fix: String? {
    switch kind {
    case .requiredKeyNotProvided where underlying != nil, .notRegistered where underlying != nil:
      return
        "register \(dependency.name) also where the shared dependency is registered, or register the shared"
        + " dependency also where \(dependency.name) is, so that an instance of its own is made there."
    case .requiredKeyNotProvided:
      let factory = takesArgument ? "{ r, argument in ... }" : "{ ... }"
      return
        "register it at the composition root, `container.register(\(dependency.spelling)) \(factory)`,"
        + " or in a test, `withOverrides { $0.register(\(dependency.spelling)) \(factory) } operation: { ... }`."
    case .notRegistered:
      let typeExpression = dependency.typeName.hasPrefix("any ") ? "(\(dependency.typeName))" : dependency.typeName
      let name = dependency.registrationName.map { ", name: \($0)" } ?? ""
      return
        "register it, `container.register(type: \(typeExpression).self\(name)) { r in ... }`,"
        + " in the container or one of its parents; only a Sendable type can be registered."
    case .cycle where underlying == Self.handleWaitNote:
      return
        "keep the `Lazy`, but read it after the factories on this loop have returned, not inside one of them:"
        + " its value needs them."
    case .cycle:
      return "break the loop with `r.lazy(...)` or `r.provider(...)` on one of its edges."
    case .containerDisposed where underlying == Container.ScopeEnded.text:
      return
        "use the instance while the scope is open, or make the handle outside the scope: what an override"
        + " scope made ends with it."
    case .containerDisposed where underlying == Self.handleContainerReleased:
      return
        "keep the container for as long as the instances it made are used (a property of the app or of the"
        + " test, not a local variable), or, for one made in an override scope, use it inside the scope."
    case .containerDisposed where underlying == Self.handleRunEnded:
      return "use what a validation run makes only during the run; resolve from the container itself after it."
    case .containerDisposed:
      return "resolve from a live container; a disposed one stays disposed."
    case .resolutionTooDeep where underlying == StackGuard.Limit.asynchronousSteps.description:
      // A fixed number of steps, not a stack: a larger stack would not help.
      return
        "shorten the chain: an asynchronous resolution stops at a fixed number of steps, and a key that asks"
        + " for itself with a new argument each time goes one step deeper per argument; a `Provider` or `Lazy`"
        + " edge resolves later, as a resolution of its own."
    case .resolutionTooDeep where path.count >= 2 && Set(path.suffix(64).map(\.name)).count == 1:
      // One key at every level the path shows: a key asking for itself anew, with a new argument
      // each time, which no stack is deep enough for if it never stops.
      return
        "\(dependency.name) asks for itself at every level, each time with a new argument: if that never"
        + " stops, give its factory a case that returns without resolving \(dependency.name) again; if it"
        + " does, resolve it on a thread with a larger stack."
    case .resolutionTooDeep:
      return
        "resolve it on a thread with a larger stack, or shorten the chain (a `Provider` or `Lazy` edge read"
        + " after the factory returns resolves from a fresh stack depth; one read inside the factory nests"
        + " like a direct resolve)."
    case .factoryMismatch where isWrongSample:
      return underlying?.hasSuffix(WrongSampleArgument.noArgument) == true
        ? "leave \(dependency.spelling) out of `validate(arguments:)`: only a key that takes an argument is given a sample."
        : "give \(dependency.spelling) a sample of the type it takes in `validate(arguments:)`, or none (it is then"
          + " listed as not run)."
    case .factoryFailed, .factoryMismatch:
      return nil
    }
  }

  /// Whether this is validation's report of a sample argument of the wrong type.
  var isWrongSample: Bool { kind == .factoryMismatch && underlying?.hasPrefix(WrongSampleArgument.prefix) == true }

  /// Why a `Lazy` or `Provider` that a singleton or cached instance holds cannot resolve: its
  /// container was released (the handle holds it weakly).
  static let handleContainerReleased =
    "the handle was made for a singleton or cached instance of its container, which was released (not"
    + " disposed; for an instance made in an override scope, that is the scope's copy of the container,"
    + " which ends with the scope): the handle holds that container weakly, so that the two do not keep"
    + " each other alive"

  /// Why a handle that a validation run made cannot resolve.
  static let handleRunEnded = "the handle was made by a validation run, which has ended"

  /// `declared at A, registered at B`, whichever are known; one site once (a multibinding
  /// contribution is declared where it is registered).
  static func sites(_ declared: CodeLocation?, _ registered: CodeLocation?) -> String {
    let declared = declared == registered ? nil : declared
    let parts = [declared.map { "declared at \($0)" }, registered.map { "registered at \($0)" }].compactMap { $0 }
    return parts.isEmpty ? "site unknown" : parts.joined(separator: ", ")
  }
}

extension DependencyReference {
  /// A key as `\.storage (any LocalStorage)`; a type once, with its name if it has one.
  var subject: String { name.hasPrefix("\\.") ? name.noted(typeName) : name }

  /// A key as code spells it, `\.storage`: its name without what tells it apart from a key of
  /// the same name seen before it (` (Common)`, its module; ` #2`, a number). A key declared as a
  /// subscript, named `\.subscript(plugin:)`, is spelt as code subscripts it, `\.[plugin: ...]`:
  /// its argument's value is not known, and `\.subscript(plugin:)` does not compile.
  var spelling: String {
    let spelling = unnumberedSpelling
    guard spelling.hasPrefix("\\.subscript("), spelling.hasSuffix(":)") else { return spelling }
    let labels = spelling.dropFirst("\\.subscript(".count).dropLast().split(
      separator: ":", omittingEmptySubsequences: false
    )
    .dropLast()
    guard !labels.isEmpty, labels.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return spelling }
    return "\\.[" + labels.map { $0 == "_" ? "..." : "\($0): ..." }.joined(separator: ", ") + "]"
  }

  /// ``spelling`` before a subscript's is made: the name without its module or number.
  private var unnumberedSpelling: String {
    guard name.hasPrefix("\\.") else { return name }
    var spelling = Substring(name)
    // ` #2`: a space, a mark and a number.
    if let mark = spelling.lastIndex(of: "#"), mark > spelling.startIndex,
      spelling[spelling.index(before: mark)] == " ", spelling.index(after: mark) < spelling.endIndex,
      spelling[spelling.index(after: mark)...].allSatisfy(\.isNumber)
    {
      spelling = spelling[..<spelling.index(before: mark)]
    }
    // ` (Common)`: a space and a module's name in parentheses.
    if spelling.hasSuffix(")"), let open = spelling.lastIndex(of: "("), open > spelling.startIndex,
      spelling[spelling.index(before: open)] == " "
    {
      let module = spelling[spelling.index(after: open)..<spelling.index(before: spelling.endIndex)]
      if !module.isEmpty, module.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
        spelling = spelling[..<spelling.index(before: open)]
      }
    }
    return String(spelling)
  }

  /// The quoted registration name of a named type registration, such as `"archive"`.
  var registrationName: String? {
    guard !name.hasPrefix("\\."), name.hasSuffix(")"), let range = name.firstRange(of: " (name: ") else { return nil }
    return String(name[range.upperBound..<name.index(before: name.endIndex)])
  }
}

/// The errors thrown while disposing a container's instances, one per failing instance.
/// Every instance is disposed even when some fail.
public struct DisposalError: Error, Sendable, CustomStringConvertible {
  /// One failure: the dependency whose instance failed to close and the error's description.
  public struct Failure: Sendable, Hashable, CustomStringConvertible {
    /// The dependency whose instance failed to close.
    public let dependency: DependencyReference
    /// What the instance's `dispose()` threw.
    public let error: String
    /// For an argument key's instance, the argument it was made for, as a path shows it: one key
    /// keeps an instance per argument, and each is named apart.
    let argument: String?

    init(dependency: DependencyReference, error: String, argument: String? = nil) {
      self.dependency = dependency
      self.error = error
      self.argument = argument
    }

    /// `\.database: connection reset`; for an argument key's instance, with its argument,
    /// `\.profile(7): connection reset`.
    public var description: String { "\(dependency.name)\(argument.map { "(\($0))" } ?? ""): \(error)" }
  }

  /// Every failure, in the order the instances were disposed.
  public let failures: [Failure]

  /// A line per failure.
  public var description: String {
    "Knapsack: \(failures.count) instance(s) failed to dispose:\n"
      + failures.map { "  \($0)" }.joined(separator: "\n")
  }
}

/// What a declaration marked unavailable throws, were it called: the compiler refuses every call
/// (its message says what to write instead), so this is never thrown. It keeps the body the
/// language requires free of a crash.
struct UnavailableCall: Error {}
