// Acceptance audit of issue 10 ("Engine v2"), written from the issue, README.md and the DocC
// articles only: every key kind × every feature of point 1, the main-actor hop, validate()
// (point 3), state per container and per override scope (point 4), deep chains (point 6) and
// the seeds' provider shape (point 8).

import Dispatch
import Foundation
import Knapsack
import KnapsackTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Fixtures

final class AuditBox: Sendable {
  let tag: String
  let id: Int
  let wrapped: AuditBox?
  init(_ tag: String = "", id: Int = 0, wrapping wrapped: AuditBox? = nil) {
    self.tag = tag
    self.id = id
    self.wrapped = wrapped
  }
}

final class AuditDisposableBox: Disposable {
  let tag: String
  let log: AuditLog
  init(_ tag: String, log: AuditLog) {
    self.tag = tag
    self.log = log
  }
  func dispose() async throws { log.append("disposed \(tag)") }
}

struct AuditPair: Sendable {
  let first: AuditBox
  let second: AuditBox
}

final class AuditCounter: Sendable {
  private let count = Mutex(0)
  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
  var value: Int { count.withLock { $0 } }
}

final class AuditLog: Sendable {
  private let entries = Mutex<[String]>([])
  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}

final class AuditRecorder: ResolutionObserver {
  private let recorded = Mutex<[ResolutionEvent]>([])
  func didResolve(_ event: ResolutionEvent) { recorded.withLock { $0.append(event) } }
  var events: [ResolutionEvent] { recorded.withLock { $0 } }
}

/// Lets two tasks meet, with no timeout: each waits until both have arrived.
actor AuditBarrier {
  private let parties: Int
  private var arrived = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []
  init(parties: Int) { self.parties = parties }
  func arriveAndWait() async {
    arrived += 1
    if arrived == parties {
      for continuation in waiting { continuation.resume() }
      waiting = []
    } else {
      await withCheckedContinuation { waiting.append($0) }
    }
  }
}

protocol AuditStorage: Sendable {}
struct AuditSQLStorage: AuditStorage {}

@MainActor final class AuditViewModel: Sendable {
  let storage: any AuditStorage
  init(storage: any AuditStorage) { self.storage = storage }
}

extension Dependencies {
  var auditSync: Key<AuditBox> { Key { AuditBox("sync default") } }
  var auditAsync: AsyncKey<AuditBox> { AsyncKey { AuditBox("async default") } }
  var auditMain: MainActorKey<AuditBox> { MainActorKey { AuditBox("main default") } }
  var auditArg: ArgumentKey<Int, AuditBox> { ArgumentKey { _, n in AuditBox("arg default", id: n) } }
  var auditAsyncArg: DependencyKey<AsyncKind, Int, AuditBox> {
    DependencyKey { _, n in AuditBox("async arg default", id: n) }
  }
  var auditMainArg: DependencyKey<MainActorKind, Int, AuditBox> {
    DependencyKey { _, n in AuditBox("main arg default", id: n) }
  }

  // Each resolves its kind's key twice in one top-level resolution (for the graph scope).
  var auditSyncPair: Key<AuditPair> { Key { r in AuditPair(first: try r[\.auditSync], second: try r[\.auditSync]) } }
  var auditAsyncPair: AsyncKey<AuditPair> {
    AsyncKey { r in
      AuditPair(first: try await r.resolve(\.auditAsync), second: try await r.resolve(\.auditAsync))
    }
  }
  var auditMainPair: MainActorKey<AuditPair> {
    MainActorKey { r in AuditPair(first: try r[\.auditMain], second: try r[\.auditMain]) }
  }
  var auditArgPair: Key<AuditPair> {
    Key { r in
      AuditPair(first: try r.resolve(\.auditArg, argument: 1), second: try r.resolve(\.auditArg, argument: 1))
    }
  }
  var auditAsyncArgPair: AsyncKey<AuditPair> {
    AsyncKey { r in
      AuditPair(
        first: try await r.resolve(\.auditAsyncArg, argument: 1),
        second: try await r.resolve(\.auditAsyncArg, argument: 1))
    }
  }
  var auditMainArgPair: MainActorKey<AuditPair> {
    MainActorKey { r in
      AuditPair(first: try r.resolve(\.auditMainArg, argument: 1), second: try r.resolve(\.auditMainArg, argument: 1))
    }
  }

  var auditMulti: Multibinding<AuditBox> { Multibinding() }
  var auditAsyncMulti: AsyncMultibinding<AuditBox> { AsyncMultibinding() }
  var auditMainMulti: MainActorMultibinding<AuditBox> { MainActorMultibinding() }

  var auditMissing: Key<AuditBox> { .required() }
  var auditShared: Key<AuditBox> { Key { AuditBox("shared default") } }

  // Point 3: a required storage key reached only through a main-actor view model.
  var auditStorage: Key<any AuditStorage> { .required() }
  var auditViewModel: MainActorKey<AuditViewModel> {
    MainActorKey { r in AuditViewModel(storage: try r[\.auditStorage]) }
  }

  var auditRequiredMain: MainActorKey<AuditBox> { .required().scope(.singleton) }
  var auditRequiredArg: ArgumentKey<Int, AuditBox> { .required().scope(.singleton) }
  var auditRequiredAsync: AsyncKey<AuditBox> { .required().scope(.singleton) }
  var auditGraphParent: AsyncKey<AuditPair> {
    AsyncKey { r in
      async let first = r.resolve(\.auditAsync)
      async let second = r.resolve(\.auditAsync)
      return AuditPair(first: try await first, second: try await second)
    }
  }

  var auditCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n == 0 ? 0 : try r.resolve(\.auditCountdown, argument: n - 1) + 1 }
  }
  var auditArgHandleHolder: Key<Provider<ArgumentKey<Int, AuditBox>>> { Key { r in r.provider(\.auditArg) } }

  // Point 6: a chain of keys, one per step.
  subscript(auditStep step: Int) -> Key<Int> {
    Key { r in step >= 9_999 ? 0 : try r[\.[auditStep: step + 1]] + 1 }
  }
}

/// The main actor runs on the main dispatch queue (on Linux not always on the main thread, so
/// `Thread.isMainThread` cannot tell).
let auditMainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

func auditOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: auditMainQueueKey) == true }

let auditScopes: [Scope] = [.unique, .singleton, .cached, .weak, .graph]

/// Checks what a scope promises for one kind of key, in a new container where `register` registers
/// it with `scope` (its factory numbering what it makes with the counter), given two ways to
/// resolve it: on its own, and twice within one top-level resolution. Returns the container.
@discardableResult
func auditExpectScope(
  _ scope: Scope, isolation: isolated (any Actor)? = #isolation,
  register: (Container, AuditCounter) -> Void,
  resolve: (Container) async throws -> AuditBox, pair: (Container) async throws -> AuditPair,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Container {
  let container = Container()
  let counter = AuditCounter()
  register(container, counter)
  let keeps = scope == .singleton || scope == .cached || scope == .weak
  do {
    let first = try await resolve(container)
    let second = try await resolve(container)
    #expect((first === second) == keeps, "\(scope): two top-level resolutions", sourceLocation: sourceLocation)
    let both = try await pair(container)
    #expect(
      (both.first === both.second) == (scope != .unique), "\(scope): twice in one resolution",
      sourceLocation: sourceLocation)
    if scope == .graph {
      let again = try await pair(container)
      #expect(
        again.first !== both.first, "graph: a new instance per top-level resolution", sourceLocation: sourceLocation)
    }
    container.resetCached()
    let third = try await resolve(container)
    #expect(
      (third === first) == (scope == .singleton || scope == .weak), "\(scope): after resetCached()",
      sourceLocation: sourceLocation)
  }
  // Nothing outside the container holds an instance now: a weak one is gone.
  let before = counter.value
  _ = try await resolve(container)
  let madeAgain = counter.value > before
  #expect(
    madeAgain == (scope == .unique || scope == .graph || scope == .weak), "\(scope): once nothing holds it",
    sourceLocation: sourceLocation)
  return container
}

// MARK: - Point 1: every feature for every kind

@Suite struct AcceptanceAuditKindTests {
  // MARK: Scopes

  @Test(arguments: auditScopes) func syncKeyScope(_ scope: Scope) async throws {
    try await auditExpectScope(
      scope, register: { c, n in c.register(\.auditSync, scope: scope) { AuditBox("sync", id: n.next()) } },
      resolve: { try $0[\.auditSync] }, pair: { try $0[\.auditSyncPair] })
  }

  @Test(arguments: auditScopes) func asyncKeyScope(_ scope: Scope) async throws {
    try await auditExpectScope(
      scope,
      register: { c, n in c.register(\.auditAsync, scope: scope) { () async throws in AuditBox("async", id: n.next()) }
      },
      resolve: { try await $0.resolve(\.auditAsync) }, pair: { try await $0.resolve(\.auditAsyncPair) })
  }

  @MainActor @Test(arguments: auditScopes) func mainActorKeyScope(_ scope: Scope) async throws {
    try await auditExpectScope(
      scope, register: { c, n in c.register(\.auditMain, scope: scope) { AuditBox("main", id: n.next()) } },
      resolve: { try $0[\.auditMain] }, pair: { try $0[\.auditMainPair] })
  }

  // An argument key's instances are numbered argument × 1,000 + count: one instance per argument.

  @Test(arguments: auditScopes) func argumentKeyScope(_ scope: Scope) async throws {
    let container = try await auditExpectScope(
      scope,
      register: { c, n in c.register(\.auditArg, scope: scope) { _, a in AuditBox("arg", id: a * 1_000 + n.next()) } },
      resolve: { try $0.resolve(\.auditArg, argument: 1) }, pair: { try $0[\.auditArgPair] })
    let one = try container.resolve(\.auditArg, argument: 1)
    let two = try container.resolve(\.auditArg, argument: 2)
    #expect(one !== two)
    #expect(two.id / 1_000 == 2)
  }

  @Test(arguments: auditScopes) func asyncArgumentKeyScope(_ scope: Scope) async throws {
    let container = try await auditExpectScope(
      scope,
      register: { c, n in
        c.register(\.auditAsyncArg, scope: scope) { _, a async throws in AuditBox("async arg", id: a * 1_000 + n.next())
        }
      },
      resolve: { try await $0.resolve(\.auditAsyncArg, argument: 1) },
      pair: { try await $0.resolve(\.auditAsyncArgPair) })
    #expect(try await container.resolve(\.auditAsyncArg, argument: 2).id / 1_000 == 2)
  }

  @MainActor @Test(arguments: auditScopes) func mainActorArgumentKeyScope(_ scope: Scope) async throws {
    let container = try await auditExpectScope(
      scope,
      register: { c, n in
        c.register(\.auditMainArg, scope: scope) { _, a in AuditBox("main arg", id: a * 1_000 + n.next()) }
      },
      resolve: { try $0.resolve(\.auditMainArg, argument: 1) }, pair: { try $0[\.auditMainArgPair] })
    #expect(try container.resolve(\.auditMainArg, argument: 2).id / 1_000 == 2)
  }

  // MARK: Child containers

  @MainActor @Test func childContainersForEveryKind() async throws {
    let parent = Container()
    parent.register(\.auditSync, scope: .singleton) { AuditBox("parent") }
    parent.register(\.auditAsync, scope: .singleton) { () async throws in AuditBox("parent") }
    parent.register(\.auditMain, scope: .singleton) { AuditBox("parent") }
    parent.register(\.auditArg, scope: .singleton) { _, n in AuditBox("parent", id: n) }
    parent.register(\.auditAsyncArg, scope: .singleton) { _, n async throws in AuditBox("parent", id: n) }
    parent.register(\.auditMainArg, scope: .singleton) { _, n in AuditBox("parent", id: n) }
    let child = parent.makeChild()

    // A parent's shared instance is shared with the child.
    #expect(try child[\.auditSync] === parent[\.auditSync])
    #expect(try await child.resolve(\.auditAsync) === parent.resolve(\.auditAsync))
    #expect(try child[\.auditMain] === parent[\.auditMain])
    #expect(try child.resolve(\.auditArg, argument: 1) === parent.resolve(\.auditArg, argument: 1))
    #expect(try await child.resolve(\.auditAsyncArg, argument: 1) === parent.resolve(\.auditAsyncArg, argument: 1))
    #expect(try child.resolve(\.auditMainArg, argument: 1) === parent.resolve(\.auditMainArg, argument: 1))

    // What the child registers stays in the child.
    let session = parent.makeChild()
    session.register(\.auditSync) { AuditBox("child") }
    session.register(\.auditAsync) { () async throws in AuditBox("child") }
    session.register(\.auditMain) { AuditBox("child") }
    session.register(\.auditArg) { _, n in AuditBox("child", id: n) }
    session.register(\.auditAsyncArg) { _, n async throws in AuditBox("child", id: n) }
    session.register(\.auditMainArg) { _, n in AuditBox("child", id: n) }
    #expect(try session[\.auditSync].tag == "child")
    #expect(try await session.resolve(\.auditAsync).tag == "child")
    #expect(try session[\.auditMain].tag == "child")
    #expect(try session.resolve(\.auditArg, argument: 1).tag == "child")
    #expect(try await session.resolve(\.auditAsyncArg, argument: 1).tag == "child")
    #expect(try session.resolve(\.auditMainArg, argument: 1).tag == "child")
    #expect(try parent[\.auditSync].tag == "parent")
    #expect(try await parent.resolve(\.auditAsync).tag == "parent")
    #expect(try parent[\.auditMain].tag == "parent")
    #expect(try parent.resolve(\.auditArg, argument: 1).tag == "parent")
    #expect(try await parent.resolve(\.auditAsyncArg, argument: 1).tag == "parent")
    #expect(try parent.resolve(\.auditMainArg, argument: 1).tag == "parent")
  }

  @MainActor @Test(arguments: auditScopes) func childContainersShareWhatTheParentKeeps(_ scope: Scope) async throws {
    let parent = Container()
    parent.register(\.auditSync, scope: scope) { AuditBox() }
    parent.register(\.auditAsync, scope: scope) { () async throws in AuditBox() }
    parent.register(\.auditMain, scope: scope) { AuditBox() }
    parent.register(\.auditArg, scope: scope) { _, n in AuditBox(id: n) }
    parent.register(\.auditAsyncArg, scope: scope) { _, n async throws in AuditBox(id: n) }
    parent.register(\.auditMainArg, scope: scope) { _, n in AuditBox(id: n) }
    let child = parent.makeChild()
    let shared = scope == .singleton || scope == .cached || scope == .weak
    let pairs: [(String, AuditBox, AuditBox)] = [
      ("sync", try parent[\.auditSync], try child[\.auditSync]),
      ("async", try await parent.resolve(\.auditAsync), try await child.resolve(\.auditAsync)),
      ("main", try parent[\.auditMain], try child[\.auditMain]),
      ("arg", try parent.resolve(\.auditArg, argument: 1), try child.resolve(\.auditArg, argument: 1)),
      (
        "async arg", try await parent.resolve(\.auditAsyncArg, argument: 1),
        try await child.resolve(\.auditAsyncArg, argument: 1)
      ),
      ("main arg", try parent.resolve(\.auditMainArg, argument: 1), try child.resolve(\.auditMainArg, argument: 1)),
    ]
    for (kind, inParent, inChild) in pairs {
      #expect((inParent === inChild) == shared, "\(kind), \(scope)")
    }
    if scope == .cached {
      child.resetCached()
      #expect(try child[\.auditMain] === pairs[2].1, "the child's reset does not clear the parent's instance")
    }
  }

  @MainActor @Test func aChildThatDecoratesAParentsMainActorSingletonKeepsItsOwn() async throws {
    let parent = Container()
    parent.register(\.auditMain, scope: .singleton) { AuditBox("made") }
    let child = parent.makeChild()
    child.decorate(\.auditMain) { _, box in AuditBox("child decorated", wrapping: box) }
    let inChild = try child[\.auditMain]
    let inParent = try parent[\.auditMain]
    #expect(inChild.tag == "child decorated" && inChild.wrapped?.tag == "made")
    #expect(inParent.tag == "made")
    #expect(try child[\.auditMain] === inChild)
  }

  // MARK: dispose:

  @MainActor @Test func disposeClosureForEveryKind() async throws {
    let container = Container()
    let log = AuditLog()
    container.register(\.auditSync, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { AuditBox("a") }
    container.register(\.auditAsync, scope: .singleton, dispose: { log.append("async \($0.tag)") }) {
      () async throws in AuditBox("b")
    }
    container.register(\.auditMain, scope: .singleton, dispose: { log.append("main \($0.tag)") }) { AuditBox("c") }
    container.register(\.auditArg, scope: .singleton, dispose: { log.append("arg \($0.id)") }) { _, n in
      AuditBox(id: n)
    }
    container.register(\.auditAsyncArg, scope: .cached, dispose: { log.append("async arg \($0.id)") }) {
      _, n async throws in AuditBox(id: n)
    }
    container.register(\.auditMainArg, scope: .singleton, dispose: { log.append("main arg \($0.id)") }) { _, n in
      AuditBox(id: n)
    }
    _ = try container[\.auditSync]
    _ = try await container.resolve(\.auditAsync)
    _ = try container[\.auditMain]
    _ = try container.resolve(\.auditArg, argument: 1)
    _ = try container.resolve(\.auditArg, argument: 2)
    _ = try await container.resolve(\.auditAsyncArg, argument: 3)
    _ = try container.resolve(\.auditMainArg, argument: 4)
    try await container.dispose()
    // Reverse order of creation, each once.
    #expect(log.all == ["main arg 4", "async arg 3", "arg 2", "arg 1", "main c", "async b", "sync a"])
  }

  @MainActor @Test func disposableValuesForEveryKind() async throws {
    let container = Container()
    let log = AuditLog()
    container.register(\.auditDisposableSync, scope: .singleton) { AuditDisposableBox("sync", log: log) }
    container.register(\.auditDisposableAsync, scope: .singleton) { () async throws in
      AuditDisposableBox("async", log: log)
    }
    container.register(\.auditDisposableMain, scope: .singleton) { AuditDisposableBox("main", log: log) }
    container.register(\.auditDisposableArg, scope: .singleton) { _, n in AuditDisposableBox("arg \(n)", log: log) }
    _ = try container[\.auditDisposableSync]
    _ = try await container.resolve(\.auditDisposableAsync)
    _ = try container[\.auditDisposableMain]
    _ = try container.resolve(\.auditDisposableArg, argument: 5)
    try await container.dispose()
    #expect(log.all == ["disposed arg 5", "disposed main", "disposed async", "disposed sync"])
    let error = #expect(throws: ResolutionError.self) { try container[\.auditSync] }
    #expect(error?.kind == .containerDisposed)
  }

  // MARK: Decorators

  @MainActor @Test func decoratorsForEveryKind() async throws {
    let container = Container()
    container.decorate(\.auditSync) { _, box in AuditBox("decorated", wrapping: box) }
    container.decorate(\.auditAsync) { r, box in
      let other = try await r.resolve(\.auditAsyncArg, argument: 9)  // an asynchronous decorator may await
      return AuditBox("decorated", id: other.id, wrapping: box)
    }
    container.decorate(\.auditMain) { _, box in
      MainActor.assertIsolated()
      return AuditBox("decorated", wrapping: box)
    }
    container.decorate(\.auditArg) { _, box in AuditBox("decorated", id: box.id, wrapping: box) }
    container.decorate(\.auditAsyncArg) { _, box in AuditBox("decorated", id: box.id, wrapping: box) }
    container.decorate(\.auditMainArg) { _, box in AuditBox("decorated", id: box.id, wrapping: box) }
    // Decorators compose: the first registered wraps the factory's value.
    container.decorate(\.auditSync) { _, box in AuditBox("outer", wrapping: box) }

    let sync = try container[\.auditSync]
    #expect(sync.tag == "outer" && sync.wrapped?.tag == "decorated" && sync.wrapped?.wrapped?.tag == "sync default")
    let async = try await container.resolve(\.auditAsync)
    #expect(async.tag == "decorated" && async.id == 9 && async.wrapped?.tag == "async default")
    #expect(try container[\.auditMain].wrapped?.tag == "main default")
    #expect(try container.resolve(\.auditArg, argument: 2).wrapped?.tag == "arg default")
    #expect(try await container.resolve(\.auditAsyncArg, argument: 3).wrapped?.id == 3)
    #expect(try container.resolve(\.auditMainArg, argument: 4).wrapped?.id == 4)

    // A decorator applies to an override too.
    try await withOverrides {
      $0.register(\.auditMain) { AuditBox("override") }
      $0.register(\.auditArg) { _, n in AuditBox("override", id: n) }
    } operation: { () async throws in
      #expect(try container[\.auditMain].wrapped?.tag == "override")
      #expect(try container.resolve(\.auditArg, argument: 1).wrapped?.tag == "override")
    }
  }

  // MARK: Multibindings

  @MainActor @Test func multibindingContributionsForEveryKind() async throws {
    let container = Container()
    let log = AuditLog()
    container.contribute(to: \.auditMulti, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { _ in
      AuditBox("s1")
    }
    container.contribute(to: \.auditMulti) { _ in AuditBox("s2") }
    container.contribute(to: \.auditAsyncMulti, scope: .singleton, dispose: { log.append("async \($0.tag)") }) { r in
      AuditBox("a1", wrapping: try await r.resolve(\.auditAsync))
    }
    container.contribute(to: \.auditAsyncMulti) { _ in AuditBox("a2") }
    container.contribute(to: \.auditMainMulti, scope: .cached, dispose: { log.append("main \($0.tag)") }) { r in
      AuditBox("m1", wrapping: try r[\.auditMain])
    }
    container.contribute(to: \.auditMainMulti, scope: .weak) { _ in AuditBox("m2") }
    let child = container.makeChild()
    child.contribute(to: \.auditMulti) { _ in AuditBox("child") }

    let sync1 = try container[\.auditMulti]
    let sync2 = try container.resolve(\.auditMulti)
    #expect(sync1.map(\.tag) == ["s1", "s2"])
    #expect(sync1[0] === sync2[0] && sync1[1] !== sync2[1])
    #expect(try child[\.auditMulti].map(\.tag) == ["s1", "s2", "child"])
    #expect(try child[\.auditMulti][0] === sync1[0])

    let async1 = try await container.resolve(\.auditAsyncMulti)
    let async2 = try await container[\.auditAsyncMulti]
    #expect(async1.map(\.tag) == ["a1", "a2"])
    #expect(async1[0] === async2[0] && async1[1] !== async2[1])

    let main1 = try container[\.auditMainMulti]
    // Audit note: in `@MainActor` *async* code, `try container.resolve(\.auditMainMulti)` (and
    // `resolve(\.mainActorKey)`, `provider(...).get()` of a main-actor key or multibinding) does
    // not compile: Swift prefers the `async` overload in an async context, so it needs `await`.
    // The subscript and `Lazy.value` work without it.
    let main2 = try await container.resolve(\.auditMainMulti)
    #expect(main1.map(\.tag) == ["m1", "m2"])
    #expect(main1[0] === main2[0] && main1[1] === main2[1])

    // Handles of multibindings.
    #expect(try container.provider(\.auditMulti).get().count == 2)
    #expect(try await container.provider(\.auditAsyncMulti).get().count == 2)
    #expect(try await container.provider(\.auditMainMulti).get().count == 2)  // `await`: see the note above
    #expect(try container.lazy(\.auditMulti).value.count == 2)
    #expect(try await container.lazy(\.auditAsyncMulti).value.count == 2)
    #expect(try container.lazy(\.auditMainMulti).value.count == 2)

    try await container.dispose()
    #expect(Set(log.all) == ["sync s1", "async a1", "main m1"])
  }

  // MARK: Tracing

  @MainActor @Test func tracingSeesEveryKind() async throws {
    let container = Container()
    let recorder = AuditRecorder()
    container.register(\.auditAsync, scope: .singleton) { () async throws in AuditBox() }
    container.observe(recorder)
    _ = try container[\.auditSync]
    _ = try await container.resolve(\.auditAsync)
    _ = try await container.resolve(\.auditAsync)
    _ = try container[\.auditMain]
    _ = try container.resolve(\.auditArg, argument: 1)
    _ = try await container.resolve(\.auditAsyncArg, argument: 1)
    _ = try container.resolve(\.auditMainArg, argument: 1)
    _ = try container[\.auditMainPair]
    #expect(throws: ResolutionError.self) { try container[\.auditMissing] }
    container.observe(nil)
    let events = recorder.events
    for name in ["auditSync", "auditAsync", "auditMain", "auditArg", "auditAsyncArg", "auditMainArg"] {
      #expect(events.contains { $0.dependency.name == "\\.\(name)" && $0.outcome == .created }, "\(name)")
    }
    #expect(events.contains { $0.dependency.name == "\\.auditAsync" && $0.outcome == .reused })
    #expect(
      events.contains {
        $0.dependency.name == "\\.auditMain" && $0.depth == 1 && $0.requestedBy?.name == "\\.auditMainPair"
      })
    #expect(events.contains { $0.dependency.name == "\\.auditMainPair" && $0.outcome == .created })
    // "A resolution that throws is reported too, with the outcome failed": also a required key
    // nobody registered, resolved at the top level.
    #expect(events.contains { $0.dependency.name == "\\.auditMissing" && $0.outcome == .failed && $0.depth == 0 })
    // A factory that throws is reported as failed, and so is the missing key below it.
    container.register(\.auditSync) { r in AuditBox(wrapping: try r[\.auditMissing]) }
    container.observe(recorder)
    #expect(throws: ResolutionError.self) { try container[\.auditSync] }
    container.observe(nil)
    #expect(recorder.events.contains { $0.dependency.name == "\\.auditSync" && $0.outcome == .failed })
    #expect(
      recorder.events.contains {
        $0.dependency.name == "\\.auditMissing" && $0.outcome == .failed && $0.requestedBy?.name == "\\.auditSync"
          && $0.registeredAt == nil
      })

    // ResolutionTracer prints a main-actor key's tree.
    let lines = AuditLog()
    container.observe(ResolutionTracer { lines.append($0) })
    _ = try container[\.auditMainPair]
    container.observe(nil)
    #expect(lines.all.joined(separator: "\n").contains("\\.auditMainPair"))
  }

  // MARK: Lazy and Provider handles

  @MainActor @Test func providersAndLazyForEveryKindOnTheMainActor() async throws {
    let container = Container()
    container.register(\.auditMain, scope: .singleton) { AuditBox("main") }
    #expect(try container.provider(\.auditSync).get().tag == "sync default")
    #expect(try await container.provider(\.auditAsync).get().tag == "async default")
    #expect(try await container.provider(\.auditMain).get().tag == "main")  // `await`: see the note above
    #expect(try container.provider(\.auditArg).get(3).id == 3)
    #expect(try await container.provider(\.auditAsyncArg).get(4).id == 4)
    #expect(try container.provider(\.auditMainArg).get(5).id == 5)

    #expect(try container.lazy(\.auditSync).value.tag == "sync default")
    #expect(try await container.lazy(\.auditAsync).value.tag == "async default")
    let lazyMain = container.lazy(\.auditMain)
    #expect(try lazyMain.value === container[\.auditMain])
    #expect(try container.lazy(\.auditArg, argument: 6).value.id == 6)
    #expect(try await container.lazy(\.auditAsyncArg, argument: 7).value.id == 7)
    #expect(try container.lazy(\.auditMainArg, argument: 8).value.id == 8)

    // A Lazy keeps its value; a Provider resolves again.
    let lazy = container.lazy(\.auditSync)
    #expect(try lazy.value === lazy.value)
    let provider = container.provider(\.auditSync)
    #expect(try provider.get() !== provider.get())
  }

  @Test func mainActorHandlesAwaitedFromElsewhere() async throws {
    let container = Container()
    container.register(\.auditMain, scope: .singleton) { AuditBox(auditOnMainQueue() ? "main actor" : "elsewhere") }
    let provider = container.provider(\.auditMain)
    let viaProvider = try await provider.get()
    #expect(viaProvider.tag == "main actor")
    let viaArgumentProvider = try await container.provider(\.auditMainArg).get(2)
    #expect(viaArgumentProvider.id == 2)
    let lazy = container.lazy(\.auditMain)
    #expect(try await lazy.value === viaProvider)
  }

  @Test func handlesMadeInFactoriesBreakCyclesForEveryKind() async throws {
    let container = Container()
    container.register(\.auditSync, scope: .singleton) { r in
      let handle = r.lazy(\.auditSyncPair)
      _ = handle
      return AuditBox("with a handle")
    }
    container.register(\.auditAsync) { r async throws in
      let provider = r.provider(\.auditAsyncArg)
      return try await provider.get(11)
    }
    #expect(try container[\.auditSync].tag == "with a handle")
    #expect(try await container.resolve(\.auditAsync).id == 11)
  }

  // MARK: Property wrappers

  final class SyncInjectee {
    @Injected(\.auditSync) var sync: AuditBox
    @Injected(\.auditArg, argument: 7) var arg: AuditBox
    @Injected(\.auditMulti) var multi: [AuditBox]
    @LazyInjected(\.auditSync) var lazySync: AuditBox
    @LazyInjected(\.auditArg, argument: 8) var lazyArg: AuditBox
  }

  @MainActor final class MainInjectee {
    @Injected(\.auditMain) var main: AuditBox
    @Injected(\.auditMainArg, argument: 3) var mainArg: AuditBox
    @Injected(\.auditMainMulti) var mainMulti: [AuditBox]
    @LazyInjected(\.auditMain) var lazyMain: AuditBox
    @LazyInjected(\.auditMainArg, argument: 4) var lazyMainArg: AuditBox
  }

  @MainActor @Test func propertyWrappersForEveryKindTheyCanTake() async throws {
    let container = Container()
    container.register(\.auditSync, scope: .singleton) { AuditBox("registered") }
    container.register(\.auditMain, scope: .singleton) { AuditBox("registered main") }
    container.register(\.auditArg) { _, n in AuditBox("registered", id: n) }
    container.register(\.auditMainArg) { _, n in AuditBox("registered main", id: n) }
    container.contribute(to: \.auditMulti) { _ in AuditBox("element") }
    container.contribute(to: \.auditMainMulti) { _ in AuditBox("main element") }
    let (sync, main) = await withContainer(container) {
      #expect(Container.current === container)
      return (SyncInjectee(), MainInjectee())
    }
    #expect(Container.current !== container)
    #expect(sync.sync === (try container[\.auditSync]))
    #expect(sync.arg.tag == "registered" && sync.arg.id == 7)
    #expect(sync.multi.map(\.tag) == ["element"])
    #expect(sync.lazySync === (try container[\.auditSync]))  // read after withContainer ended
    #expect(sync.lazyArg.id == 8)
    #expect(main.main === (try container[\.auditMain]))
    #expect(main.mainArg.tag == "registered main" && main.mainArg.id == 3)
    #expect(main.mainMulti.map(\.tag) == ["main element"])
    #expect(main.lazyMain === (try container[\.auditMain]))
    #expect(main.lazyMainArg.id == 4)
  }

  final class ExplicitInjectee {
    @Injected(\.auditSync, container: auditExplicitContainer) var sync: AuditBox
  }

  @MainActor @Test func aRequiredKeysDeclaredScopeHoldsForEveryKind() async throws {
    let container = Container()
    container.register(\.auditRequiredMain) { AuditBox() }
    container.register(\.auditRequiredArg) { _, n in AuditBox(id: n) }
    container.register(\.auditRequiredAsync) { () async throws in AuditBox() }
    #expect(try container[\.auditRequiredMain] === container[\.auditRequiredMain])
    #expect(
      try container.resolve(\.auditRequiredArg, argument: 1) === container.resolve(\.auditRequiredArg, argument: 1))
    #expect(try await container.resolve(\.auditRequiredAsync) === container.resolve(\.auditRequiredAsync))
  }

  @Test func aGraphScopedAsyncKeyIsSharedByChildTasksOfOneResolution() async throws {
    let container = Container()
    container.register(\.auditAsync, scope: .graph) { () async throws in AuditBox() }
    let pair = try await container.resolve(\.auditGraphParent)
    #expect(pair.first === pair.second)
    #expect(try await container.resolve(\.auditGraphParent).first !== pair.first)
  }

  // MARK: Overrides

  @Test func anAsyncOverrideScopeDisposesItsSingletonsOfEveryKind() async throws {
    let container = Container()
    let log = AuditLog()
    try await withOverrides {
      $0.register(\.auditSync, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { AuditBox("s") }
      $0.register(\.auditAsync, scope: .singleton, dispose: { log.append("async \($0.tag)") }) {
        () async throws in AuditBox("a")
      }
      $0.register(\.auditMain, scope: .singleton, dispose: { log.append("main \($0.tag)") }) { AuditBox("m") }
      $0.register(\.auditArg, scope: .singleton, dispose: { log.append("arg \($0.id)") }) { _, n in AuditBox(id: n) }
    } operation: {
      _ = try container[\.auditSync]
      _ = try await container.resolve(\.auditAsync)
      _ = try await container.resolve(\.auditMain)
      _ = try container.resolve(\.auditArg, argument: 4)
    }
    #expect(Set(log.all) == ["sync s", "async a", "main m", "arg 4"])
    #expect(try container[\.auditSync].tag == "sync default")
  }

  @Test func aProviderResolvesInTheScopeItWasMadeIn() async throws {
    let container = Container()
    let (provider, lazy) = try await withOverrides {
      $0.register(\.auditMain) { AuditBox("override") }
      $0.register(\.auditArg) { _, n in AuditBox("override", id: n) }
    } operation: { () async throws in
      (container.provider(\.auditMain), container.lazy(\.auditArg, argument: 2))
    }
    #expect(try await provider.get().tag == "override")
    #expect(try lazy.value.tag == "override")
    #expect(try await container.provider(\.auditMain).get().tag == "main default")
  }

  @MainActor @Test func overridesForEveryKind() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.auditSync) { AuditBox("override") }
      $0.register(\.auditAsync) { () async throws in AuditBox("override") }
      $0.register(\.auditMain) { AuditBox("override") }
      $0.register(\.auditArg) { _, n in AuditBox("override", id: n) }
      $0.register(\.auditAsyncArg) { _, n async throws in AuditBox("override", id: n) }
      $0.register(\.auditMainArg) { _, n in AuditBox("override", id: n) }
      $0.contribute(to: \.auditMulti) { _ in AuditBox("override") }
    } operation: { () async throws in
      #expect(try container[\.auditSync].tag == "override")
      #expect(try await container.resolve(\.auditAsync).tag == "override")
      #expect(try container[\.auditMain].tag == "override")
      #expect(try container.resolve(\.auditArg, argument: 1).tag == "override")
      #expect(try await container.resolve(\.auditAsyncArg, argument: 1).tag == "override")
      #expect(try container.resolve(\.auditMainArg, argument: 1).tag == "override")
      #expect(try container[\.auditMulti].map(\.tag) == ["override"])
      #expect(try await container.provider(\.auditMain).get().tag == "override")
      #expect(try await container.lazy(\.auditAsync).value.tag == "override")
    }
    #expect(try container[\.auditSync].tag == "sync default")
    #expect(try await container.resolve(\.auditAsync).tag == "async default")
    #expect(try container[\.auditMain].tag == "main default")
    #expect(try container.resolve(\.auditArg, argument: 1).tag == "arg default")
    #expect(try await container.resolve(\.auditAsyncArg, argument: 1).tag == "async arg default")
    #expect(try container.resolve(\.auditMainArg, argument: 1).tag == "main arg default")
  }

  // MARK: Validation

  @Test func validationRunsEveryKind() async throws {
    let container = Container()
    let ran = AuditCounter()
    container.register(\.auditSync) { r in
      _ = try r[\.auditMissing]
      return AuditBox()
    }
    container.register(\.auditAsync) { r async throws in
      _ = try r[\.auditMissing]
      return AuditBox()
    }
    container.register(\.auditMain) { r in
      _ = ran.next()
      _ = try r[\.auditMissing]
      return AuditBox()
    }
    container.register(\.auditArg) { r, _ in
      _ = try r[\.auditMissing]
      return AuditBox()
    }
    container.register(\.auditAsyncArg) { r, _ async throws in
      _ = try r[\.auditMissing]
      return AuditBox()
    }
    container.register(\.auditMainArg) { r, _ in
      _ = try r[\.auditMissing]
      return AuditBox()
    }

    // Without samples, the argument keys are listed by name.
    let withoutSamples = await container.validate()
    #expect(ran.value >= 1, "the main-actor factory ran")
    let heads = Set(withoutSamples.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
    #expect(heads == ["\\.auditSync", "\\.auditAsync", "\\.auditMain"])
    #expect(
      Set(withoutSamples.needsSampleArgument.map(\.name)) == ["\\.auditArg", "\\.auditAsyncArg", "\\.auditMainArg"])

    // With samples, every one runs.
    let withSamples = await container.validate(arguments: [\.auditArg: 1, \.auditAsyncArg: 2, \.auditMainArg: 3])
    let allHeads = Set(withSamples.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
    #expect(
      allHeads == [
        "\\.auditSync", "\\.auditAsync", "\\.auditMain", "\\.auditArg", "\\.auditAsyncArg", "\\.auditMainArg",
      ])
    #expect(withSamples.needsSampleArgument.isEmpty)
    for problem in withSamples.problems(.requiredKeyNotProvided) {
      #expect(problem.dependency.name == "\\.auditMissing")
      #expect(problem.path.last?.name == "\\.auditMissing")
    }
  }

  @Test func validationPassesAValidGraphOfEveryKind() async throws {
    let container = Container()
    container.register(\.auditMissing) { AuditBox() }
    container.register(\.auditMain) { r in AuditBox(wrapping: try r[\.auditMissing]) }
    container.register(\.auditAsyncArg) { r, n async throws in AuditBox(id: n, wrapping: try r[\.auditMissing]) }
    container.contribute(to: \.auditMainMulti) { r in try r[\.auditMain] }
    let report = await container.validate(
      including: [\.auditMainPair, \.auditAsyncPair, \.auditMainMulti, \.auditAsyncMulti],
      arguments: [\.auditAsyncArg: 5])
    #expect(report.isValid, "\(report)")
    #expect(report.needsSampleArgument.isEmpty)
    await expectValidGraph(container, including: [\.auditMainPair], arguments: [\.auditAsyncArg: 5])
  }
}

let auditExplicitContainer: Container = {
  let container = Container()
  container.register(\.auditSync) { AuditBox("explicit") }
  return container
}()

@Suite struct AcceptanceAuditMainActorHopTests {
  /// Runs off the main actor (a nonisolated async function).
  nonisolated func resolveElsewhere(_ container: Container) async throws -> (AuditBox, AuditBox, [AuditBox]) {
    let box = try await container.resolve(\.auditMain)
    let argument = try await container.resolve(\.auditMainArg, argument: 12)
    let elements = try await container.resolve(\.auditMainMulti)
    return (box, argument, elements)
  }

  @Test func anAsyncResolveOfAMainActorKeyHopsToTheMainActor() async throws {
    let container = Container()
    container.register(\.auditMain) { AuditBox(auditOnMainQueue() ? "main actor" : "elsewhere") }
    container.register(\.auditMainArg) { _, n in AuditBox(auditOnMainQueue() ? "main actor" : "elsewhere", id: n) }
    container.contribute(to: \.auditMainMulti) { _ in AuditBox(auditOnMainQueue() ? "main actor" : "elsewhere") }
    let (box, argument, elements) = try await Task.detached { try await resolveElsewhere(container) }.value
    #expect(box.tag == "main actor")
    #expect(argument.tag == "main actor" && argument.id == 12)
    #expect(elements.map(\.tag) == ["main actor"])
  }

  @Test func anAsyncFactoryResolvesAMainActorKeyWithAwait() async throws {
    let container = Container()
    container.register(\.auditMain) { AuditBox(auditOnMainQueue() ? "main actor" : "elsewhere") }
    container.register(\.auditAsync) { r async throws in AuditBox("async", wrapping: try await r.resolve(\.auditMain)) }
    #expect(try await container.resolve(\.auditAsync).wrapped?.tag == "main actor")
  }
}

extension Dependencies {
  var auditDisposableSync: Key<AuditDisposableBox> { .required() }
  var auditDisposableAsync: AsyncKey<AuditDisposableBox> { .required() }
  var auditDisposableMain: MainActorKey<AuditDisposableBox> { .required() }
  var auditDisposableArg: ArgumentKey<Int, AuditDisposableBox> { .required() }
}

// MARK: - Point 3: validate() sees every key

@Suite struct AcceptanceAuditValidationTests {
  @Test func aRequiredKeyBehindAMainActorViewModelIsReportedFromTheKey() async throws {
    let container = Container()
    let report = await container.validate(including: [\.auditViewModel])
    #expect(!report.isValid)
    let problems = report.problems(.requiredKeyNotProvided)
    #expect(problems.count == 1)
    let problem = try #require(problems.first)
    #expect(problem.dependency.name == "\\.auditStorage")
    #expect(problem.dependency.location == Dependencies.declarationSite(of: \.auditStorage))
    #expect(problem.dependency.location?.fileID.hasSuffix("AcceptanceAuditTests.swift") == true)
    #expect(problem.path.map(\.name) == ["\\.auditViewModel", "\\.auditStorage"])
    #expect(problem.description.contains("\\.auditViewModel → \\.auditStorage"))
    #expect(
      problem.description.contains(
        "AcceptanceAuditTests.swift:\(Dependencies.declarationSite(of: \.auditStorage).line)"))
  }

  @MainActor @Test func aRequiredKeyBehindARegisteredViewModelIsReportedFromTheMainActor() async throws {
    let container = Container()
    container.register(\.auditViewModel) { r in AuditViewModel(storage: try r[\.auditStorage]) }
    let report = await container.validate()
    let problem = try #require(report.problems(.requiredKeyNotProvided).first)
    #expect(problem.dependency.name == "\\.auditStorage")
    #expect(problem.path.map(\.name) == ["\\.auditViewModel", "\\.auditStorage"])
    #expect(problem.registeredAt == nil || problem.registeredAt?.fileID.hasSuffix("AcceptanceAuditTests.swift") == true)

    container.register(\.auditStorage) { AuditSQLStorage() }
    #expect(await container.validate().isValid)
  }

  @Test func anArgumentKeyWithoutASampleIsListedByNameAndWithOneIsRun() async throws {
    let container = Container()
    container.register(\.auditArg) { r, n in AuditBox(id: n, wrapping: try r[\.auditMissing]) }
    let unchecked = await container.validate()
    #expect(unchecked.needsSampleArgument.map(\.name) == ["\\.auditArg"])
    #expect(unchecked.description.contains("\\.auditArg"))

    let checked = await container.validate(arguments: [\.auditArg: 42])
    #expect(checked.needsSampleArgument.isEmpty)
    #expect(checked.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.auditMissing"])

    // A sample of the wrong type is reported, not skipped.
    let wrong = await container.validate(arguments: [\.auditArg: "forty-two"])
    #expect(wrong.problems(.factoryMismatch).map(\.dependency.name) == ["\\.auditArg"])
  }

  @Test func anArgumentKeyNamedInIncludingWithoutASampleIsListed() async throws {
    let container = Container()
    let report = await container.validate(including: [\.auditMainArg, \.auditAsyncArg])
    #expect(Set(report.needsSampleArgument.map(\.name)) == ["\\.auditMainArg", "\\.auditAsyncArg"])
  }

  @Test func validationOfAsyncKeysAwaitsThem() async throws {
    let container = Container()
    container.register(\.auditAsync) { r async throws in
      await Task.yield()
      return AuditBox(wrapping: try r[\.auditMissing])
    }
    let report = await container.validate()
    #expect(
      report.problems(.requiredKeyNotProvided).map(\.path).map { $0.map(\.name) } == [
        ["\\.auditAsync", "\\.auditMissing"]
      ])
  }

  @Test func anArgumentKeyBehindAProviderWithoutASampleIsListedByName() async throws {
    let container = Container()
    container.register(\.auditArg) { r, n in AuditBox(id: n, wrapping: try r[\.auditMissing]) }
    let report = await container.validate(including: [\.auditArgHandleHolder])
    #expect(report.needsSampleArgument.map(\.name).contains("\\.auditArg"), "\(report)")
    let sampled = await container.validate(including: [\.auditArgHandleHolder], arguments: [\.auditArg: 1])
    #expect(sampled.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.auditMissing"], "\(sampled)")
  }

  @Test func decoratorsAndMainActorContributionsAreValidated() async throws {
    let container = Container()
    container.decorate(\.auditMain) { r, box in AuditBox(wrapping: try r[\.auditMissing]) }
    container.decorate(\.auditAsync) { r, box in
      await Task.yield()
      return AuditBox(wrapping: try r[\.auditMissing])
    }
    container.contribute(to: \.auditMainMulti) { r in
      _ = try r[\.auditStorage]
      return AuditBox()
    }
    let report = await container.validate()
    let paths = Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
    #expect(paths.contains(["\\.auditMain", "\\.auditMissing"]), "\(report)")
    #expect(paths.contains(["\\.auditAsync", "\\.auditMissing"]), "\(report)")
    let included = await Container().validate(including: [\.auditMainMulti])
    #expect(included.isValid, "no contribution, nothing to report: \(included)")
    let withContribution = await container.validate(including: [\.auditMainMulti])
    #expect(
      withContribution.problems(.requiredKeyNotProvided).contains { $0.dependency.name == "\\.auditStorage" },
      "\(withContribution)")
  }

  @Test func validationKeepsNoInstance() async throws {
    let container = Container()
    let counter = AuditCounter()
    container.register(\.auditMain, scope: .singleton) { AuditBox(id: counter.next()) }
    _ = await container.validate()
    let ranInValidation = counter.value
    #expect(ranInValidation == 1)
    _ = try await container.resolve(\.auditMain)
    #expect(counter.value == ranInValidation + 1, "the dry run's instance is not the app's")
  }
}

// MARK: - Point 4: state belongs to its container

final class AuditSharedHolder {
  @Injected(\.auditShared) var shared: AuditBox
}

@Suite struct AcceptanceAuditStateTests {
  @Test func aReplacedRegistrationIsFreed() async throws {
    let container = Container()
    weak var captured: AuditBox?
    weak var made: AuditBox?
    do {
      let capture = AuditBox("captured")
      captured = capture
      container.register(\.auditSync, scope: .singleton) { AuditBox("old", wrapping: capture) }
      made = try container[\.auditSync]
    }
    #expect(captured != nil && made != nil)
    container.register(\.auditSync, scope: .singleton) { AuditBox("new") }
    #expect(try container[\.auditSync].tag == "new")
    _ = try container[\.auditSync]
    #expect(await freedSoon { captured == nil }, "what the replaced factory captured is freed")
    #expect(await freedSoon { made == nil }, "the replaced registration's singleton is freed")
  }

  @Test func replacedRegistrationsOfEveryKindAreFreed() async throws {
    let container = Container()
    weak var asyncCapture: AuditBox?
    weak var argCapture: AuditBox?
    weak var mainCapture: AuditBox?
    do {
      let a = AuditBox()
      let b = AuditBox()
      let c = AuditBox()
      asyncCapture = a
      argCapture = b
      mainCapture = c
      container.register(\.auditAsync, scope: .singleton) { () async throws in AuditBox(wrapping: a) }
      container.register(\.auditArg, scope: .singleton) { _, n in AuditBox(id: n, wrapping: b) }
      container.register(\.auditMain, scope: .singleton) { AuditBox(wrapping: c) }
      _ = try await container.resolve(\.auditAsync)
      _ = try container.resolve(\.auditArg, argument: 1)
      _ = try await container.resolve(\.auditMain)
    }
    container.register(\.auditAsync) { () async throws in AuditBox() }
    container.register(\.auditArg) { _, n in AuditBox(id: n) }
    container.register(\.auditMain) { AuditBox() }
    _ = try await container.resolve(\.auditAsync)
    _ = try container.resolve(\.auditArg, argument: 1)
    _ = try await container.resolve(\.auditMain)
    #expect(await freedSoon { asyncCapture == nil })
    #expect(await freedSoon { argCapture == nil })
    #expect(await freedSoon { mainCapture == nil })
  }

  /// Runs `read` in two override scopes open at once, tagged "left" and "right", each of which
  /// registers its own `\.auditShared` and `\.auditMain` singletons, tagged too; `read` meets the
  /// other scope at `barrier` once it has read something. Returns what each scope read, by tag.
  private func inTwoParallelScopes(
    _ read: @escaping @Sendable (_ tag: String, _ barrier: AuditBarrier) async throws -> [AuditBox]
  ) async throws -> [String: [AuditBox]] {
    let barrier = AuditBarrier(parties: 2)
    return try await withThrowingTaskGroup(of: (String, [AuditBox]).self) { group in
      for tag in ["left", "right"] {
        group.addTask {
          try await withOverrides {
            $0.register(\.auditShared, scope: .singleton) { AuditBox(tag) }
            $0.register(\.auditMain, scope: .singleton) { AuditBox(tag) }
          } operation: {
            (tag, try await read(tag, barrier))
          }
        }
      }
      return try await group.reduce(into: [String: [AuditBox]]()) { $0[$1.0] = $1.1 }
    }
  }

  @Test func parallelOverrideScopesEachKeepTheirOwnSingleton() async throws {
    let container = Container()
    let results = try await inTwoParallelScopes { _, barrier in
      let first = try container[\.auditShared]
      await barrier.arriveAndWait()  // both scopes are open now
      let second = try container[\.auditShared]
      let explicit = await withContainer(container) { AuditSharedHolder().shared }
      let viaAsync = await withContainer(container) { AuditSharedHolder().shared }
      let shared = try Container.shared[\.auditShared]
      let viaShared = AuditSharedHolder().shared  // Container.current is Container.shared here
      return [first, second, explicit, viaAsync, shared, viaShared]
    }
    let left = try #require(results["left"])
    let right = try #require(results["right"])
    for (tag, boxes) in [("left", left), ("right", right)] {
      #expect(boxes.allSatisfy { $0.tag == tag }, "\(tag) sees only its own singleton")
      #expect(boxes[0] === boxes[1] && boxes[0] === boxes[2] && boxes[0] === boxes[3], "\(tag): one per scope")
      #expect(boxes[4] === boxes[5], "\(tag): one per scope on Container.shared")
    }
    #expect(left[0] !== right[0])
    #expect(try container[\.auditShared].tag == "shared default")
  }

  @MainActor final class MainHolder {
    @Injected(\.auditMain) var main: AuditBox
  }

  @Test func parallelOverrideScopesEachKeepTheirOwnMainActorSingleton() async throws {
    let container = Container()
    let results = try await inTwoParallelScopes { _, barrier in
      let first = try await container.resolve(\.auditMain)
      await barrier.arriveAndWait()
      let second = try await container.resolve(\.auditMain)
      let injected = await withContainer(container) { await MainActor.run { MainHolder().main } }
      return [first, second, injected]
    }
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag)")
    }
    #expect(results.count == 2)
  }

  @Test(.overrides { $0.register(\.auditShared, scope: .singleton) { AuditBox("trait A") } })
  func overridesTraitA() async throws {
    let container = Container()
    let resolved = try container[\.auditShared]
    #expect(resolved.tag == "trait A")
    #expect(try container[\.auditShared] === resolved)
    let injected = await withContainer(container) { AuditSharedHolder().shared }
    #expect(injected === resolved)
    #expect(AuditSharedHolder().shared.tag == "trait A")
  }

  @Test(.overrides { $0.register(\.auditShared, scope: .singleton) { AuditBox("trait B") } })
  func overridesTraitB() async throws {
    let container = Container()
    let resolved = try container[\.auditShared]
    #expect(resolved.tag == "trait B")
    let injected = await withContainer(container) { AuditSharedHolder().shared }
    #expect(injected === resolved)
    #expect(AuditSharedHolder().shared.tag == "trait B")
  }

  @Test(.container { $0.register(\.auditShared, scope: .singleton) { AuditBox("container A") } })
  func containerTraitA() async throws {
    #expect(Container.current !== Container.shared)
    let injected = AuditSharedHolder().shared
    #expect(injected.tag == "container A")
    #expect(try Container.current[\.auditShared] === injected)
  }

  @Test(.container { $0.register(\.auditShared, scope: .singleton) { AuditBox("container B") } })
  func containerTraitB() async throws {
    #expect(Container.current !== Container.shared)
    let injected = AuditSharedHolder().shared
    #expect(injected.tag == "container B")
    #expect(try Container.current[\.auditShared] === injected)
  }

  @Test func withContainerSetsTheTasksCurrentContainer() async throws {
    let container = Container()
    container.register(\.auditShared) { AuditBox("mine") }
    #expect(Container.current === Container.shared)
    let injected = await withContainer(container) { AuditSharedHolder().shared }
    #expect(injected.tag == "mine")
    let inChild = await withContainer(container) {
      await Task { Container.current === container }.value
    }
    #expect(inChild, "a Task inherits the task's container")
    #expect(Container.current === Container.shared)
    #expect(ExplicitInjecteeHolder.make().tag == "explicit")
  }

  @Test func registeringInAnotherContainerLeavesThisOnesInstancesAlone() async throws {
    let mine = Container()
    mine.register(\.auditShared, scope: .singleton) { AuditBox("mine") }
    let before = try mine[\.auditShared]
    let other = Container()
    for index in 0..<100 {
      other.register(type: Int.self, name: "audit other \(index)") { index }
    }
    other.register(\.auditShared, scope: .singleton) { AuditBox("other") }
    _ = try other[\.auditShared]
    #expect(try mine[\.auditShared] === before)
  }

  @Test func overridesOfOneContainerDoNotReachAnother() async throws {
    let first = Container()
    let second = Container()
    first.register(\.auditShared, scope: .singleton) { AuditBox("first") }
    #expect(try second[\.auditShared].tag == "shared default")
    #expect(try first[\.auditShared] === first.makeChild()[\.auditShared])
  }
}

enum ExplicitInjecteeHolder {
  static func make() -> AuditBox { AcceptanceAuditKindTests.ExplicitInjectee().sync }
}

// MARK: - Point 6: deep graphs never crash

/// Runs `body` on a new thread with the given stack size, outside any task.
final class AuditThreadJob: @unchecked Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

func auditOnThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    let job = AuditThreadJob { continuation.resume(returning: body()) }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setstacksize(&attributes, stackSize)
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let started = pthread_create(
      &thread, &attributes,
      { context in
        let job = Unmanaged<AuditThreadJob>.fromOpaque(context!).takeRetainedValue()
        job.body()
        return nil
      }, Unmanaged.passRetained(job).toOpaque())
    precondition(started == 0)
    pthread_attr_destroy(&attributes)
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    pthread_detach(thread!)
    #endif
  }
}

@Suite struct AcceptanceAuditDeepChainTests {
  static func expectTooDeepOrSucceeded(
    _ outcome: Result<Int, any Error>, first: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    switch outcome {
    case .success(let value):
      print("audit: deep chain from \(first) succeeded")
      #expect(value == 9_999, sourceLocation: sourceLocation)
    case .failure(let error):
      let resolution = error as? ResolutionError
      print("audit: deep chain from \(first) threw after \(resolution?.path.count ?? -1) steps")
      #expect(resolution?.kind == .resolutionTooDeep, "\(error)", sourceLocation: sourceLocation)
      #expect(resolution?.path.first?.name == first, sourceLocation: sourceLocation)
      #expect((resolution?.path.count ?? 0) > 1, sourceLocation: sourceLocation)
      #expect(resolution?.description.contains("path: \(first)") == true, sourceLocation: sourceLocation)
    }
  }

  @Test func aTenThousandDeepChainOfKeysOnA512KiBThread() async {
    let container = Container()
    let outcome = await auditOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container[\.[auditStep: 0]] }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "\\.subscript(auditStep:)")
  }

  @Test func aTenThousandDeepChainOfTypesOnA512KiBThread() async {
    let container = Container()
    for step in 0..<10_000 {
      container.register(type: Int.self, name: "audit step \(step)") { r in
        step == 9_999 ? 0 : try r.resolve(type: Int.self, name: "audit step \(step + 1)") + 1
      }
    }
    let outcome = await auditOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(type: Int.self, name: "audit step 0") }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "Int (name: \"audit step 0\")")
  }

  @Test func aTenThousandDeepArgumentCountdownOnA512KiBThread() async {
    let container = Container()
    let outcome = await auditOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(\.auditCountdown, argument: 9_999) }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "\\.auditCountdown")
  }

  @Test func aTenThousandDeepChainOfSingletonsOnA512KiBThread() async {
    let container = Container()
    for step in 0..<10_000 {
      container.register(type: Int.self, name: "audit singleton \(step)", scope: .singleton) { r in
        step == 9_999 ? 0 : try r.resolve(type: Int.self, name: "audit singleton \(step + 1)") + 1
      }
    }
    let outcome = await auditOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(type: Int.self, name: "audit singleton 0") }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "Int (name: \"audit singleton 0\")")
  }
}

// MARK: - Point 8: the seeds' provider shape

protocol DependencyProvider {
  func resolve<T>() throws -> T
}

extension Container: DependencyProvider {}

@Suite struct AcceptanceAuditProviderShapeTests {
  struct Repository { let storage: any AuditStorage }

  func makeRepository(_ provider: any DependencyProvider) throws -> Repository {
    Repository(storage: try provider.resolve())
  }

  func makeRepositoryGenerically<P: DependencyProvider>(_ provider: P) throws -> Repository {
    Repository(storage: try provider.resolve())
  }

  @Test func aContainerBacksAHandWrittenDependencyProvider() throws {
    let container = Container()
    container.register(type: (any AuditStorage).self, scope: .singleton) { AuditSQLStorage() }
    container.register(type: AuditBox.self) { AuditBox("by type") }
    let provider: any DependencyProvider = container
    #expect(try makeRepository(provider).storage is AuditSQLStorage)
    #expect(try makeRepositoryGenerically(container).storage is AuditSQLStorage)
    let box: AuditBox = try provider.resolve()
    #expect(box.tag == "by type")
    let error = #expect(throws: ResolutionError.self) { let _: Int = try provider.resolve() }
    #expect(error?.kind == .notRegistered)
  }

  @Test func aFactoryCanUseTheContainerAsItsProvider() throws {
    let container = Container()
    container.register(type: (any AuditStorage).self, scope: .singleton) { AuditSQLStorage() }
    container.register(type: Repository.self) {
      let provider: any DependencyProvider = container
      return Repository(storage: try provider.resolve())
    }
    let provider: any DependencyProvider = container
    let repository: Repository = try provider.resolve()
    #expect(repository.storage is AuditSQLStorage)
  }
}
