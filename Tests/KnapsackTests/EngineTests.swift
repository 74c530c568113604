import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

extension Dependencies {
  var engineProfile: ArgumentKey<String, Token> { ArgumentKey { r, id in Token(id + (try r[\.engineName])) } }
  var engineName: Key<String> { .required() }
  var engineShared: Key<Token> { Key { Token("shared default") }.scope(.singleton) }
  var engineAnyArgument: ArgumentKey<any Sendable, String> { ArgumentKey { _, argument in "\(argument)" } }
  subscript(engineLinks level: Int) -> Multibinding<Int> { Multibinding() }
  subscript(engineAsyncLinks level: Int) -> AsyncMultibinding<Int> { AsyncMultibinding() }
  /// A chain of one argument key: the factory for `n` resolves the key again for `n - 1`.
  var engineCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n == 0 ? 0 : try r.resolve(\.engineCountdown, argument: n - 1) + 1 }
  }
  /// Chains of keys of the other kinds: level `n` resolves level `n - 1`.
  subscript(engineAsyncChain level: Int) -> AsyncKey<Int> {
    AsyncKey { r in level == 0 ? 0 : try await r.resolve(\.[engineAsyncChain: level - 1]) + 1 }
  }
  subscript(engineMainChain level: Int) -> MainActorKey<Int> {
    MainActorKey { r in level == 0 ? 0 : try r.resolve(\.[engineMainChain: level - 1]) + 1 }
  }
  /// Never resolved, registered or validated: its key path stays unknown to the key table.
  var engineNeverSeen: Key<Int> { Key { 0 } }
}

/// Runs `body` on a new thread with a stack of `stackSize` bytes and returns what it returned.
func onThread<R: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> R) async -> R {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.stackSize = stackSize
    thread.start()
  }
}

/// Whether this test binary runs under the thread sanitizer. Its shadow call stack holds about
/// 65,000 calls per thread, which a resolution more than 10,000 levels deep (several calls a
/// level) overflows: the sanitizer, not the library, then crashes.
let isThreadSanitized: Bool = {
  #if canImport(Darwin)
  let everyImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
  let everyImage: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  return dlsym(everyImage, "__tsan_init") != nil
}()

@Suite struct EngineTests {
  // MARK: Validation of argument keys

  @Test func anArgumentKeyWithoutASampleIsListedByName() async {
    let container = Container()
    container.register(\.engineProfile) { r, id in Token(id + (try r[\.engineName])) }
    let report = await container.validate()
    #expect(report.needsSampleArgument.map(\.name) == ["\\.engineProfile"])
    #expect(report.description.contains("not run (no sample argument): \\.engineProfile"))
  }

  @Test func anArgumentKeyWithASampleIsRunAndItsProblemsFound() async {
    let container = Container()
    container.register(\.engineProfile) { r, id in Token(id + (try r[\.engineName])) }
    let report = await container.validate(arguments: [\Dependencies.engineProfile: "sample"])
    #expect(report.needsSampleArgument.isEmpty)
    #expect(report.problems.map(\.kind) == [.requiredKeyNotProvided])
    #expect(report.problems.first?.path.map(\.name) == ["\\.engineProfile", "\\.engineName"])
  }

  @Test func anArgumentKeyTakingAnySendableIsListedNotRunWithAnInventedArgument() async {
    let container = Container()
    let given = Collected<String>()
    container.register(\.engineAnyArgument) { _, argument in
      given.append("\(type(of: argument))")
      return "ran"
    }
    let report = await container.validate()
    #expect(given.all.isEmpty)
    #expect(report.needsSampleArgument.map(\.name) == ["\\.engineAnyArgument"])
    let sampled = await container.validate(arguments: [\Dependencies.engineAnyArgument: 7])
    #expect(sampled.needsSampleArgument.isEmpty)
    #expect(given.all == ["Int"])
  }

  @Test func aSampleOfTheWrongTypeIsReportedNotSkipped() async {
    let container = Container()
    let report = await container.validate(arguments: [\Dependencies.engineProfile: 42])
    #expect(report.needsSampleArgument.isEmpty)
    #expect(report.problems.map(\.kind) == [.factoryMismatch])
    #expect(report.problems.first?.message.contains("the sample argument given to validate() is Int") == true)
  }

  @Test func argumentKeysKeepOneSharedInstancePerArgument() throws {
    let container = Container()
    container.register(\.engineName) { "" }
    container.register(\.engineProfile, scope: .singleton) { _, id in Token(id) }
    let alice = try container.resolve(\.engineProfile, argument: "alice")
    #expect(try container.resolve(\.engineProfile, argument: "alice") === alice)
    #expect(try container.resolve(\.engineProfile, argument: "bob") !== alice)
  }

  // MARK: Deep graphs

  /// Registers a chain of `length` named `Int` registrations, each resolving the next.
  static func chain(_ length: Int) -> Container {
    let container = Container()
    for step in 0..<length {
      let next = "step \(step + 1)"
      if step == length - 1 {
        container.register(type: Int.self, name: "step \(step)") { 0 }
      } else {
        container.register(type: Int.self, name: "step \(step)") { r in try r.resolve(type: Int.self, name: next) + 1 }
      }
    }
    return container
  }

  @Test func aTenThousandDeepChainOnASmallStackThrowsInsteadOfCrashing() async {
    let container = Self.chain(10_000)
    let outcome = await onThread(stackSize: 512 * 1024) { () -> Result<Int, ResolutionError> in
      do {
        return .success(try container.resolve(type: Int.self, name: "step 0"))
      } catch let error as ResolutionError {
        return .failure(error)
      } catch {
        return .failure(
          ResolutionError(kind: .factoryFailed, dependency: .init(name: "?", typeName: "?", location: nil), path: []))
      }
    }
    switch outcome {
    case .success(let depth):
      #expect(depth == 9_999)
    case .failure(let error):
      #expect(error.kind == .resolutionTooDeep, "\(error)")
      #expect(error.path.first?.name == "Int (name: \"step 0\")")
      #expect(error.path.count > 20)
      #expect(error.description.contains("too deep for this thread's stack"))
    }
  }

  @Test func aTenThousandDeepChainOfAnArgumentKeyOnASmallStackThrowsInsteadOfCrashing() async {
    let container = Container()
    let outcome = await onThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(\.engineCountdown, argument: 9_999) }
    }
    switch outcome {
    case .success(let depth): #expect(depth == 9_999)
    case .failure(let error as ResolutionError):
      #expect(error.kind == .resolutionTooDeep, "\(error)")
      #expect(error.path.first?.name == "\\.engineCountdown")
    case .failure(let other): Issue.record("\(other)")
    }
  }

  @Test func tenThousandDeepChainsOfAsynchronousAndMainActorKeysThrowOrSucceed() async {
    // An asynchronous chain runs on the task's own frames; a main-actor chain runs on the main
    // thread, and its stack check stops it before that thread's stack would overflow.
    let container = Container()
    for chain in ["asynchronous", "main-actor"] {
      do {
        let depth =
          chain == "asynchronous"
          ? try await container.resolve(\.[engineAsyncChain: 9_999])
          : try await container.resolve(\.[engineMainChain: 9_999])
        #expect(depth == 9_999, "\(chain)")
      } catch let error as ResolutionError {
        #expect(error.kind == .resolutionTooDeep, "\(chain): \(error)")
      } catch {
        Issue.record("\(chain): \(error)")
      }
    }
  }

  /// A chain of `length` multibindings, each with one contribution that resolves the next.
  static func multibindingChain(_ length: Int) -> Container {
    let container = Container()
    for level in 0..<length {
      container.contribute(to: \.[engineLinks: level]) { r in
        level + 1 == length ? 0 : try r[\.[engineLinks: level + 1]].count
      }
      container.contribute(to: \.[engineAsyncLinks: level]) { r async throws in
        level + 1 == length ? 0 : try await r.resolve(\.[engineAsyncLinks: level + 1]).count
      }
    }
    return container
  }

  @Test func aTenThousandDeepChainOfMultibindingsOnASmallStackThrowsInsteadOfCrashing() async {
    // A multibinding step and its contribution's alternate, so the contributions' depth check,
    // made every few levels, must not be the only one.
    let container = Self.multibindingChain(10_000)
    let outcome = await onThread(stackSize: 512 * 1024) { () -> ResolutionError? in
      do {
        _ = try container[\.[engineLinks: 0]]
        return nil
      } catch {
        return error as? ResolutionError
      }
    }
    #expect(outcome?.kind == .resolutionTooDeep, "\(String(describing: outcome))")
  }

  @Test func anAsynchronousChainOfMultibindingsStopsAtTheAsynchronousLimit() async {
    // 6,000 multibindings and 6,000 contributions: 12,000 asynchronous steps, past the limit.
    let container = Self.multibindingChain(6_000)
    let error = await #expect(throws: ResolutionError.self) { try await container.resolve(\.[engineAsyncLinks: 0]) }
    #expect(error?.kind == .resolutionTooDeep)
    #expect(error?.description.contains("asynchronous steps") == true, "\(String(describing: error))")
  }

  @Test(.enabled(if: !isThreadSanitized, "the sanitizer's instrumentation makes every frame larger"))
  func aSixtyFourDeepChainResolvesOnASmallStackInADebugBuild() async throws {
    // Far deeper than an app's graph, on a secondary thread's stack size on Apple platforms: a
    // first resolution (which plans every level) must fit, in this debug build too.
    let container = Self.chain(64)
    let outcome = await onThread(stackSize: 512 * 1024) {
      Result { try container.resolve(type: Int.self, name: "step 0") }
    }
    #expect(try outcome.get() == 63)
  }

  @Test(.enabled(if: !isThreadSanitized, "the sanitizer's shadow call stack is shorter than this chain"))
  func aSynchronousChainDeeperThanTheAsynchronousLimitBlamesTheStack() async throws {
    // On a large stack a synchronous chain runs out of stack beyond 10,000 levels, the limit
    // for asynchronous steps: the message names the limit that was reached.
    let container = Self.chain(100_000)
    let outcome = await onThread(stackSize: 128 << 20) { () -> ResolutionError? in
      do {
        _ = try container.resolve(type: Int.self, name: "step 0")
        return nil
      } catch {
        return error as? ResolutionError
      }
    }
    let tooDeep = try #require(outcome, "the chain resolved instead of running out of stack")
    #expect(tooDeep.kind == .resolutionTooDeep)
    #expect(tooDeep.path.count > 10_000)
    #expect(tooDeep.description.contains("too deep for this thread's stack"), "\(tooDeep)")
  }

  @Test func stackUsePerLevelIsMeasuredAndBounded() throws {
    // A 100-deep chain whose last factory notes where the stack is: the difference from the
    // caller's stack, divided by the depth, is what one level of resolution costs.
    let deepest = Locked<UInt>(0)
    let container = Container()
    for step in 0..<100 {
      let next = "level \(step + 1)"
      if step == 99 {
        container.register(type: Int.self, name: "level \(step)") {
          var marker = 0
          deepest.withLock { $0 = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) } }
          return 0
        }
      } else {
        container.register(type: Int.self, name: "level \(step)") { r in try r.resolve(type: Int.self, name: next) + 1 }
      }
    }
    var top = 0
    let start = withUnsafeMutablePointer(to: &top) { UInt(bitPattern: $0) }
    #expect(try container.resolve(type: Int.self, name: "level 0") == 99)
    let perLevel = (start - deepest.withLock { $0 }) / 100
    #if DEBUG
    let configuration = "debug"
    #else
    let configuration = "release"
    #endif
    print("stack per level of resolution (\(configuration)): \(perLevel) bytes")
    #expect(perLevel < 16 * 1024, "one level of resolution should take a few kilobytes at most")
  }

  @Test func aLongChainOnAMainSizedStackSucceeds() async throws {
    let container = Self.chain(300)
    #expect(try container.resolve(type: Int.self, name: "step 0") == 299)
  }

  @Test func aLongCycleIsStillReportedAsACycle() throws {
    let container = Container()
    for step in 0..<200 {
      let next = "loop \((step + 1) % 200)"
      container.register(type: Int.self, name: "loop \(step)") { r in try r.resolve(type: Int.self, name: next) }
    }
    let error = try #require(throws: ResolutionError.self) { try container.resolve(type: Int.self, name: "loop 0") }
    #expect(error.kind == .cycle || error.kind == .resolutionTooDeep)
  }

  // MARK: Top-level resolutions of unique keys
  //
  // A top-level resolution of an unobserved, undecorated unique (or graph) key runs its factory
  // at once (`Container.makeDirect`): these check that it still does what the full path does.

  @Test func aFactoryWithoutAResolverThatResolvesItselfThroughItsContainerIsACycleError() async {
    await #expect(processExitsWith: .success) {
      let container = Container()
      // No resolver at all: only the thread's current frame links the two resolutions.
      container.register(type: CycleNode.self, name: "direct") {
        CycleNode("direct", next: try container.resolve(type: CycleNode.self, name: "direct"))
      }
      // The first resolution plans the key; the second takes the planned route.
      for _ in 0..<2 {
        let error = try? #require(throws: ResolutionError.self) {
          try container.resolve(type: CycleNode.self, name: "direct")
        }
        if error?.kind != .cycle { fatalError("expected a cycle error, got \(String(describing: error))") }
      }
    }
  }

  @Test func graphScopedInstancesResolvedThroughTheContainerInsideAFactoryAreShared() throws {
    let container = Container()
    container.register(type: Token.self, name: "graph part", scope: .graph) { Token("part") }
    // The outer factory captures the container: both reads continue its resolution, one graph.
    container.register(type: [Token].self, name: "graph pair") {
      [
        try container.resolve(type: Token.self, name: "graph part"),
        try container.resolve(type: Token.self, name: "graph part"),
      ]
    }
    // The first resolution plans the key; the second takes the planned route.
    let pair = try container.resolve(type: [Token].self, name: "graph pair")
    #expect(pair[0] === pair[1])
    let again = try container.resolve(type: [Token].self, name: "graph pair")
    #expect(again[0] === again[1])
    #expect(again[0] !== pair[0], "a new top-level resolution is a new graph")
    let third = try container.resolve(type: [Token].self, name: "graph pair")
    #expect(third[0] === third[1])
    #expect(third[0] !== again[0], "two planned resolutions do not share a graph either")
  }

  @Test func aTopLevelFactoryErrorNamesTheKeyAndIsNotCached() throws {
    struct Broken: Error {}
    let container = Container()
    let calls = Locked(0)
    container.register(type: Int.self, name: "direct failure") {
      calls.withLock { $0 += 1 }
      throw Broken()
    }
    // The first resolution plans the key; the later ones take the planned route, and the third
    // would show a thread frame that the second left behind.
    for _ in 0..<3 {
      let error = try #require(throws: ResolutionError.self) {
        try container.resolve(type: Int.self, name: "direct failure")
      }
      #expect(error.kind == .factoryFailed)
      #expect(error.path.map(\.name) == [error.dependency.name])
      #expect(error.underlying?.contains("Broken") == true)
    }
    #expect(calls.withLock { $0 } == 3)
  }

  // MARK: Many keys

  @Test func moreThanSixtyFiveThousandKeysAllResolve() throws {
    let container = Container()
    let count = 70_000
    for index in stride(from: 0, to: count, by: 1) {
      container.register(type: Int.self, name: "many \(index)") { index }
    }
    for index in [0, 65_535, 65_536, 69_999] {
      #expect(try container.resolve(type: Int.self, name: "many \(index)") == index)
      #expect(try container.resolve(type: Int.self, name: "many \(index)") == index, "again, from the cached plan")
    }
  }

  // MARK: Key paths

  @Test func aKeyPathTheTableHasSeenIsNoLongerReferenceCounted() throws {
    // Threads resolving through one key path literal share its object. The key table makes the
    // objects it maps immortal, so the retain and release around each use write nothing to it,
    // and those threads do not contend for one reference count (the S5 benchmark).
    let key: KeyPath<Dependencies, Key<Token>> = \.engineShared
    let container = Container()
    _ = try container.resolve(key)
    let counted = _getRetainCount(key)
    let copies = Array(repeating: key, count: 100)
    #expect(_getRetainCount(key) == counted, "100 more references changed the key path's count")
    withExtendedLifetime(copies) {}

    // A key path the table has not seen is counted as usual.
    let unseen: KeyPath<Dependencies, Key<Int>> = \.engineNeverSeen
    let before = _getRetainCount(unseen)
    let moreCopies = Array(repeating: unseen, count: 100)
    #expect(_getRetainCount(unseen) == before + 100)
    withExtendedLifetime(moreCopies) {}
  }

  // MARK: Replaced registrations

  /// Watches a singleton registration's captured token and the singleton, without keeping them.
  final class LifeProbe {
    weak var captured: Token?
    weak var singleton: Token?
    var isAnyAlive: Bool { captured != nil || singleton != nil }
  }

  /// Registers under `name` a singleton factory that captures a token, resolves it once, and
  /// returns a probe of the two.
  private func registerAndResolveSingleton(_ container: Container, name: String) throws -> LifeProbe {
    let probe = LifeProbe()
    let captured = Token("captured")
    probe.captured = captured
    container.register(type: Token.self, name: name, scope: .singleton) { Token(captured.label + " singleton") }
    let singleton = try container.resolve(type: Token.self, name: name)
    #expect(singleton.label == "captured singleton")
    probe.singleton = singleton
    return probe
  }

  @Test func aReplacedRegistrationIsFreedWithWhatItCapturedAndItsSingleton() async throws {
    let container = Container()
    let probe = try registerAndResolveSingleton(container, name: "replaced")
    // A replaced plan is released once no thread can be reading it. Other tests' threads may
    // be mid-read at that moment; each later re-plan of this container tries again.
    for attempt in 0..<1_000 where probe.isAnyAlive {
      container.register(type: Token.self, name: "replaced", scope: .singleton) { Token("new \(attempt)") }
      #expect(try container.resolve(type: Token.self, name: "replaced").label == "new \(attempt)")
    }
    #expect(await freedSoon { probe.captured == nil }, "the replaced factory and what it captured are freed")
    #expect(await freedSoon { probe.singleton == nil }, "the replaced registration's singleton is freed")
  }

  @Test func droppingAContainerFreesEveryRegistrationAndWhatItCaptured() async throws {
    // Registrations live in pages of 256 indices, and each new name takes the next index: the
    // 600 fillers put the last key at least two pages after the first. The first key is
    // registered twice.
    weak var first: Token?
    weak var replacement: Token?
    weak var last: Token?
    do {
      let container = Container()
      do {
        // Its own scope, so that only the registration keeps the token.
        let firstToken = Token("first")
        first = firstToken
        container.register(type: Token.self, name: "dropped page 0") { firstToken }
      }
      let (replacementToken, lastToken) = (Token("replacement"), Token("last"))
      (replacement, last) = (replacementToken, lastToken)
      for page in 1...600 {
        container.register(type: Int.self, name: "dropped filler \(page)") { page }
      }
      #expect(first != nil, "the container holds its registrations")
      // Never resolved, so never planned: nothing but the map held the replaced registration.
      container.register(type: Token.self, name: "dropped page 0") { replacementToken }
      #expect(await freedSoon { first == nil }, "a replaced registration is freed")
      container.register(type: Token.self, name: "dropped last page") { lastToken }
      #expect(try container.resolve(type: Token.self, name: "dropped page 0") === replacementToken)
      #expect(try container.resolve(type: Int.self, name: "dropped filler 300") == 300)
      #expect(container.isRegistered(type: Token.self, name: "dropped last page"))
    }
    #expect(await freedSoon { replacement == nil }, "a dropped container frees its registrations")
    #expect(await freedSoon { last == nil }, "a dropped container frees the registrations of every page")
  }

  @Test func aReplacedRegistrationIsFreedEvenIfItsKeyIsNeverResolvedAgain() async throws {
    let container = Container()
    let probe = try registerAndResolveSingleton(container, name: "dropped")
    container.register(type: Token.self, name: "dropped") { Token("new") }
    // Released at once unless another test's thread is mid-read; then at a later store into
    // this container, which resolving another key makes.
    for attempt in 0..<1_000 where probe.isAnyAlive {
      container.register(type: Token.self, name: "other") { Token("other \(attempt)") }
      #expect(try container.resolve(type: Token.self, name: "other").label == "other \(attempt)")
    }
    #expect(await freedSoon { probe.captured == nil }, "the replaced factory and what it captured are freed")
    #expect(await freedSoon { probe.singleton == nil }, "the replaced registration's singleton is freed")
    #expect(try container.resolve(type: Token.self, name: "dropped").label == "new")
  }

  /// A resolution from a container, run on a thread of its own, whose factory runs `first`, then
  /// waits until the test lets it finish. Only that thread blocks: the test's waits for it
  /// suspend, so that they hold no thread of the shared pool.
  private final class BlockedResolution: Sendable {
    private let proceed = DispatchSemaphore(value: 0)
    private let entered = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)

    init(_ container: Container, name: String, first: @escaping @Sendable (Resolver) throws -> Void) {
      container.register(type: Token.self, name: name) { [self] r in
        try first(r)
        entered.store(true, ordering: .releasing)
        proceed.wait()
        return Token(name)
      }
      Thread { [self] in
        _ = try? container.resolve(type: Token.self, name: name)
        ended.store(true, ordering: .releasing)
      }.start()
    }

    /// Waits until the factory waits; false if the resolution ended first (`first` threw) or
    /// only a hang kept it from getting there.
    func started() async -> Bool {
      _ = await waitUntil(timeout: hangBound) {
        entered.load(ordering: .acquiring) || ended.load(ordering: .acquiring)
      }
      return entered.load(ordering: .acquiring)
    }

    /// Lets the factory finish, without waiting for the resolution to end.
    func release() { proceed.signal() }

    /// Lets the factory finish and waits until the resolution ended; returns whether it did.
    func finish() async -> Bool {
      release()
      return await waitUntil(timeout: hangBound) { ended.load(ordering: .acquiring) }
    }
  }

  /// Starts, on a thread of its own, a resolution from `container` whose factory runs `first`,
  /// then waits: returns once it waits.
  private func startBlockedResolution(
    _ container: Container, name: String, first: @escaping @Sendable (Resolver) throws -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> BlockedResolution {
    let resolution = BlockedResolution(container, name: name, first: first)
    #expect(await resolution.started(), "the blocked resolution did not start", sourceLocation: sourceLocation)
    return resolution
  }

  @Test func aFactoryStillRunningInOneContainerHoldsBackNoFreeingInAnother() async throws {
    // A resolution reads its whole path in one read section; the section names the containers
    // it reads, so that only those wait for it.
    let slow = await startBlockedResolution(Container(), name: "slow elsewhere")
    defer { slow.release() }
    let container = Container()
    let probe = try registerAndResolveSingleton(container, name: "replaced beside a slow one")
    container.register(type: Token.self, name: "replaced beside a slow one", scope: .singleton) { Token("new") }
    // Another test's resolution of more containers than a section can name may hold it back
    // until that resolution ends (on a loaded machine, seconds); a later store into this
    // container tries again meanwhile. This test's own blocked resolution runs until the test
    // ends: were it what holds the release back, the wait would run out.
    var attempt = 0
    _ = await waitUntil(timeout: hangBound) {
      attempt += 1
      let label = "other \(attempt)"
      container.register(type: Token.self, name: "other") { Token(label) }
      return !probe.isAnyAlive
    }
    #expect(probe.captured == nil, "the replaced factory is freed while the other container's factory runs")
    #expect(probe.singleton == nil, "the replaced singleton is freed while the other container's factory runs")
  }

  @Test func aReplacedRegistrationHeldBackByARunningResolutionIsFreedWhenItEnds() async throws {
    let container = Container()
    let probe = try registerAndResolveSingleton(container, name: "replaced mid-resolution")
    let running = await startBlockedResolution(container, name: "running")
    // The running resolution may still read the replaced plan: it is released when that
    // resolution ends, with no later store into the container.
    container.register(type: Token.self, name: "replaced mid-resolution", scope: .singleton) { Token("new") }
    #expect(await running.finish())
    #expect(await freedSoon { probe.captured == nil }, "the replaced factory is freed once the resolution ends")
    #expect(await freedSoon { probe.singleton == nil }, "the replaced singleton is freed once the resolution ends")
    #expect(try container.resolve(type: Token.self, name: "replaced mid-resolution").label == "new")
  }

  @Test func retirementsHeldBackByTwoRunningResolutionsAreFreedAsEachEnds() async throws {
    // A resolution that holds back one retirement holds back every later one too; when the
    // first ends, what only a later resolution still holds back is released when that one ends.
    let container = Container()
    let early = try registerAndResolveSingleton(container, name: "replaced under the first reader")
    let late = try registerAndResolveSingleton(container, name: "replaced under both readers")
    let firstReader = await startBlockedResolution(container, name: "first reader")
    container.register(type: Token.self, name: "replaced under the first reader", scope: .singleton) { Token("new") }
    let secondReader = await startBlockedResolution(container, name: "second reader")
    container.register(type: Token.self, name: "replaced under both readers", scope: .singleton) { Token("new") }
    #expect(early.isAnyAlive && late.isAnyAlive, "plans running resolutions may read are kept")
    #expect(await firstReader.finish())
    #expect(await freedSoon { !early.isAnyAlive }, "what only the first reader held back is freed when it ends")
    #expect(late.isAnyAlive, "the second reader began before the replacement and still runs")
    #expect(await secondReader.finish())
    #expect(await freedSoon { !late.isAnyAlive }, "freed once the second reader ends, with no later store")
  }

  @Test func manyRetirementsUnderOneRunningResolutionAreAllFreedWhenItEnds() async throws {
    let container = Container()
    let reader = await startBlockedResolution(container, name: "long reader")
    let probes = (0..<2_000).map { _ in LifeProbe() }
    for (round, probe) in probes.enumerated() {
      let captured = Token("captured \(round)")
      probe.captured = captured
      container.register(type: Token.self, name: "replaced often") { Token(captured.label + " made") }
      // Planned, so that the next registration retires the plan, which the reader may read.
      #expect(try container.resolve(type: Token.self, name: "replaced often").label == "captured \(round) made")
    }
    #expect(probes.filter(\.isAnyAlive).count > 1, "the running resolution holds the replaced plans back")
    #expect(await reader.finish())
    #expect(
      await freedSoon { probes.dropLast().allSatisfy { !$0.isAnyAlive } },
      "every replaced plan is freed once the resolution ends")
    #expect(probes.last?.isAnyAlive == true, "the current registration keeps what it captured")
  }

  @Test func aChildsRunningResolutionHoldsBackOnlyWhatItsParentReplacedBeforeItReadTheParent() async throws {
    // A child's resolution reads its parent in a nested section, which lists the parent with
    // the parent's epoch at that moment. What the parent replaced before then, that section
    // cannot have read: the parent's next store frees it while the section still runs.
    let parent = Container()
    let key = "parent's, read by a child"
    let probe = try registerAndResolveSingleton(parent, name: key)
    let child = parent.makeChild()
    let readParent: @Sendable (Resolver) throws -> Void = { r in
      let token = try r.resolve(type: Token.self, name: key)
      #expect(token.label.hasSuffix("singleton"))
    }
    // A first resolution reads the parent's plan, then waits while the plan is replaced: it may
    // still use it, so the plan is kept.
    let firstReader = await startBlockedResolution(child, name: "first reader", first: readParent)
    parent.register(type: Token.self, name: key, scope: .singleton) { Token("new singleton") }
    #expect(probe.isAnyAlive, "a plan a running resolution read is kept")
    #expect(await firstReader.finish())
    // A second one reads the parent only after the replacement, and waits.
    let secondReader = await startBlockedResolution(child, name: "second reader", first: readParent)
    defer { secondReader.release() }
    // Another test's resolution of more containers than a section can name may hold the plan
    // back for a moment; a later store into the parent tries again.
    for attempt in 0..<1_000 where probe.isAnyAlive {
      parent.register(type: Token.self, name: "other") { Token("other \(attempt)") }
      #expect(try parent.resolve(type: Token.self, name: "other").label == "other \(attempt)")
    }
    #expect(await freedSoon { probe.captured == nil }, "the replaced factory is freed while the later reader runs")
    #expect(await freedSoon { probe.singleton == nil }, "the replaced singleton is freed while the later reader runs")
  }

  @Test func aParentsPlanHeldBackByAChildsResolutionIsFreedWhenItEndsWithNoLaterStore() async throws {
    // The child's section reads the parent in a nested domain: when it ends, the parent's
    // retired plan is released, though the parent is never written to again (an app whose
    // plans have settled) and the section's first domain is the child's.
    let parent = Container()
    let key = "parent's, held back by a child"
    let probe = try registerAndResolveSingleton(parent, name: key)
    let child = parent.makeChild()
    let reader = await startBlockedResolution(child, name: "reader") { r in
      _ = try r.resolve(type: Token.self, name: key)
    }
    parent.register(type: Token.self, name: key, scope: .singleton) { Token("new singleton") }
    #expect(probe.isAnyAlive, "a plan a running resolution read is kept")
    #expect(await reader.finish())
    // Another test's section may hold it back too (one that reads more containers than it can
    // name): its end tries again. Nothing here stores into the parent meanwhile.
    #expect(await freedSoon { probe.captured == nil }, "the replaced factory is freed once the child's resolution ends")
    #expect(
      await freedSoon { probe.singleton == nil }, "the replaced singleton is freed once the child's resolution ends")
  }

  @Test func aPlanHeldBackBySectionsReadingManyContainersIsFreedWhenTheyEnd() async throws {
    // A section that reads more containers than its record can name holds back every
    // container's releases until it ends.
    let chain = (0..<12).reduce(into: [Container()]) { chain, _ in chain.append(chain.last!.makeChild()) }
    for (level, container) in chain.enumerated().dropFirst() {
      let above = "level \(level - 1)"
      // Shared, so that each level is made in, and read from, the container that registers it.
      container.register(type: Int.self, name: "level \(level)", scope: .singleton) { r in
        level == 1 ? 1 : try r.resolve(type: Int.self, name: above) + 1
      }
    }
    let elsewhere = Container()
    let probe = try registerAndResolveSingleton(elsewhere, name: "unrelated")
    let deepest = chain.last!
    let deepReader = await startBlockedResolution(deepest, name: "deep reader") { r in
      let top = try r.resolve(type: Int.self, name: "level 12")
      #expect(top == 12)
    }
    elsewhere.register(type: Token.self, name: "unrelated", scope: .singleton) { Token("new") }
    #expect(await deepReader.finish())
    #expect(await freedSoon { probe.captured == nil }, "freed once the deep section ended, with no later store")
    #expect(await freedSoon { probe.singleton == nil }, "freed once the deep section ended, with no later store")
  }

  /// Registers under `name` in `container` a unique factory that captures a token, and returns
  /// a probe of that token.
  private func registerCapturing(_ container: Container, name: String) -> LifeProbe {
    let probe = LifeProbe()
    let captured = Token("captured")
    probe.captured = captured
    container.register(type: Token.self, name: name) { Token(captured.label + " made") }
    return probe
  }

  /// Re-registers `name` in `container` until the probe's objects are freed, without resolving
  /// `name` again. Each round resolves another key from `readers`, which plans it again there:
  /// a plan released while a reader on another test's thread was mid-read is freed at the next
  /// store into the same container.
  private func replaceUntilFreed(
    _ probe: LifeProbe, name: String, in container: Container, readers: [Container]
  )
    throws
  {
    container.register(type: Token.self, name: "\(name) other") { Token("other") }
    for attempt in 0..<1_000 where probe.isAnyAlive {
      container.register(type: Token.self, name: name) { Token("new \(attempt)") }
      for reader in readers {
        #expect(try reader.resolve(type: Token.self, name: "\(name) other").label == "other")
      }
    }
  }

  @Test func aReplacedRegistrationIsFreedFromTheChildrenThatMadeItsValues() async throws {
    let parent = Container()
    let child = parent.makeChild()
    let grandchild = child.makeChild()
    let probe = registerCapturing(parent, name: "inherited")
    // Unique values of a parent's registration are made by the child that resolves them, with
    // a binding of its own, and so by the grandchild.
    #expect(try child.resolve(type: Token.self, name: "inherited").label == "captured made")
    #expect(try grandchild.resolve(type: Token.self, name: "inherited").label == "captured made")
    try replaceUntilFreed(probe, name: "inherited", in: parent, readers: [child, grandchild])
    #expect(
      await freedSoon { probe.captured == nil }, "the children let go of the replaced factory and what it captured")
    #expect(try child.resolve(type: Token.self, name: "inherited").label.hasPrefix("new "))
    #expect(try grandchild.resolve(type: Token.self, name: "inherited").label.hasPrefix("new "))
  }

  @Test func aReplacedRegistrationIsFreedFromAnOverrideScopesCopy() async throws {
    let container = Container()
    let probe = registerCapturing(container, name: "scoped")
    try await withOverrides { _ in
    } operation: { () async throws in
      // The scope's copy of the container binds the registration it resolves; resolving from
      // `container` in the scope resolves from that copy.
      #expect(try container.resolve(type: Token.self, name: "scoped").label == "captured made")
      try replaceUntilFreed(probe, name: "scoped", in: container, readers: [container])
      #expect(
        await freedSoon { probe.captured == nil },
        "the scope's copy lets go of the replaced factory and what it captured")
      #expect(try container.resolve(type: Token.self, name: "scoped").label.hasPrefix("new "))
    }
  }

  @Test func aReplacedOverrideIsFreedFromTheScopesCopy() async throws {
    let container = Container()
    container.register(type: Token.self, name: "overridden") { Token("live") }
    var scopeOwn: Container?
    try await withOverrides { overrides in
      scopeOwn = overrides
    } operation: { () async throws in
      let overrides = try #require(scopeOwn)
      let probe = registerCapturing(overrides, name: "overridden")
      // The scope's copy of `container` binds the override it resolves; the override is then
      // registered again into the scope's own container.
      #expect(try container.resolve(type: Token.self, name: "overridden").label == "captured made")
      try replaceUntilFreed(probe, name: "overridden", in: overrides, readers: [container])
      #expect(
        await freedSoon { probe.captured == nil },
        "the scope's copy lets go of the replaced override and what it captured")
      #expect(try container.resolve(type: Token.self, name: "overridden").label.hasPrefix("new "))
    }
  }

  @Test func resolvingWhileAnotherTaskReplacesTheRegistrationIsSafe() async throws {
    let container = Container()
    container.register(\.engineShared, scope: .singleton) { Token("version 0") }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<2_000 {
            let token = try container.resolve(\.engineShared)
            #expect(token.label.hasPrefix("version "))
          }
        }
      }
      group.addTask {
        for version in 1...200 {
          container.register(\.engineShared, scope: .singleton) { Token("version \(version)") }
          await Task.yield()
        }
      }
      try await group.waitForAll()
    }
    #expect(try container.resolve(\.engineShared).label == "version 200")
  }

  @Test func aResolutionThatStartsAfterTheFirstRegistrationSeesIt() async throws {
    // A planner racing the first registration of a fresh container must never leave a plan
    // behind that misses it.
    for round in 0..<2_000 {
      let container = Container()
      let registered = Locked(false)
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          while true {
            let done = registered.withLock { $0 }
            if let name = try? container.resolve(\.engineName) {
              #expect(name == "round \(round)")
              return
            }
            // Before the registration, the key is missing; once it is done, it never is.
            #expect(!done, "a resolution that started after the registration missed it")
            if done { return }
          }
        }
        group.addTask {
          container.register(\.engineName) { "round \(round)" }
          registered.withLock { $0 = true }
        }
        try await group.waitForAll()
      }
    }
  }

  @Test func aSingletonReRegisteredWhileResolvedIsMadeOnceForItsRegistration() async throws {
    // A planner that read the replaced registration must not displace the new registration's
    // binding (and so its singleton): each registration's factory runs at most once.
    for _ in 0..<200 {
      let container = Container()
      let made = Locked<[Int: Int]>([:])
      func register(_ version: Int) {
        container.register(\.engineShared, scope: .singleton) {
          made.withLock { $0[version, default: 0] += 1 }
          return Token("version \(version)")
        }
      }
      register(0)
      _ = try container.resolve(\.engineShared)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<3 {
          group.addTask {
            for _ in 0..<200 { _ = try container.resolve(\.engineShared) }
          }
        }
        group.addTask {
          for version in 1...5 { register(version) }
        }
        try await group.waitForAll()
      }
      let last = try container.resolve(\.engineShared)
      #expect(last.label == "version 5")
      #expect(try container.resolve(\.engineShared) === last)
      let counts = made.withLock { $0 }
      #expect(counts.values.allSatisfy { $0 == 1 }, "a factory ran more than once: \(counts)")
    }
  }

  // MARK: The task's container

  @Test func withContainerSetsTheContainerInjectedUses() async {
    let first = Container()
    first.register(\.engineShared) { Token("first") }
    let second = Container()
    second.register(\.engineShared) { Token("second") }
    struct Holder { @Injected(\.engineShared) var token: Token }
    let labels = await withTaskGroup(of: String.self) { group in
      for container in [first, second] {
        group.addTask { await withContainer(container) { Holder().token.label } }
      }
      return await group.reduce(into: [String]()) { $0.append($1) }.sorted()
    }
    #expect(labels == ["first", "second"])
    #expect(Container.current === Container.shared, "nothing leaks out of the call")
  }

  @Test(.container { container in container.register(\.engineShared) { Token("from the trait") } })
  func theContainerTraitGivesEachTestItsOwnContainer() {
    struct Holder { @Injected(\.engineShared) var token: Token }
    #expect(Holder().token.label == "from the trait")
    #expect(Container.current !== Container.shared)
  }

  @Test func parallelOverrideScopesNeverShareASingletonEvenThroughInjected() async {
    struct Holder { @Injected(\.engineShared) var token: Token }
    // The tokens themselves come back (not their identifiers), so both stay alive while they
    // are compared: an identifier of a freed object can be reused by the next allocation.
    let results = await withTaskGroup(of: (injected: Token, resolved: Token).self) { group in
      for label in ["left", "right"] {
        group.addTask {
          await withOverrides {
            $0.register(\.engineShared, scope: .singleton) { Token(label) }
          } operation: {
            let injected = Holder().token
            let resolved = (try? Container.shared[\.engineShared]) ?? Token("failed")
            return (injected, resolved)
          }
        }
      }
      return await group.reduce(into: [(injected: Token, resolved: Token)]()) { $0.append($1) }
    }
    #expect(Set(results.map(\.injected.label)) == ["left", "right"])
    for result in results { #expect(result.injected === result.resolved, "one singleton per scope") }
    #expect(results[0].injected !== results[1].injected)
  }

  // MARK: The seeds' provider shape

  @Test func aContainerIsADependencyProviderWithNoAdapter() throws {
    let container = Container()
    container.register(type: (any LocalStorage).self, scope: .singleton) { InMemoryStorage() }
    let provider: any SeedDependencyProvider = container
    let first: any LocalStorage = try provider.resolve()
    let second: any LocalStorage = try provider.resolve()
    #expect(first === second)
    #expect(throws: ResolutionError.self) { let _: Repository = try provider.resolve() }
  }
}

/// The seeds' hand-written provider protocol, exactly as apps write it.
protocol SeedDependencyProvider {
  func resolve<T>() throws -> T
}

extension Container: SeedDependencyProvider {}
