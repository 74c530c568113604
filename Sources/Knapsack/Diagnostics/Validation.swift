import Synchronization

/// The result of ``Container/validate(including:arguments:)``: every problem found in a dry run of the
/// container's graph.
///
/// It prints well, and it is `Equatable` and `Codable`, so a test can assert on it:
///
/// ```swift
/// @Test func appGraphIsValid() async {
///   let report = await AppContainer.make().validate()
///   #expect(report.isValid, "\(report)")
/// }
/// ```
public struct ValidationReport: Sendable, Hashable, Codable, CustomStringConvertible {
  /// One problem: what is wrong, with which dependency, registered where, reached how.
  public struct Problem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kinds of problem validation finds.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
      /// A key declared `.required()` that nobody registered.
      case requiredKeyNotProvided
      /// A type (and name) a factory asks for that nobody registered.
      case notRegistered
      /// A dependency that depends on itself.
      case cycle
      /// A longer-lived instance (such as a singleton) that holds a shorter-lived one (unique,
      /// graph, weak, cached, or one that only a child scope provides), directly or through a
      /// ``Lazy`` it keeps.
      case captiveDependency
      /// A factory that threw.
      case factoryFailed
      /// A factory of the wrong kind or type for the way it is resolved.
      case factoryMismatch
      /// The container was disposed.
      case containerDisposed
      /// A chain of dependencies too deep for the thread's stack.
      case resolutionTooDeep
      /// A key path given to `validate(including:arguments:)` that names no Knapsack key, so
      /// there was nothing to run.
      case notAKey
    }

    /// What is wrong.
    public let kind: Kind
    /// The dependency the problem is about (for a captive dependency, the one that holds it).
    public let dependency: DependencyReference
    /// Where that dependency was registered, if it was.
    public let registeredAt: CodeLocation?
    /// The resolution path from a registration to the problem.
    public let path: [DependencyReference]
    /// Where each dependency on ``path`` was registered (`nil` where it was not, or where its
    /// key's default was used), in the same order.
    public let pathRegistrations: [CodeLocation?]
    /// A one-line explanation.
    public let message: String
    /// For a missing dependency, the registrations closest to it, nearest first.
    public let nearMatches: [ResolutionError.NearMatch]
    /// The line of your code that asked for ``dependency``, as ``ResolutionError/requestedAt``
    /// names it: the `resolve` call or subscript in the factory or decorator that asked, the
    /// line that made the `Lazy` or `Provider`, or the `@Injected` property. For a captive
    /// dependency that the holder's decorator asked for, where that decorator was added; for a
    /// cycle, the call that closes its loop. `nil` where no line asked (a root of the run, a call
    /// that passes none) and for another captive dependency.
    public let requestedAt: CodeLocation?
    /// The argument each step of ``path`` was made for, as the path's line shows it, if any step
    /// took one (see `ResolutionError.pathSteps`).
    let pathArguments: [String?]?
    /// What to do about it, the description's `fix:` line, if there is one to give.
    let fix: String?

    init(
      kind: Kind, dependency: DependencyReference, registeredAt: CodeLocation?, path: [DependencyReference],
      pathRegistrations: [CodeLocation?]? = nil, message: String, nearMatches: [ResolutionError.NearMatch] = [],
      pathArguments: [String?]? = nil, requestedAt: CodeLocation? = nil, fix: String? = nil
    ) {
      self.fix = fix
      self.kind = kind
      self.dependency = dependency
      self.registeredAt = registeredAt
      self.path = path
      self.pathRegistrations = pathRegistrations ?? path.map { _ in nil }
      self.message = message
      self.nearMatches = nearMatches
      self.pathArguments = pathArguments?.count == path.count ? pathArguments : nil
      self.requestedAt = requestedAt
    }

    /// This problem with `nearMatches` instead of its own.
    func with(nearMatches: [ResolutionError.NearMatch]) -> Problem {
      Problem(
        kind: kind, dependency: dependency, registeredAt: registeredAt, path: path,
        pathRegistrations: pathRegistrations, message: message, nearMatches: nearMatches,
        pathArguments: pathArguments, requestedAt: requestedAt, fix: fix)
    }

    /// The message, where the dependency was declared and registered, and the path; for a
    /// cycle, each key of the loop with its sites; for a captive dependency, the held
    /// dependency's sites too.
    public var description: String {
      var lines = ["✗ \(kind.rawValue): \(message)"]
      if kind == .cycle {
        lines += ResolutionError.cycleMembers(path, pathRegistrations).map { "    " + $0 }
        if let closing = ResolutionError.closingLine(requestedAt, ResolutionError.steps(path, pathArguments)) {
          lines.append("    " + closing)
        }
        if let fix { lines.append("    fix: \(fix)") }
        return lines.joined(separator: "\n")
      }
      // (A multibinding contribution is declared where it is registered: said once.)
      if let location = dependency.location, location != registeredAt { lines.append("    declared at \(location)") }
      if let registeredAt { lines.append("    registered at \(registeredAt)") }
      if let requestedAt { lines.append("    asked for at \(requestedAt)") }
      if path.count > 1 {
        lines.append("    path: \(ResolutionError.shortened(ResolutionError.steps(path, pathArguments)))")
      }
      if kind == .captiveDependency, let held = path.last, path.count > 1 {
        lines.append("    holds \(held.name): \(ResolutionError.sites(held.location, pathRegistrations.last ?? nil))")
      }
      if !nearMatches.isEmpty {
        lines.append("    registered nearby: \(nearMatches.map(\.description).joined(separator: "; "))")
      }
      if let fix { lines.append("    fix: \(fix)") }
      return lines.joined(separator: "\n")
    }
  }

  /// Every problem, sorted by kind and then by dependency.
  public let problems: [Problem]
  /// How many dependencies the dry run resolved or looked at.
  public let checkedCount: Int
  /// Registrations the dry run did not call because they were registered with
  /// `hasSideEffects: true` (their presence is checked, their dependencies are not), and the
  /// dependencies whose dry run stopped at one of them (what their factories resolve after it is
  /// not checked).
  public let skipped: [DependencyReference]
  /// Argument keys the dry run could not call because no sample argument was given for them
  /// (pass one in `validate(arguments:)`); their presence is checked, their dependencies are not.
  public let needsSampleArgument: [DependencyReference]

  init(
    problems: [Problem], checkedCount: Int, skipped: [DependencyReference],
    needsSampleArgument: [DependencyReference] = []
  ) {
    self.problems = problems
    self.checkedCount = checkedCount
    self.skipped = skipped
    self.needsSampleArgument = needsSampleArgument
  }

  /// Whether the dry run found no problem.
  public var isValid: Bool { problems.isEmpty }

  /// The problems of one kind.
  public func problems(_ kind: Problem.Kind) -> [Problem] { problems.filter { $0.kind == kind } }

  /// How many problems of one missing dependency ``description`` shows in full.
  static let shownPerMissingDependency = 3
  /// How many more dependencies asking for it ``description`` names after those.
  static let namedAskers = 20

  /// A summary line, then each problem; of many dependencies that ask for one missing
  /// dependency, the first three in full and the names of up to 20 of the others (every one is
  /// in ``problems``).
  public var description: String {
    let checked = checkedCount.counting("dependency", "dependencies")
    let summary =
      isValid
      ? "Knapsack validation: no problems in \(checked)."
      : "Knapsack validation: \(problems.count.counting("problem", "problems")) in \(checked)."
    var lines = [summary]
    // Many dependencies asking for one missing dependency make as many problems (each with its
    // own path and asking line, all in `problems`); the text shows the first few of them in full
    // and names the other askers, so that one missing key does not bury the rest of the report.
    var index = problems.startIndex
    while index < problems.endIndex {
      let problem = problems[index]
      var end = problems.index(after: index)
      if problem.kind == .notRegistered || problem.kind == .requiredKeyNotProvided {
        while end < problems.endIndex, problems[end].kind == problem.kind,
          problems[end].dependency.name == problem.dependency.name
        {
          end = problems.index(after: end)
        }
      }
      let group = problems[index..<end]
      for shown in group.prefix(Self.shownPerMissingDependency) {
        lines.append("  " + shown.description.replacingOccurrences("\n", with: "\n  "))
      }
      let rest = group.dropFirst(Self.shownPerMissingDependency)
      if !rest.isEmpty {
        let askers = rest.map { $0.path.count > 1 ? $0.path[$0.path.count - 2].name : $0.dependency.name }
        let named = askers.prefix(Self.namedAskers).joined(separator: ", ")
        let more = askers.count > Self.namedAskers ? ", and \(askers.count - Self.namedAskers) more" : ""
        lines.append(
          "  … and \(rest.count.counting("more problem", "more problems")) of \(problem.dependency.name), asked for by \(named)\(more)"
            + " (each is in `problems`)")
      }
      index = end
    }
    if !skipped.isEmpty {
      lines.append(
        "  not run, or stopped at a registration with side effects: \(skipped.map(\.name).joined(separator: ", "))")
    }
    if !needsSampleArgument.isEmpty {
      lines.append(
        "  not run (no sample argument): \(needsSampleArgument.map(\.name).joined(separator: ", "))")
    }
    return lines.joined(separator: "\n")
  }
}

extension String {
  func replacingOccurrences(_ target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }

  /// A dependency's name with a note in parentheses after it: `\.ledger (singleton)`. A key whose
  /// name ends in the module that tells it apart (a name in parentheses) takes the note into that
  /// group, `\.ledger (Profile, singleton)`, rather than a second pair of parentheses; a
  /// contribution's site or a subscript's labels are not a module.
  func noted(_ note: String) -> String {
    guard hasPrefix("\\."), hasSuffix(")"), let open = lastIndex(of: "("), open > startIndex,
      self[index(before: open)] == " ", let first = self[index(after: open)...].first, !first.isNumber,
      self[index(after: open)..<index(before: endIndex)].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
    else { return "\(self) (\(note))" }
    return "\(dropLast()), \(note))"
  }

  /// The text, cut to `limit` characters with `...` at the end if it is longer: a value a user's
  /// `description` shows, quoted in a message.
  func shortened(to limit: Int) -> String {
    count > limit ? prefix(limit - 3) + "..." : self
  }
}

extension Int {
  /// This number and the noun that goes with it: `1 problem`, `2 problems`.
  func counting(_ singular: String, _ plural: String) -> String { "\(self) \(self == 1 ? singular : plural)" }
}

/// Thrown inside a validation copy instead of calling a factory registered with side effects.
struct ValidationSkipped: Error {
  let index: Int

  /// Why a property wrapper read during the run has no value (after "@Injected at file:line").
  var unreadable: String {
    let dependency = KeyTable.shared.descriptor(index).reference
    return "was read during validate(), which does not call the factory of \(dependency.subject) (it is"
      + " registered with hasSideEffects: true), so the property has no value in the run. Resolve it with the"
      + " factory's resolver and pass it to the initializer: validate() then lists it as skipped and goes on."
  }
}

/// What one step of a validation run made, as the captive check needs it: a class instance,
/// held weakly (whether something still holds it once its requester's factory has returned tells
/// whether the requester kept it), or a value.
enum MadeInstance {
  case object(Weak)
  case value

  struct Weak {
    weak var object: AnyObject?
  }

  static func of<Value>(_ value: Value) -> MadeInstance {
    type(of: value as Any) is AnyClass ? .object(Weak(object: value as AnyObject)) : .value
  }
}

/// Records what a dry run resolved, and what each validation copy settled.
final class ValidationRecorder: Sendable {
  /// One step: a dependency, and the dependency that asked for it.
  private struct Edge: Hashable {
    let index: Int
    let requester: Int?
  }

  /// The first event of each dependency for each requester: all that the graph and the captive
  /// check read, so that a run that resolves a long chain from many roots keeps one of each.
  private let events = Locked<(list: [ResolutionEvent], seen: Set<Edge>)>(([], []))
  /// For each copy (by the container it copies), the dependencies a step in it settled: made
  /// them, or failed on the failing path of a root (see ``endRoot(failedWith:)``); and the
  /// dependencies steps failed to make during the root running now.
  private let steps = Locked<(settled: [ObjectIdentifier: Set<Int>], failing: [ObjectIdentifier: Set<Int>])>(([:], [:]))

  /// What the run learned of whether a requester kept what a dependency's step made for it (by
  /// name, as the captive check reads them), and, for the steps still running, what their
  /// dependencies' steps made for them (by the requester's name, then the dependency's).
  ///
  /// A step that made a value passes up to its requester what its own dependencies made for it,
  /// under the chain of names that leads there (see ``chain(_:)``): the value may hold those
  /// instances, so whether the requester kept them is told when the requester's step ends.
  ///
  /// A root that made a value keeps what it would have passed up (its requester's step does not
  /// exist), for the step that takes its exemplar (see ``ValidationMemo``): `rootPassed`.
  ///
  /// `alive` holds, for each step found `.alive`, the instances that were: one still alive once
  /// the run has let go of all it made was not the requester's to keep (see ``kept(along:)``).
  private let made = Locked<
    (
      kept: [MadeStep: Kept], alive: [MadeStep: [MadeInstance.Weak]], open: [String: [String: MadeBy]],
      rootPassed: [String: [String: MadeBy]]
    )
  >(([:], [:], [:], [:]))

  /// Which dependencies hand out an instance that one of their own dependencies gave them (an
  /// alias: a unique key whose factory returns another key's singleton), and from which: a
  /// holder that keeps such an instance keeps the source's, with the source's lifetime.
  ///
  /// `returned` holds, for each step still running, the class instances its dependencies gave it
  /// (made or reused), by the dependency's name; `sources`, for each dependency whose step made
  /// such an instance, the names it came from; `own`, the dependencies whose steps made an
  /// instance of their own at least once; `exemplars`, how many steps of each dependency took an
  /// earlier root's instance (see ``ValidationMemo``) and have not ended yet: such a step ran no
  /// factory, and the root that made the instance told already where it came from.
  private let forwarding = Locked<
    (
      returned: [String: [String: [MadeInstance.Weak]]], sources: [String: Set<String>], own: Set<String>,
      exemplars: [String: Int]
    )
  >(([:], [:], [], [:]))

  /// The failures of `@Injected` properties in the root running now, first first: a property
  /// wrapper cannot throw, so it tells the run here and goes on (see ``Injected``), and the run
  /// reports the first as the root's failure.
  private let injectionFailures = Locked<[any Error]>([])

  /// The decorator running now for each dependency whose step is applying one (the location it
  /// was added at), and, for each requester and dependency (by name), where the decorator that
  /// asked for the dependency was added: a holder that keeps what its decorator asked for is
  /// reported with that line, not only with its registration, whose factory did not ask.
  private let decorators = Locked<(running: [Int: CodeLocation], asked: [MadeStep: CodeLocation])>(([:], [:]))

  /// Notes that a decorator of the dependency `index`, added at `location`, runs now (nil: it
  /// returned).
  func noteDecorating(_ index: Int, _ location: CodeLocation?) {
    decorators.withLock { $0.running[index] = location }
  }

  /// Where the decorator of `requester` that asked for `dependency` was added, if one did.
  func decoratorAsking(for dependency: String, by requester: String) -> CodeLocation? {
    decorators.withLock { $0.asked[MadeStep(dependency: dependency, requester: requester)] }
  }

  /// The `Lazy` handles that the steps still running made, by the index of the step that made
  /// each, and those that a step kept: a `Lazy` keeps the first value it reads, so a holder that
  /// keeps one keeps that value, as if it had resolved it itself.
  private let lazies = Locked<(open: [Int: [OpenLazy]], kept: Set<KeptLazy>)>(([:], []))

  /// A `Lazy` made by a step still running: what it resolves, with the scope of the registration
  /// that serves it where it resolves, and its storage, held weakly.
  private struct OpenLazy {
    let index: Int
    let scope: Scope
    let storage: MadeInstance.Weak
    let site: CodeLocation?
  }

  /// A `Lazy` that a step still held when its factory returned.
  struct KeptLazy: Hashable {
    let holder: DependencyReference
    let holderScope: Scope
    let holderSite: CodeLocation?
    let held: DependencyReference
    let heldScope: Scope
    /// The line that made the `Lazy` (a `lazy` call, or a `@LazyInjected` property).
    let site: CodeLocation?
  }

  /// Notes that the step of `from` made a `Lazy` of `index`, served with `scope`, whose storage is
  /// `storage`, at `site`.
  func noteLazy(from: Int, to index: Int, scope: Scope, storage: AnyObject, site: CodeLocation?) {
    let lazy = OpenLazy(index: index, scope: scope, storage: MadeInstance.Weak(object: storage), site: site)
    lazies.withLock { $0.open[from, default: []].append(lazy) }
  }

  /// Ends the `Lazy` handles the step of `index` made: those still alive now that its factory
  /// returned (`event`) are kept by what it made.
  private func endLazies(of index: Int, _ event: ResolutionEvent, failed: Bool) {
    lazies.withLock { lazies in
      guard let made = lazies.open.removeValue(forKey: index), !failed else { return }
      for lazy in made where lazy.storage.object != nil && lazies.kept.count < Self.keptLaziesLimit {
        let kept = KeptLazy(
          holder: event.dependency, holderScope: event.scope, holderSite: event.registeredAt,
          held: KeyTable.shared.descriptor(lazy.index).reference, heldScope: lazy.scope, site: lazy.site)
        lazies.kept.insert(kept)
      }
    }
  }

  /// The most kept `Lazy` handles noted: a few per holder.
  private static var keptLaziesLimit: Int { 4_096 }

  /// The `Lazy` handles kept by the steps that made them (see ``lazies``).
  var keptLazies: Set<KeptLazy> { lazies.withLock { $0.kept } }

  /// Notes that an `@Injected` property could not resolve its dependency, or reached one the run
  /// does not call (a ``ValidationSkipped``; see ``injectionFailures``).
  func noteInjectionFailure(_ error: any Error) {
    injectionFailures.withLock { $0.append(error) }
  }

  /// The `@Injected` failures noted since the last call, which it forgets.
  func takeInjectionFailures() -> [any Error] {
    injectionFailures.withLock { failures in
      defer { failures = [] }
      return failures
    }
  }

  /// Whether a step of `name` gave a class instance, its own or another dependency's (see
  /// ``forwarding``): one whose steps all made values (structs, or an existential holding one)
  /// gave none.
  func gaveAnObject(_ name: String) -> Bool {
    forwarding.withLock { $0.own.contains(name) || $0.sources[name] != nil }
  }

  /// The dependencies `name` hands out the instances of, if every instance its steps made was one
  /// of theirs (see ``forwarding``); nil if it made one of its own, or none.
  func forwardedSources(of name: String) -> Set<String>? {
    forwarding.withLock { $0.own.contains(name) ? nil : $0.sources[name] }
  }

  /// Notes that the step of `name`, asked for by `requester`, gave `instance` (nil for a value),
  /// which it made if `created`: what ``forwarding`` keeps.
  private func noteReturned(_ instance: AnyObject?, of name: String, to requester: String?, created: Bool) {
    forwarding.withLock { forwarding in
      // This step's factory has returned: what its dependencies gave it is all there is.
      let given = forwarding.returned.removeValue(forKey: name) ?? [:]
      let tookExemplar = forwarding.exemplars[name].map { $0 > 0 } ?? false
      if tookExemplar { forwarding.exemplars[name, default: 0] -= 1 }
      guard let instance else { return }
      if created, !tookExemplar {
        let sources = given.filter { $0.value.contains { $0.object === instance } }.keys
        if sources.isEmpty {
          forwarding.own.insert(name)
        } else {
          forwarding.sources[name, default: []].formUnion(sources)
        }
      }
      if let requester, forwarding.returned[requester]?[name]?.count ?? 0 < Self.madeLimit {
        forwarding.returned[requester, default: [:]][name, default: []].append(MadeInstance.Weak(object: instance))
      }
    }
  }

  /// The roots' exemplars and verdicts, and how deep each step went.
  let memo = ValidationMemo()

  /// A dependency (or a chain of them, through values, see ``chain(_:)``) and the requester
  /// whose step it was made for.
  private struct MadeStep: Hashable {
    let dependency: String
    let requester: String
  }

  /// The names of a chain of dependencies, each made for the one before through values, as one
  /// ``MadeStep/dependency``. The separator is a control character no name contains.
  private static func chain<Names: Sequence<String>>(_ names: Names) -> String {
    names.joined(separator: "\u{1F}")
  }

  /// The most chains a step passes up to its requester, and the most dependencies in one: values
  /// hold objects a few levels deep. Past these, what a value holds is judged when the value's
  /// own step ended (a long chain of values would otherwise cost time quadratic in its length).
  private static var chainLimit: Int { 64 }
  private static var chainLinksLimit: Int { 8 }

  /// What the steps of one dependency made for one requester's step.
  private struct MadeBy {
    var objects: [MadeInstance.Weak] = []
    var values = false
    /// More instances were made than ``objects`` keeps.
    var overflowed = false
    /// How many dependencies the chain this stands for has (1 for a dependency of its own).
    var links = 1

    /// Notes one more instance the dependency's steps made.
    mutating func note(_ made: MadeInstance) {
      switch made {
      case .value: values = true
      case .object(let weak) where objects.count < ValidationRecorder.madeLimit: objects.append(weak)
      case .object: overflowed = true
      }
    }

    /// Adds what `other` noted.
    mutating func merge(_ other: MadeBy) {
      values = values || other.values
      overflowed = overflowed || other.overflowed
      for weak in other.objects { note(.object(weak)) }
    }

    /// The instances still alive.
    var alive: [MadeInstance.Weak] { objects.filter { $0.object != nil } }

    /// What is left of it now that the requester's step has ended (its factory returned).
    var kept: Kept {
      if overflowed { return .unknown }
      if objects.contains(where: { $0.object != nil }) { return .alive }
      if objects.isEmpty { return values ? .values : .unknown }
      return values ? .unknown : .released
    }
  }

  /// The most instances noted per dependency for one requester's step: what one factory
  /// resolves, so a few; more are not told apart.
  private static var madeLimit: Int { 16 }

  var recorded: [ResolutionEvent] { events.withLock { $0.list } }

  /// Whether the first dependency of `path` kept the last, as seen when its steps ended (each
  /// time, if it was made more than once). Each dependency of `path` was made for the one before,
  /// and those between the first and the last are values: what a value holds is kept for as long
  /// as the value is, so it is judged when the first one's step ended, where the run passed it up
  /// to; else (a chain too wide to pass up), when the last one's requester's step ended.
  ///
  /// Called once the run has let go of every instance it made: an instance found alive then, when
  /// the step ended, is alive still only if something outside the run keeps it (a process-wide
  /// `Settings.shared`, or an object the factory captured and hands out each time). The step did
  /// not make it for the requester, so the requester keeps nothing alive by holding it: `.released`.
  func kept(along path: [DependencyReference]) -> Kept {
    guard path.count >= 2 else { return .unknown }
    let names = path.map(\.name)
    return made.withLock { made in
      func verdict(_ step: MadeStep) -> Kept? {
        guard let kept = made.kept[step] else { return nil }
        guard kept == .alive, let alive = made.alive[step], !alive.isEmpty,
          alive.allSatisfy({ $0.object != nil })
        else { return kept }
        return .released
      }
      if names.count > 2,
        let throughValues = verdict(MadeStep(dependency: Self.chain(names.dropFirst()), requester: names[0]))
      {
        return throughValues
      }
      return verdict(MadeStep(dependency: names[names.count - 1], requester: names[names.count - 2]))
    } ?? .unknown
  }

  /// See ``kept(along:)``.
  enum Kept {
    /// Nothing was noted, or too much or too mixed to tell.
    case unknown
    /// Only values (structs, enums, tuples, optionals): a holder keeps a copy, not the step's
    /// instance, so what matters is what the value holds.
    case values
    /// Something held an object the step made when the requester's factory had returned: the
    /// requester, or what keeps its instances, such as a graph or cached scope.
    case alive
    /// Every object the step made was gone by then: the requester did not keep them.
    case released

    func merged(with other: Kept?) -> Kept {
      guard let other, other != self else { return self }
      return self == .alive || other == .alive ? .alive : .unknown
    }
  }

  /// What a copy reports to: this recorder, with the copy named by `anchor`, an object of its own
  /// that the tap keeps (a run has a copy of one container in each scope it mirrors, see
  /// ``OverrideScope/init(validatingWith:)``, so the container does not name the copy).
  func tap(anchoredTo anchor: OverrideScope.Identity) -> Tap {
    Tap(recorder: self, copy: ObjectIdentifier(anchor), anchor: anchor)
  }

  /// Ends the run of one root, which failed with `error` (nil if it did not fail, or not with a
  /// resolution error). The steps that failed on its failing path settled their dependencies:
  /// resolved as a root of its own in the same copy, each would fail the same way, down the
  /// same path, and the root's problem reports it. A step whose failure a factory caught, off
  /// that path, did not: its problem is not reported yet. Nor did a chain stopped by the stack's
  /// depth: from a shallower start, it may fit.
  ///
  /// Those between the root and the dependency that failed are remembered as failed, as the root
  /// is (see ``ValidationMemo/noteFailed(_:in:with:)``): a step of a later root that reaches one
  /// fails at once, covered by this root's report, instead of running the factories down the same
  /// path again (in a graph of diamonds over a missing key, each level ran the whole way down:
  /// time quadratic in its depth).
  func endRoot(failedWith error: ResolutionError?) {
    let settledOnPath = steps.withLock { steps -> [(copy: ObjectIdentifier, indices: Set<Int>)] in
      defer { steps.failing = [:] }
      guard let error, error.kind != .resolutionTooDeep else { return [] }
      let path = Set(error.pathIndices ?? [])
      var settled: [(copy: ObjectIdentifier, indices: Set<Int>)] = []
      for (copy, failed) in steps.failing {
        let onPath = failed.intersection(path)
        steps.settled[copy, default: []].formUnion(onPath)
        settled.append((copy, onPath))
      }
      return settled
    }
    guard let error, let path = error.pathIndices, path.count >= 3 else { return }
    let between = Set(path.dropFirst().dropLast())
    for (copy, indices) in settledOnPath {
      for index in indices.intersection(between) { memo.noteFailed(index, in: copy, with: error) }
    }
  }

  /// The observer of one validation copy, which the engine tells each step's dependency.
  struct Tap: ResolutionObserver {
    let recorder: ValidationRecorder
    let copy: ObjectIdentifier
    /// What `copy` is the identifier of, kept so that no other copy of the run is given it.
    let anchor: OverrideScope.Identity

    /// The engine calls ``record(_:index:requester:error:instance:created:)`` instead, with the step's index.
    func didResolve(_ event: ResolutionEvent) { recorder.events.withLock { $0.list.append(event) } }

    /// Records the step that made `index` for `requester` in this copy, which failed with
    /// `error` if given, or gave `instance`, which it created if `created`.
    ///
    /// A step that made its dependency settled it: resolved again as a root of its own in this
    /// copy, it would do the same, down the same dependencies (the copy keeps no instance, and
    /// its registrations are the same). One that failed may have, once its root's run ends (see
    /// ``ValidationRecorder/endRoot(failedWith:)``).
    func record(
      _ event: ResolutionEvent, index: Int, requester: Int?, error: (any Error)?, instance: MadeInstance?, created: Bool
    ) {
      let edge = Edge(index: index, requester: requester)
      recorder.events.withLock { if $0.seen.insert(edge).inserted { $0.list.append(event) } }
      if let requester, let requesterName = event.requestedBy?.name {
        recorder.decorators.withLock { decorators in
          guard let location = decorators.running[requester] else { return }
          decorators.asked[MadeStep(dependency: event.dependency.name, requester: requesterName)] = location
        }
      }
      var object: AnyObject?
      if case .object(let weak) = instance { object = weak.object }
      recorder.noteReturned(object, of: event.dependency.name, to: event.requestedBy?.name, created: created)
      let made = created ? instance : nil
      recorder.made.withLock { steps in
        let name = event.dependency.name
        if let made, let requester = event.requestedBy?.name {
          steps.open[requester, default: [:]][name, default: MadeBy()].note(made)
        }
        // This step's factory has returned: what it did not keep of its dependencies is gone.
        let madeForIt = steps.open.removeValue(forKey: name) ?? [:]
        for (dependency, by) in madeForIt {
          let step = MadeStep(dependency: dependency, requester: name)
          let kept = by.kept
          steps.kept[step] = kept.merged(with: steps.kept[step])
          if kept == .alive, steps.alive[step, default: []].count < ValidationRecorder.madeLimit {
            steps.alive[step, default: []] += by.alive.prefix(ValidationRecorder.madeLimit)
          }
        }
        // Unless it made a value, which may hold them: its requester's step tells.
        // Only what may hold objects: a value's values are looked through anyway.
        let mayHoldObjects = madeForIt.filter { !$0.value.objects.isEmpty || $0.value.overflowed }
        if event.requestedBy == nil {
          if case .value = made, !mayHoldObjects.isEmpty {
            steps.rootPassed[name] = mayHoldObjects
          } else {
            steps.rootPassed[name] = nil
          }
        }
        if case .value = made, let requester = event.requestedBy?.name, !mayHoldObjects.isEmpty {
          var passed = steps.open[requester, default: [:]]
          // The limit counts chains, not the requester's own dependencies.
          var chains = passed.values.count { $0.links > 1 }
          for (dependency, by) in mayHoldObjects.sorted(by: { $0.key < $1.key })
          where by.links < ValidationRecorder.chainLinksLimit {
            let through = ValidationRecorder.chain([name, dependency])
            if passed[through] == nil {
              guard chains < ValidationRecorder.chainLimit else { break }
              chains += 1
            }
            passed[through, default: MadeBy(links: by.links + 1)].merge(by)
          }
          steps.open[requester] = passed
        }
      }
      recorder.endLazies(of: index, event, failed: error != nil)
      recorder.memo.stepEnded(index, requester: requester, scope: event.scope)
      recorder.steps.withLock { steps in
        if error == nil {
          _ = steps.settled[copy, default: []].insert(index)
        } else {
          _ = steps.failing[copy, default: []].insert(index)
        }
      }
    }

    /// The exemplar a step asking for `index` below `parent` in this copy takes instead of
    /// running its factory, if there is one (see ``ValidationMemo/take(_:in:copy:parent:)``); what
    /// the root that made it would have passed up to a requester is passed up from this step.
    func settled(_ index: Int, in container: Container, parent: UnsafeMutablePointer<Frame>?) throws -> (any Sendable)?
    {
      guard let value = try recorder.memo.take(index, in: container, copy: copy, parent: parent) else { return nil }
      let name = KeyTable.shared.descriptor(index).reference.name
      recorder.made.withLock { steps in
        if let passed = steps.rootPassed.removeValue(forKey: name) { steps.open[name] = passed }
      }
      recorder.forwarding.withLock { $0.exemplars[name, default: 0] += 1 }
      return value
    }

    /// Whether a step in this copy settled `index` already (see ``record(_:index:requester:error:instance:created:)``).
    func settledHere(_ index: Int) -> Bool {
      recorder.steps.withLock { $0.settled[copy]?.contains(index) ?? false }
    }
  }
}

extension Container {
  /// Resolves every registration visible from this container, and every key in `keys`, in a
  /// throw-away copy of the container, and reports every problem found.
  ///
  /// Every kind of key is run through the same resolution routine as the app uses: synchronous
  /// factories here, asynchronous ones awaited, main-actor ones on the main actor, argument keys
  /// with the sample argument given for them in `arguments`. An argument key without a sample is
  /// listed in ``ValidationReport/needsSampleArgument``, and a registration made with
  /// `hasSideEffects: true` in ``ValidationReport/skipped``: never silently passed.
  ///
  /// The copy keeps no instance, and disposes none: a factory may return an instance it did not
  /// make (`Analytics.shared`), which the run cannot tell from one it did. A factory that
  /// resolves through a container it captured (the `DependencyProvider` style) rather than its
  /// resolver reaches a copy too, so the run makes no real instance there either. Each registration is resolved as its own root, so a problem in
  /// one does not hide the others; within one factory, resolution stops at its first failing
  /// dependency.
  ///
  /// - Parameters:
  ///   - keys: Keys to check besides the registrations, such as the keys your app resolves at
  ///     the top level (their defaults and dependencies are checked too).
  ///   - arguments: A sample argument for each argument key to run, such as
  ///     `[\.profile: UserID("sample")]`. A sample of a type the key does not take, or for a key
  ///     that takes no argument, is reported as a
  ///     ``ValidationReport/Problem/Kind/factoryMismatch`` problem.
  ///
  /// Inside a ``withOverrides(_:isolation:operation:)`` scope it validates the container as the
  /// scope sees it, overrides included.
  ///
  /// Called by a factory that a run calls, such as an app's start-up check, for a container that
  /// run checks too (the same one, or one with an ancestor in common: a child made by the
  /// factory), it checks nothing and returns an empty report at once: the run in progress
  /// checks those registrations, and a second run would call that factory again, without end.
  public func validate(
    including keys: [PartialKeyPath<Dependencies>] = [], arguments: [PartialKeyPath<Dependencies>: any Sendable] = [:]
  ) async -> ValidationReport {
    await dryRun(including: keys, arguments: arguments).report
  }

  /// The dependency graph seen by a dry run (see ``validate(including:arguments:)``): every
  /// dependency resolved, with its scope and registration site, and who resolves whom.
  public func graph(
    including keys: [PartialKeyPath<Dependencies>] = [], arguments: [PartialKeyPath<Dependencies>: any Sendable] = [:]
  ) async -> DependencyGraph {
    await dryRun(including: keys, arguments: arguments).graph
  }

  /// Every dependency registered here or in an ancestor (or, for a copy, in the container it
  /// copies and its overrides), and every key decorated there that its default provides: what a
  /// dry run resolves. Such a decorator runs in the app, so the run checks it too; one of a key
  /// that only child containers register is theirs to check.
  var validatedIndices: Set<Int> {
    func own(_ container: Container) -> Set<Int> {
      container.state.withLock { state in
        Set(state.registrations.keys).union(
          state.decorators.keys.filter { KeyTable.shared.descriptor($0).defaultRegistration != nil })
      }
    }
    // A loop up the hierarchy (a copy's parent is the copy of its base's parent), not recursion.
    var indices: Set<Int> = []
    var container: Container? = self
    while let current = container {
      indices.formUnion(own(current))
      if let overlay = current.overlay {
        indices.formUnion(overlay.base.overlay == nil ? own(overlay.base) : overlay.base.validatedIndices)
        for overrides in overlay.overrides { indices.formUnion(own(overrides)) }
      }
      container = current.parent
    }
    return indices
  }

  /// What a dry run found, with what the report and the graph need to know of the copy it ran
  /// in: the copy itself is gone when this is returned (see ``dryRun(including:arguments:)``).
  private struct DryRun {
    var problems: [ValidationReport.Problem]
    var skipped: [DependencyReference]
    var needsSample: [DependencyReference]
    var roots: Set<Int>
    var handleEdges: [(from: Int, to: Int)]
    /// From each multibinding among the roots to its contributions: the run resolves those as
    /// roots of their own, not through the multibinding, so no resolution records these edges.
    var elementEdges: [(from: Int, to: Int)]
    /// What its resolutions resolved (see ``ValidationRecorder/recorded``).
    var events: [ResolutionEvent]
    /// The index each dependency the run resolved or reported is, and the registration that
    /// serves each in the copy (a key's default if none).
    var indices: [DependencyReference: Int]
    var registrations: [Int: Registration]
  }

  /// The dry runs in progress where this code runs (see ``dryRun(including:arguments:)``). A task
  /// that a factory starts inherits them, and may outlive them: only those not ended count.
  @TaskLocal private static var dryRunsInProgress: [DryRunMark] = []

  /// A dry run, and the containers it checks, until it ends.
  private final class DryRunMark: Sendable {
    let checked: Set<ObjectIdentifier>
    private let ended = Atomic<Bool>(false)
    init(checked: Set<ObjectIdentifier>) { self.checked = checked }
    var hasEnded: Bool { ended.load(ordering: .acquiring) }
    func end() { ended.store(true, ordering: .releasing) }
  }

  /// This container and its ancestors, each named by the container it copies if it is a copy:
  /// what a dry run of this container checks.
  private var checkedHierarchy: [ObjectIdentifier] {
    var checked: [ObjectIdentifier] = []
    var container: Container? = self
    while let current = container {
      var base = current
      while let overlay = base.overlay { base = overlay.base }
      checked.append(ObjectIdentifier(base))
      container = current.parent
    }
    return checked
  }

  func dryRun(
    including keys: [PartialKeyPath<Dependencies>], arguments: [PartialKeyPath<Dependencies>: any Sendable]
  ) async -> (report: ValidationReport, graph: DependencyGraph) {
    // A factory that a run calls may validate the container it runs in, or a child of it (an
    // app's start-up check): a second run would call that factory again, and so on without end
    // (a new child each time is a new container). A run that checks a container that a run in
    // progress checks can reach the factory that called it: it checks nothing, since the run in
    // progress checks that container. (The containers of a run stay alive until it ends, so
    // their identifiers are not reused before.)
    let inProgress = Self.dryRunsInProgress.filter { !$0.hasEnded }
    let hierarchy = checkedHierarchy
    if inProgress.contains(where: { !$0.checked.isDisjoint(with: hierarchy) }) {
      let report = ValidationReport(problems: [], checkedCount: 0, skipped: [])
      return (report, DependencyGraph(nodes: [], edges: [], report: report))
    }
    let mark = DryRunMark(checked: Set(hierarchy))
    defer { mark.end() }
    return await Self.$dryRunsInProgress.withValue(inProgress + [mark]) {
      await self.dryRunHere(including: keys, arguments: arguments)
    }
  }

  /// ``dryRun(including:arguments:)``, with no run of this container in progress here.
  private func dryRunHere(
    including keys: [PartialKeyPath<Dependencies>], arguments: [PartialKeyPath<Dependencies>: any Sendable]
  ) async -> (report: ValidationReport, graph: DependencyGraph) {
    let table = KeyTable.shared
    let recorder = ValidationRecorder()
    // The copies the run made, and every instance they keep, are gone once it has returned: what
    // the run made and is still alive is kept by something outside it (see `kept(along:)`).
    let run = await runDry(including: keys, arguments: arguments, recorder: recorder)
    let events = run.events
    let found = Self.merged(run.problems + captiveDependencies(in: events, recorder: recorder))
    let sorted = found.map { ($0, $0.path.map(\.name).joined(separator: " ")) }
      .sorted { ($0.0.kind.order, $0.0.dependency.name, $0.1) < ($1.0.kind.order, $1.0.dependency.name, $1.1) }
      .map(\.0)
    // One cycle is found once from each of its members: report it once, from its first member.
    var seenLoops: Set<[String]> = []
    let unique = sorted.filter { problem in
      guard problem.kind == .cycle, let closing = problem.path.last,
        let start = problem.path.firstIndex(where: { $0.name == closing.name })
      else { return true }
      return seenLoops.insert(problem.path[start...].map(\.name).dropLast().sorted()).inserted
    }
    let checked = Set(events.map(\.dependency.name)).union(run.roots.map { table.descriptor($0).displayName })
      .union(unique.flatMap(\.path).map(\.name)).count
    let report = ValidationReport(
      problems: unique, checkedCount: checked, skipped: Array(Set(run.skipped)).sorted { $0.name < $1.name },
      needsSampleArgument: Array(Set(run.needsSample)).sorted { $0.name < $1.name })
    let pathIndices = Set(unique.flatMap(\.path).compactMap { run.indices[$0] })
    let nodes = run.roots.union(pathIndices).map { index in
      let descriptor = table.descriptor(index)
      guard let registration = run.registrations[index] else {
        // A multibinding has no registration, and is never missing: it is the array of its
        // contributions (none, an empty one), made anew each time, as its resolution reports it.
        let scope: Scope? = descriptor.kind == .multibinding ? .unique : nil
        return (descriptor.reference, scope: scope, registeredAt: CodeLocation?.none)
      }
      return (
        descriptor.reference, scope: registration.scope,
        registeredAt: registration.isDefault ? nil : registration.location
      )
    }
    let handles = (run.handleEdges + run.elementEdges).map {
      (from: table.descriptor($0.from).reference, to: table.descriptor($0.to).reference)
    }
    return (report, DependencyGraph(events: events, report: report, roots: nodes, handles: handles))
  }

  /// Runs the roots and what handles made during the run resolve, in throw-away copies (see
  /// ``validate(including:arguments:)``).
  private func runDry(
    including keys: [PartialKeyPath<Dependencies>], arguments: [PartialKeyPath<Dependencies>: any Sendable],
    recorder: ValidationRecorder
  ) async -> DryRun {
    let table = KeyTable.shared
    // The run happens in a scope of its own, so that every container resolved in it is served
    // by a throw-away copy: this one, and any container a factory captured (the
    // `DependencyProvider` style), whose resolutions would otherwise make real instances.
    let validation = OverrideScope(validatingWith: recorder)
    let copy = validation.overlay(for: self).takeUnretainedValue()
    var roots = copy.validatedIndices
    // A key path that names no key cannot be run: it is reported, not dropped.
    var problems: [ValidationReport.Problem] = []
    for (position, key) in keys.enumerated() {
      guard let index = table.index(ofDeclared: key) else {
        problems.append(Self.notAKey(key, at: "including[\(position)]"))
        continue
      }
      roots.insert(index)
    }
    var samples: [Int: any Sendable] = [:]
    var notKeys: [(key: PartialKeyPath<Dependencies>, sample: any Sendable)] = []
    for (key, sample) in arguments {
      guard let index = table.index(ofDeclared: key) else {
        notKeys.append((key, sample))
        continue
      }
      samples[index] = sample
      roots.insert(index)
    }
    // `arguments` has no order: an entry is named by its sample's type, and by the sample too
    // where two entries' samples have one type.
    let sampleTypes = notKeys.map { "\(type(of: $0.sample))" }
    for ((key, sample), typeName) in zip(notKeys, sampleTypes) {
      let shared = sampleTypes.count { $0 == typeName } > 1
      let name = shared ? "\(typeName), \("\(sample)".shortened(to: 40))" : typeName
      problems.append(Self.notAKey(key, at: "arguments (the entry whose sample is \(name))"))
    }

    // The registrations and keys first, each as a root of its own. Then what a `Lazy` or
    // `Provider` made during the run will resolve, in the copy of the container it resolves
    // from, and what those make handles to, until nothing new is found.
    var skipped: [DependencyReference] = []
    // The argument keys run without a sample so far, in the copy they ran in: a `Lazy` of one
    // made later in the run brings an argument to run it with after all.
    // With the tap of the copy each was listed in: what tells, once the run has ended, whether
    // a factory ran it there all the same.
    var needsSample: [HandleTarget: (reference: DependencyReference, tap: ValidationRecorder.Tap?)] = [:]
    var handled = Set(roots.map { HandleTarget(container: ObjectIdentifier(copy), index: $0) })
    var handleEdges: [(from: Int, to: Int)] = []
    // For what a handle resolves, the dependency whose factory made the handle (the first one
    // noted). The chain of these, up to a root, leads to it: a problem found there is reported
    // with that chain at the head of its path, as if the handle's target were a direct
    // dependency. One link each, not a copy of the chain each: a long chain of handles would
    // otherwise cost memory quadratic in its length.
    var holders: [Int: Int] = [:]
    // For what a handle resolves, the line that made that handle: what asked for it.
    var handleSites: [Int: CodeLocation] = [:]
    let deepChains = DeepChains()
    var batch: [ObjectIdentifier: (copy: Container, indices: Set<Int>)] = [ObjectIdentifier(copy): (copy, roots)]
    while !batch.isEmpty {
      for (target, indices) in batch.values {
        // `@Injected` in what a factory makes resolves from the container making it (the run's
        // copy), as when the app runs; only an instance made outside every factory (in a task a
        // factory does not await) resolves from `Container.current`, the container the caller's
        // task set, else `Container.shared` (through the run's copy of it): the run sets none.
        let found = await OverrideScope.$current.withValue(validation) {
          await target.runEach(
            indices, samples: samples, holders: holders, handleSites: handleSites, deepChains: deepChains)
        }
        // What a handle made by an ancestor's shared instance resolves is run in the ancestor's
        // copy, where a dependency only this (child) container provides is missing: told as for a
        // direct dependency.
        var ancestor = copy.parent
        while let current = ancestor, current !== target { ancestor = current.parent }
        problems +=
          ancestor == nil
          ? found.problems
          : found.problems.map { problem in
            guard problem.kind == .requiredKeyNotProvided || problem.kind == .notRegistered else { return problem }
            return copy.providedOnlyHere(
              problem.dependency, path: problem.path, pathArguments: problem.pathArguments,
              requestedAt: problem.requestedAt) ?? problem
          }
        skipped += found.skipped
        for (index, reference) in found.needsSample {
          needsSample[HandleTarget(container: ObjectIdentifier(target), index: index)] = (
            reference, target.overlay?.recorder
          )
        }
      }
      let noted = validation.takeDeferredOfRun()
      handleEdges += noted.compactMap { handle in handle.from.map { ($0, handle.to) } }
      batch = [:]
      for handle in noted {
        // A `Lazy` of a key that takes an argument brings one to run the key with.
        if let argument = handle.argument, samples[handle.to] == nil { samples[handle.to] = argument }
        let target =
          handle.container.isValidationCopy
          ? handle.container : validation.overlay(for: handle.container).takeUnretainedValue()
        let key = HandleTarget(container: ObjectIdentifier(target), index: handle.to)
        // A root (a registered argument key) that ran before it, without a sample, runs again
        // with it: it is checked, not listed as needing a sample.
        let runsWithTheArgument = handle.argument != nil && needsSample.removeValue(forKey: key) != nil
        guard handled.insert(key).inserted || runsWithTheArgument else { continue }
        // Held by the step that led to it first; a root of its own (or one reached before) heads
        // its own paths.
        if let from = handle.from, from != handle.to, holders[handle.to] == nil {
          holders[handle.to] = from
          handleSites[handle.to] = handle.site
        }
        batch[ObjectIdentifier(target), default: (target, [])].indices.insert(handle.to)
        if target === copy { roots.insert(handle.to) }
      }
    }
    // What the report and the graph look up in the copy, before it goes.
    let events = recorder.recorded
    var references = Set(problems.flatMap(\.path))
    for event in events {
      references.insert(event.dependency)
      if let requester = event.requestedBy { references.insert(requester) }
    }
    var indices: [DependencyReference: Int] = [:]
    for reference in references { indices[reference] = copy.index(named: reference) }
    var registrations: [Int: Registration] = [:]
    for index in roots.union(indices.values) {
      registrations[index] = copy.servingRegistration(index)
    }
    var elementEdges: [(from: Int, to: Int)] = []
    for index in roots where registrations[index] == nil && table.descriptor(index).kind == .multibinding {
      elementEdges += copy.contributions(to: index).map { (from: index, to: $0) }
    }
    // An argument key that a factory of the same copy resolved with an argument of its own (through
    // its resolver, or an `@Injected` property of what it made), as a root ran before or after it,
    // ran with that argument: checked, though not as a root. One that only another copy ran (a
    // parent's, for its own registration of the key) was not.
    let notRun = needsSample.filter { target, listed in !(listed.tap?.settledHere(target.index) ?? false) }
    return DryRun(
      problems: problems, skipped: skipped, needsSample: notRun.values.map(\.reference), roots: roots,
      handleEdges: handleEdges, elementEdges: elementEdges,
      events: events, indices: indices, registrations: registrations)
  }

  /// `problems` with each problem once. The same problem found in two copies (a key that
  /// handles reach in two containers) is told by its kind, dependency and path; each copy knows
  /// the sites of what it registers, and the registrations near the dependency there. One
  /// report keeps the copy that knows the most sites, with every copy's near registrations, in an
  /// order that does not depend on which copy ran first.
  private static func merged(_ problems: [ValidationReport.Problem]) -> [ValidationReport.Problem] {
    // A factory that threw as a root of its own and again below another root (one that came
    // first in name order in another copy, such as a child's root over its parent's singleton,
    // or one that came later) is one problem: told once, with the longer path, which names who
    // asks for it, whatever the order of the roots.
    let thrownBelow = Set(
      problems.filter { $0.kind == .factoryFailed && $0.path.count >= 2 }.map { [$0.dependency.name, $0.message] })
    let problems = problems.filter {
      !($0.kind == .factoryFailed && $0.path.count == 1 && thrownBelow.contains([$0.dependency.name, $0.message]))
    }
    var groups: [ProblemIdentity: [ValidationReport.Problem]] = [:]
    for problem in Set(problems) { groups[ProblemIdentity(problem), default: []].append(problem) }
    return groups.values.map { copies in
      guard copies.count > 1 else { return copies[0] }
      func known(_ problem: ValidationReport.Problem) -> Int {
        problem.pathRegistrations.count { $0 != nil } + (problem.registeredAt == nil ? 0 : 1)
      }
      let ordered = copies.sorted { (known($1), $0.description) < (known($0), $1.description) }
      var nearMatches: [ResolutionError.NearMatch] = []
      for copy in ordered { nearMatches += copy.nearMatches.filter { !nearMatches.contains($0) } }
      return ordered[0].with(nearMatches: nearMatches)
    }
  }

  /// What tells one problem from another (see ``merged(_:)``).
  private struct ProblemIdentity: Hashable {
    let kind: ValidationReport.Problem.Kind
    let dependency: DependencyReference
    let path: [DependencyReference]

    init(_ problem: ValidationReport.Problem) {
      kind = problem.kind
      dependency = problem.dependency
      path = problem.path
    }
  }

  /// The chains a validation run found too deep for the stack, so far: the dependencies on their
  /// paths.
  final class DeepChains: Sendable {
    private let covered = Locked<Set<Int>>([])
    /// Whether `error`, too deep, starts at a root not on the path of a chain found before; if
    /// so, its chain is noted. Each root on a deep chain fails the same way, down the same
    /// chain: reported once, the run keeps no thousands of long paths (every root still runs).
    func isNew(_ error: ResolutionError) -> Bool {
      guard let path = error.pathIndices, let root = path.first else { return true }
      return covered.withLock { covered in
        guard !covered.contains(root) else { return false }
        covered.formUnion(path.dropFirst())
        return true
      }
    }
  }

  /// A dependency a handle made during a validation run resolves, in the copy it resolves from.
  private struct HandleTarget: Hashable {
    let container: ObjectIdentifier
    let index: Int
  }

  /// Resolves each of `roots` as its own root in this validation copy: the problems found, the
  /// registrations skipped for their side effects, and the argument keys with no sample.
  /// `holders` are the dependencies that lead to a root a handle resolves, put at the head of
  /// the path of a problem found from it.
  ///
  /// A root that a step of an earlier root's resolution already made in this copy, or failed to
  /// make there on that root's failing path (not for the stack's depth), is not run again: it
  /// would do the same, and what it resolved is recorded, as is the problem (with the earlier
  /// root's longer path). So a chain of registrations is resolved once, not once from each member.
  private func runEach(
    _ roots: Set<Int>, samples: [Int: any Sendable], holders: [Int: Int], handleSites: [Int: CodeLocation] = [:],
    deepChains: DeepChains
  ) async -> (
    problems: [ValidationReport.Problem], skipped: [DependencyReference],
    needsSample: [(index: Int, reference: DependencyReference)]
  ) {
    let table = KeyTable.shared
    let tap = overlay?.recorder
    var problems: [ValidationReport.Problem] = []
    var skipped: [DependencyReference] = []
    var needsSample: [(index: Int, reference: DependencyReference)] = []
    // How the failures reported so far ended, with the dependency that asked for the one that
    // failed (see `FailureEnd`).
    var reported: Set<FailureEnd> = []
    // Name order, but the members of a chain found too deep for the stack run right after it,
    // deepest first (see ``ValidationMemo``): each then takes the exemplar of the one below.
    var inNameOrder = roots.sorted { table.descriptor($0).displayName < table.descriptor($1).displayName }
      .makeIterator()
    var deepestFirst: [Int] = []
    var ran: Set<Int> = []
    var holders = holders
    tap?.recorder.memo.beginRun()
    defer { tap?.recorder.memo.endRun() }
    while let index = deepestFirst.popLast() ?? inNameOrder.next() {
      guard ran.insert(index).inserted else { continue }
      let descriptor = table.descriptor(index)
      let registration = servingRegistration(index)
      /// A failure of this root as a problem, its path headed by what leads to the root through
      /// handles, and asked for where the handle was made.
      func rootProblem(_ error: ResolutionError) -> ValidationReport.Problem {
        problem(from: headed(error, by: Self.holderChain(of: index, in: holders), at: handleSites[index]))
      }
      // A multibinding key has no registration of its own: its contributions are registrations,
      // run next (roots of their own already, unless the key was reached through a handle to
      // another container), and none at all is an empty set.
      if registration == nil, descriptor.kind == .multibinding {
        // It takes no argument, like a key without one: a sample given for it is a mistake.
        if let sample = samples[index], let wrong = WrongSampleArgument.checking(sample, against: nil) {
          problems.append(problem(from: failure(.factoryMismatch, index, nil, underlying: wrong)))
        }
        for contribution in contributions(to: index).reversed()
        where !roots.contains(contribution) && !ran.contains(contribution) {
          if holders[contribution] == nil { holders[contribution] = index }
          deepestFirst.append(contribution)
        }
        continue
      }
      guard let registration else {
        let missing = failure(descriptor.kind == .type ? .notRegistered : .requiredKeyNotProvided, index, nil)
        problems.append(rootProblem(missing))
        // A wrong sample is told now too, checked against the key's declared argument type:
        // not only once the key is provided.
        if let sample = samples[index],
          let wrong = WrongSampleArgument.checking(sample, against: descriptor.argumentType)
        {
          problems.append(problem(from: failure(.factoryMismatch, index, nil, underlying: wrong)))
        }
        continue
      }
      // An argument key made with another factory's argument has not been run with its sample,
      // nor listed as needing one.
      if samples[index] == nil, !registration.takesArgument, let tap, tap.settledHere(index) {
        continue
      }
      var rootError: ResolutionError?
      defer { tap?.recorder.endRoot(failedWith: rootError) }
      tap?.recorder.memo.beginRoot()
      // Left by a root that failed another way first: it reported that failure, as a factory
      // that throws reports its first.
      _ = tap?.recorder.takeInjectionFailures()
      do {
        // The same resolution routine as the app's, with the registration's own types.
        switch try await registration.dryRun(self, argument: samples[index]) {
        case .needsSample where registration.hasSideEffects:
          // A sample would not run it either: listed with what the run does not call.
          skipped.append(descriptor.reference)
        case .needsSample:
          needsSample.append((index, descriptor.reference))
        case .made(let value):
          if let value, let tap, registration.scope.kind == .unique {
            tap.recorder.memo.keep(value, of: index, in: tap.copy)
          }
        }
        // An `@Injected` property of something the root's resolution made could not resolve:
        // its factory went on (a property wrapper cannot throw), but the root failed.
        if let failure = tap?.recorder.takeInjectionFailures().first { throw failure }
      } catch let error as ResolutionError {
        rootError = error
        if let tap {
          let memo = tap.recorder.memo
          if error.kind == .resolutionTooDeep { memo.noteTooDeep(index, in: tap.copy, by: error) }
          // Failed down a path of two or more, so reported (or a repeat of a reported failure), or
          // covered by an earlier root's report: a step that reaches this root fails at once.
          if error.isCoveredByReport || (error.path.count >= 2 && error.pathIndices?.first == index) {
            memo.noteFailed(index, in: tap.copy, with: error)
          }
          // The members of its path run next, deepest first, each reaching the one below it: also
          // when its failure was covered by an earlier report. Else, in a cycle longer than the
          // stack allows, each root after the first would walk its whole way to the root that
          // failed first (time quadratic in the cycle's length).
          if error.kind == .resolutionTooDeep {
            for member in (error.pathIndices ?? []).dropFirst() where roots.contains(member) && !ran.contains(member) {
              deepestFirst.append(member)
            }
          }
          if error.isCoveredByReport { continue }
        }
        if error.kind == .resolutionTooDeep, !deepChains.isNew(error) { continue }
        // A root whose path ends the way an earlier root's did fails down a dependency that root
        // reported already: reported once, whichever end of a chain comes first in name order. So
        // does a root whose path ends the way any step of a reported path went on (the same
        // requester asking for the same failing dependency): the step below the root would fail
        // the same way, down the same path, which the report shows. (Only a whole reported path
        // used to count: in a graph of diamonds over a missing key, 1,000 levels deep, each level
        // reported the whole way down again, a report of 1,000 problems and 500,000 steps.)
        let end = FailureEnd(error)
        if error.path.count >= 3, reported.contains(end) { continue }
        if error.path.count >= 2 { reported.insert(end) }
        problems.append(rootProblem(error))
      } catch let skip as ValidationSkipped {
        skipped.append(table.descriptor(skip.index).reference)
        // A root that stopped at one: what its factory resolves after that is not checked, so
        // it is listed too, by name, rather than passed.
        if skip.index != index { skipped.append(descriptor.reference) }
      } catch {
        problems.append(rootProblem(failure(.factoryFailed, index, nil, underlying: error)))
      }
    }
    return (problems, skipped, needsSample)
  }

  /// How a failure ended: its kind, the dependency it names and what it says went wrong, and
  /// the dependency that asked for it (the step before the last of its path). A path of one
  /// dependency (a root that failed by itself, such as one given a wrong sample) never stands for
  /// longer ones: a caller may fail on it differently.
  private struct FailureEnd: Hashable {
    let kind: ResolutionError.Kind
    let dependency: String
    let underlying: String?
    let requester: String?

    init(_ error: ResolutionError) {
      kind = error.kind
      dependency = error.dependency.name
      underlying = error.underlying
      requester = error.path.count >= 2 ? error.path[error.path.count - 2].name : nil
    }
  }

  /// The dependencies that lead to `index` through handles, outermost first: its holder, that
  /// one's holder, and so on (see `dryRun`).
  private static func holderChain(of index: Int, in holders: [Int: Int]) -> [Int] {
    var chain: [Int] = []
    var seen: Set<Int> = [index]
    var current = index
    while let holder = holders[current], seen.insert(holder).inserted {
      chain.append(holder)
      current = holder
    }
    return chain.reversed()
  }

  /// `error` with the dependencies `holders` (indices) at the head of its path; a failure of the
  /// first dependency after them (what a handle resolves) was asked for at `site`, the line that
  /// made the handle.
  private func headed(_ error: ResolutionError, by holders: [Int], at site: CodeLocation? = nil) -> ResolutionError {
    guard !holders.isEmpty else { return error }
    let references = holders.map { KeyTable.shared.descriptor($0).reference }
    return ResolutionError(
      kind: error.kind, dependency: error.dependency, registeredAt: error.registeredAt, path: references + error.path,
      pathRegistrations: holders.map(registrationSite) + error.pathRegistrations, underlying: error.underlying,
      nearMatches: error.nearMatches, requestedAt: error.requestedAt ?? (error.path.count == 1 ? site : nil))
  }

  private func problem(from error: ResolutionError) -> ValidationReport.Problem {
    let kind: ValidationReport.Problem.Kind
    var message: String
    switch error.kind {
    case .requiredKeyNotProvided:
      kind = .requiredKeyNotProvided
      message = "required key \(error.dependency.subject) is never provided"
    case .notRegistered:
      kind = .notRegistered
      message = "nothing is registered for \(error.dependency.name)"
    case .cycle:
      kind = .cycle
      message = "\(error.dependency.name) depends on itself: \(error.cycleDescription)"
    case .factoryFailed:
      kind = .factoryFailed
      message =
        error.isDecoratorFailure
        ? "making \(error.dependency.name): \(error.underlying ?? "its decorator threw")"
        : "the factory of \(error.dependency.name) threw: \(error.underlying ?? "an error")"
    case .factoryMismatch:
      kind = .factoryMismatch
      message =
        error.isWrongSample
        ? "\(error.dependency.name): \(error.underlying ?? "")"
        : "the factory of \(error.dependency.name) cannot be used: \(error.underlying ?? "mismatch")"
    case .containerDisposed:
      kind = .containerDisposed
      message = "\(error.dependency.subject) cannot be resolved: \(error.underlying ?? "the container was disposed")"
    case .resolutionTooDeep:
      kind = .resolutionTooDeep
      message =
        "resolving \(error.dependency.name) went \(error.path.count) levels deep, "
        + (error.underlying ?? "too deep for this thread's stack")
    }
    // A dependency this container provides, missing where it was resolved: an ancestor's shared
    // instance asked for something only this (child) scope has.
    if error.kind == .requiredKeyNotProvided || error.kind == .notRegistered, error.path.count > 1,
      let problem = providedOnlyHere(
        error.dependency, path: error.path, pathArguments: error.pathArguments, requestedAt: error.requestedAt)
    {
      return problem
    }
    if kind == .requiredKeyNotProvided || kind == .notRegistered, error.path.count > 1 {
      // Nothing registers the dependency, so point at what asks for it.
      let requester = error.path[error.path.count - 2]
      if let site = registrationSite(of: requester) {
        message += "; \(requester.name) asks for it (registered at \(site))"
      } else if let declaration = requester.location {
        message += "; \(requester.name) asks for it (declared at \(declaration))"
      }
    }
    return ValidationReport.Problem(
      kind: kind, dependency: error.dependency, registeredAt: error.registeredAt, path: error.path,
      pathRegistrations: error.pathRegistrations, message: message, nearMatches: error.nearMatches,
      pathArguments: error.pathArguments, requestedAt: error.requestedAt, fix: error.fix)
  }

  /// The problem of an ancestor's shared instance that asks (at the end of `path`) for
  /// `dependency`, which it cannot reach, though this container provides it: only this child
  /// scope has it. Nil if this container does not provide it.
  fileprivate func providedOnlyHere(
    _ dependency: DependencyReference, path: [DependencyReference], pathArguments: [String?]?,
    requestedAt: CodeLocation?
  ) -> ValidationReport.Problem? {
    guard path.count > 1, let index = index(named: dependency), effectiveRegistration(index) != nil else { return nil }
    let holder = path[path.count - 2]
    // A contribution cannot be registered again: contributing it here too would add an element.
    let holderIsContribution =
      self.index(named: holder).map { KeyTable.shared.descriptor($0).kind == .contribution } ?? false
    let fix =
      holderIsContribution
      ? "register \(dependency.name) also in the container that makes \(holder.name), or make that contribution in"
        + " this child instead, so that it is made where \(dependency.name) is."
      : "register \(dependency.name) also where \(holder.name) is registered, or register \(holder.name) also in this"
        + " child, so that an instance of its own is made here."
    return ValidationReport.Problem(
      kind: .captiveDependency, dependency: holder, registeredAt: registrationSite(of: holder), path: path,
      pathRegistrations: path.map { registrationSite(of: $0) },
      message:
        "\(holder.name), shared by a parent container, depends on \(dependency.name), which only this child scope provides",
      pathArguments: pathArguments, requestedAt: requestedAt, fix: fix)
  }

  /// The problem of a key path given at `place` that names no key: `including[2]`, or for the
  /// unordered `arguments`, the entry by its sample's type. Its name is the key path's own
  /// description where the runtime knows the property's name (on Linux it does not: `place`
  /// and the type then tell which one it is).
  private static func notAKey(_ keyPath: PartialKeyPath<Dependencies>, at place: String) -> ValidationReport.Problem {
    let typeName = "\(type(of: Dependencies()[keyPath: keyPath]))"
    let description = "\(keyPath)"
    let name =
      description.contains("<computed") ? place : description.replacingPrefix("\\Dependencies.", with: "\\.")
    let reference = DependencyReference(name: name, typeName: typeName, location: nil)
    return ValidationReport.Problem(
      kind: .notAKey, dependency: reference, registeredAt: nil, path: [], pathRegistrations: [],
      message:
        "the key path at \(place) leads to a value of type \(typeName), not a key, "
        + "so there is nothing to validate (a key is a Key, AsyncKey, MainActorKey, ArgumentKey or multibinding)")
  }

  /// The index of the dependency `reference` names: one this container provides, if several
  /// share the name (contributions made from one line in several containers).
  private func index(named reference: DependencyReference) -> Int? {
    let candidates = KeyTable.shared.indices(named: reference)
    return candidates.first { effectiveRegistration($0) != nil } ?? candidates.first
  }

  private func registrationSite(of dependency: DependencyReference) -> CodeLocation? {
    index(named: dependency).flatMap(registrationSite)
  }

  /// Whether `dependency` is made as a struct, enum, optional or tuple: a holder keeps a copy of
  /// it, so what matters is what that copy holds in turn.
  private func holdsValueType(_ dependency: DependencyReference) -> Bool {
    guard let index = index(named: dependency),
      let registration = servingRegistration(index),
      let metadata = UnsafeRawPointer(bitPattern: UInt(bitPattern: ObjectIdentifier(registration.valueType)))
    else { return false }
    // The first word of type metadata is its kind: 0x200 struct, 0x201 enum, 0x202 optional,
    // 0x301 tuple. Classes and existentials (which may hold a class instance) are not values.
    let kind = metadata.load(as: UInt.self)
    return kind == 0x200 || kind == 0x201 || kind == 0x202 || kind == 0x301
  }

  /// Longer-lived instances that hold shorter-lived ones, looking through value types: a
  /// singleton that keeps a unique struct keeps whatever shorter-lived instance the struct holds.
  private func captiveDependencies(
    in events: [ResolutionEvent], recorder: ValidationRecorder
  ) -> [ValidationReport.Problem] {
    var seen: [String: (scope: Scope, site: CodeLocation?, reference: DependencyReference)] = [:]
    // What each dependency asked for, with the scope of the step that made it for it: the same
    // key may have another scope in another container (a child that registers it again), and
    // the holder holds what its own container made.
    var children: [String: [(dependency: DependencyReference, scope: Scope)]] = [:]
    // What `children` lists, looked up in a set: a factory that asks for thousands of
    // dependencies (an aggregate of every feature) was compared with each one it had listed, in
    // time quadratic in their number.
    struct ListedChild: Hashable {
      let requester: String
      let dependency: DependencyReference
      let scope: Scope
    }
    var listed: Set<ListedChild> = []
    for event in events {
      if seen[event.dependency.name] == nil {
        seen[event.dependency.name] = (event.scope, event.registeredAt, event.dependency)
      }
      if let requester = event.requestedBy,
        listed.insert(ListedChild(requester: requester.name, dependency: event.dependency, scope: event.scope)).inserted
      {
        children[requester.name, default: []].append((event.dependency, event.scope))
      }
    }
    var problems: [ValidationReport.Problem] = []
    for (name, holder) in seen where holder.scope.isContainerOwned {
      // Only a class instance is held weakly: a weak-scoped value of a struct, enum, optional or
      // tuple (or an existential that held one each time the run made it) is made anew on every
      // resolution, like a unique one, so it keeps nothing.
      if holder.scope.kind == .weak, holdsValueType(holder.reference) || !recorder.gaveAnObject(name) { continue }
      for child in children[name] ?? [] {
        var pending: [(path: [DependencyReference], scope: Scope)] = [
          ([holder.reference, child.dependency], child.scope)
        ]
        var visited: Set<String> = []
        while let (path, heldScope) = pending.popLast() {
          guard let held = path.last, visited.insert(held.name).inserted, holder.scope.kind > heldScope.kind
          else { continue }
          // An alias hands out its source's instance: the holder keeps that, with its lifetime.
          if let sources = recorder.forwardedSources(of: held.name) {
            pending += (children[held.name] ?? []).filter { sources.contains($0.dependency.name) }
              .map { (path + [$0.dependency], $0.scope) }
            continue
          }
          // What the run made tells first: a factory that only read something from an instance
          // (a setting, say) let it go, and one that kept a value keeps what the value holds.
          let kept = recorder.kept(along: path)
          if kept == .released { continue }
          if kept == .values || (kept == .unknown && holdsValueType(held)) {
            pending += (children[held.name] ?? []).map { (path + [$0.dependency], $0.scope) }
            continue
          }
          let through = path.dropFirst().dropLast().map(\.name)
          let via = through.isEmpty ? "" : " through \(through.joined(separator: ", "))"
          problems.append(
            ValidationReport.Problem(
              kind: .captiveDependency, dependency: holder.reference, registeredAt: holder.site, path: path,
              pathRegistrations: path.map { registrationSite(of: $0) },
              message:
                "\(holder.reference.name.noted("\(holder.scope)")) holds \(held.name.noted("\(heldScope)"))\(via), which should not outlive \(Self.lifetime(of: heldScope))",
              requestedAt: recorder.decoratorAsking(for: path[1].name, by: holder.reference.name),
              fix:
                "have \(holder.reference.name) keep a `Provider` of \(path[1].name) (`r.provider(...)`) and call `get()`"
                + " each time it needs one, or give \(held.name) a scope at least as long-lived as"
                + " \(holder.reference.name)'s (\(holder.scope)), or \(holder.reference.name) a shorter-lived one."
            ))
        }
      }
    }
    // A `Lazy` kept by a longer-lived instance keeps the first value it reads for as long: the
    // same as holding that value. (A `Provider` resolves anew on each `get`, and holds nothing.)
    var reportedLazies: Set<[String]> = []
    // In an order of their own: of two `Lazy` handles of one key that a holder keeps, the message
    // names the first line.
    let kept = recorder.keptLazies.sorted {
      ($0.holder.name, $0.held.name, $0.site?.fileID ?? "", $0.site?.line ?? 0)
        < ($1.holder.name, $1.held.name, $1.site?.fileID ?? "", $1.site?.line ?? 0)
    }
    for lazy in kept where lazy.holderScope.isContainerOwned {
      if lazy.holderScope.kind == .weak, holdsValueType(lazy.holder) || !recorder.gaveAnObject(lazy.holder.name) {
        continue
      }
      // An alias hands out its source's instance: the `Lazy` keeps that, with the source's lifetime.
      var path = [lazy.holder, lazy.held]
      var heldScope = lazy.heldScope
      if let sources = recorder.forwardedSources(of: lazy.held.name) {
        guard
          let source = (children[lazy.held.name] ?? []).filter({ sources.contains($0.dependency.name) })
            .min(by: { $0.scope.kind < $1.scope.kind })
        else { continue }
        path.append(source.dependency)
        heldScope = source.scope
      }
      let held = path[path.count - 1]
      guard lazy.holderScope.kind > heldScope.kind else { continue }
      // A value is copied out of the `Lazy` (so is one an existential key's steps all made): what
      // matters is what it holds, which the run did not make for the holder. Not reported, rather
      // than guessed.
      if holdsValueType(held) || !recorder.gaveAnObject(held.name) { continue }
      // An object its container keeps, a cached one, the `Lazy` holds weakly (see `LazyStorage`):
      // it does not keep it past a reset.
      if heldScope.kind == .cached { continue }
      guard reportedLazies.insert(path.map(\.name)).inserted else { continue }
      let of = path.count > 2 ? " of \(lazy.held.name)" : ""
      problems.append(
        ValidationReport.Problem(
          kind: .captiveDependency, dependency: lazy.holder, registeredAt: lazy.holderSite, path: path,
          pathRegistrations: path.map { registrationSite(of: $0) },
          message:
            "\(lazy.holder.name.noted("\(lazy.holderScope)")) holds \(held.name.noted("\(heldScope)")) through "
            + (lazy.site.map { "the Lazy made at \($0)\(of), " } ?? "a Lazy\(of), ")
            + "which keeps the first value it reads, but that should not outlive \(Self.lifetime(of: heldScope)): "
            + "hold a Provider to resolve it anew each time",
          fix:
            "keep `r.provider(...)` instead of the `Lazy` and call `get()` where the value is needed, or give"
            + " \(held.name) a scope at least as long-lived as \(lazy.holder.name)'s (\(lazy.holderScope))."))
    }
    return problems
  }

  /// What an instance of `scope` should not outlive, as a captive dependency's message says it.
  private static func lifetime(of scope: Scope) -> String {
    switch scope.kind {
    case .weak: "one holder"
    case .cached: "resetCached()"
    default: "one use"
    }
  }

}

extension Container {
  /// In a validation copy, notes that the decorator of the dependency `index` added at `location`
  /// runs now (nil: it returned; see ``ValidationRecorder/noteDecorating(_:_:)``).
  func noteDecorating(_ index: Int, _ location: CodeLocation?) {
    overlay?.recorder?.recorder.noteDecorating(index, location)
  }
}

extension ValidationReport.Problem.Kind {
  var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// Keys that can describe themselves without their value type being known.
extension KeyTable {
  /// The index of a key given as a partial key path, if it is a Knapsack key.
  func index(ofDeclared keyPath: PartialKeyPath<Dependencies>) -> Int? {
    guard let declared = Dependencies()[keyPath: keyPath] as? any DeclaredKey else { return nil }
    return index(of: keyPath as AnyKeyPath) { declared.descriptor(index: $0, keyPath: keyPath) }
  }
}
