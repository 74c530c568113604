// The library as its documentation describes it, written from README.md and the DocC articles
// only: every key kind × every feature, the main-actor hop, validate() seeing every key, state
// per container and per override scope, deep chains, and the seeds' provider shape.

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

final class SpecBox: Sendable {
  let tag: String
  let id: Int
  let wrapped: SpecBox?
  init(_ tag: String = "", id: Int = 0, wrapping wrapped: SpecBox? = nil) {
    self.tag = tag
    self.id = id
    self.wrapped = wrapped
  }
}

final class SpecDisposableBox: Disposable {
  let tag: String
  let log: SpecLog
  init(_ tag: String, log: SpecLog) {
    self.tag = tag
    self.log = log
  }
  func dispose() async throws { log.append("disposed \(tag)") }
}

struct SpecPair: Sendable {
  let first: SpecBox
  let second: SpecBox
}

final class SpecCounter: Sendable {
  private let count = Mutex(0)
  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
  var value: Int { count.withLock { $0 } }
}

final class SpecLog: Sendable {
  private let entries = Mutex<[String]>([])
  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}

final class SpecRecorder: ResolutionObserver {
  private let recorded = Mutex<[ResolutionEvent]>([])
  func didResolve(_ event: ResolutionEvent) { recorded.withLock { $0.append(event) } }
  var events: [ResolutionEvent] { recorded.withLock { $0 } }
}

protocol SpecStorage: Sendable {}
struct SpecSQLStorage: SpecStorage {}

@MainActor final class SpecViewModel: Sendable {
  let storage: any SpecStorage
  init(storage: any SpecStorage) { self.storage = storage }
}

extension Dependencies {
  var specSync: Key<SpecBox> { Key { SpecBox("sync default") } }
  var specAsync: AsyncKey<SpecBox> { AsyncKey { SpecBox("async default") } }
  var specMain: MainActorKey<SpecBox> { MainActorKey { SpecBox("main default") } }
  var specArg: ArgumentKey<Int, SpecBox> { ArgumentKey { _, n in SpecBox("arg default", id: n) } }
  var specAsyncArg: DependencyKey<AsyncKind, Int, SpecBox> {
    DependencyKey { _, n in SpecBox("async arg default", id: n) }
  }
  var specMainArg: DependencyKey<MainActorKind, Int, SpecBox> {
    DependencyKey { _, n in SpecBox("main arg default", id: n) }
  }

  // Each resolves its kind's key twice in one top-level resolution (for the graph scope).
  var specSyncPair: Key<SpecPair> { Key { r in SpecPair(first: try r[\.specSync], second: try r[\.specSync]) } }
  var specAsyncPair: AsyncKey<SpecPair> {
    AsyncKey { r in
      SpecPair(first: try await r.resolve(\.specAsync), second: try await r.resolve(\.specAsync))
    }
  }
  var specMainPair: MainActorKey<SpecPair> {
    MainActorKey { r in SpecPair(first: try r[\.specMain], second: try r[\.specMain]) }
  }
  var specArgPair: Key<SpecPair> {
    Key { r in
      SpecPair(first: try r.resolve(\.specArg, argument: 1), second: try r.resolve(\.specArg, argument: 1))
    }
  }
  var specAsyncArgPair: AsyncKey<SpecPair> {
    AsyncKey { r in
      SpecPair(
        first: try await r.resolve(\.specAsyncArg, argument: 1),
        second: try await r.resolve(\.specAsyncArg, argument: 1))
    }
  }
  var specMainArgPair: MainActorKey<SpecPair> {
    MainActorKey { r in
      SpecPair(first: try r.resolve(\.specMainArg, argument: 1), second: try r.resolve(\.specMainArg, argument: 1))
    }
  }

  var specMulti: Multibinding<SpecBox> { Multibinding() }
  var specAsyncMulti: AsyncMultibinding<SpecBox> { AsyncMultibinding() }
  var specMainMulti: MainActorMultibinding<SpecBox> { MainActorMultibinding() }

  var specMissing: Key<SpecBox> { .required() }
  var specShared: Key<SpecBox> { Key { SpecBox("shared default") } }

  // Validation: a required storage key reached only through a main-actor view model.
  var specStorage: Key<any SpecStorage> { .required() }
  var specViewModel: MainActorKey<SpecViewModel> {
    MainActorKey { r in SpecViewModel(storage: try r[\.specStorage]) }
  }

  var specRequiredMain: MainActorKey<SpecBox> { .required().scope(.singleton) }
  var specRequiredArg: ArgumentKey<Int, SpecBox> { .required().scope(.singleton) }
  var specRequiredAsync: AsyncKey<SpecBox> { .required().scope(.singleton) }
  var specGraphParent: AsyncKey<SpecPair> {
    AsyncKey { r in
      async let first = r.resolve(\.specAsync)
      async let second = r.resolve(\.specAsync)
      return SpecPair(first: try await first, second: try await second)
    }
  }

  var specCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n == 0 ? 0 : try r.resolve(\.specCountdown, argument: n - 1) + 1 }
  }
  var specArgHandleHolder: Key<Provider<ArgumentKey<Int, SpecBox>>> { Key { r in r.provider(\.specArg) } }

  // Deep graphs: a chain of keys, one per step.
  subscript(specStep step: Int) -> Key<Int> {
    Key { r in step >= 9_999 ? 0 : try r[\.[specStep: step + 1]] + 1 }
  }
}

/// The main actor runs on the main dispatch queue (on Linux not always on the main thread, so
/// `Thread.isMainThread` cannot tell).
let specMainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

func specOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: specMainQueueKey) == true }

let specScopes: [Scope] = [.unique, .singleton, .cached, .weak, .graph]

/// Checks what a scope promises for one kind of key, in a new container where `register` registers
/// it with `scope` (its factory numbering what it makes with the counter), given two ways to
/// resolve it: on its own, and twice within one top-level resolution. Returns the container.
@discardableResult
func specExpectScope(
  _ scope: Scope, isolation: isolated (any Actor)? = #isolation,
  register: (Container, SpecCounter) -> Void,
  resolve: (Container) async throws -> SpecBox, pair: (Container) async throws -> SpecPair,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Container {
  let container = Container()
  let counter = SpecCounter()
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

// MARK: - Every feature for every kind

@Suite struct EveryKindFeatureTests {
  // MARK: Scopes

  @Test(arguments: specScopes) func syncKeyScope(_ scope: Scope) async throws {
    try await specExpectScope(
      scope, register: { c, n in c.register(\.specSync, scope: scope) { SpecBox("sync", id: n.next()) } },
      resolve: { try $0[\.specSync] }, pair: { try $0[\.specSyncPair] })
  }

  @Test(arguments: specScopes) func asyncKeyScope(_ scope: Scope) async throws {
    try await specExpectScope(
      scope,
      register: { c, n in c.register(\.specAsync, scope: scope) { () async throws in SpecBox("async", id: n.next()) }
      },
      resolve: { try await $0.resolve(\.specAsync) }, pair: { try await $0.resolve(\.specAsyncPair) })
  }

  @MainActor @Test(arguments: specScopes) func mainActorKeyScope(_ scope: Scope) async throws {
    try await specExpectScope(
      scope, register: { c, n in c.register(\.specMain, scope: scope) { SpecBox("main", id: n.next()) } },
      resolve: { try $0[\.specMain] }, pair: { try $0[\.specMainPair] })
  }

  // An argument key's instances are numbered argument × 1,000 + count: one instance per argument.

  @Test(arguments: specScopes) func argumentKeyScope(_ scope: Scope) async throws {
    let container = try await specExpectScope(
      scope,
      register: { c, n in c.register(\.specArg, scope: scope) { _, a in SpecBox("arg", id: a * 1_000 + n.next()) } },
      resolve: { try $0.resolve(\.specArg, argument: 1) }, pair: { try $0[\.specArgPair] })
    let one = try container.resolve(\.specArg, argument: 1)
    let two = try container.resolve(\.specArg, argument: 2)
    #expect(one !== two)
    #expect(two.id / 1_000 == 2)
  }

  @Test(arguments: specScopes) func asyncArgumentKeyScope(_ scope: Scope) async throws {
    let container = try await specExpectScope(
      scope,
      register: { c, n in
        c.register(\.specAsyncArg, scope: scope) { _, a async throws in SpecBox("async arg", id: a * 1_000 + n.next())
        }
      },
      resolve: { try await $0.resolve(\.specAsyncArg, argument: 1) },
      pair: { try await $0.resolve(\.specAsyncArgPair) })
    #expect(try await container.resolve(\.specAsyncArg, argument: 2).id / 1_000 == 2)
  }

  @MainActor @Test(arguments: specScopes) func mainActorArgumentKeyScope(_ scope: Scope) async throws {
    let container = try await specExpectScope(
      scope,
      register: { c, n in
        c.register(\.specMainArg, scope: scope) { _, a in SpecBox("main arg", id: a * 1_000 + n.next()) }
      },
      resolve: { try $0.resolve(\.specMainArg, argument: 1) }, pair: { try $0[\.specMainArgPair] })
    #expect(try container.resolve(\.specMainArg, argument: 2).id / 1_000 == 2)
  }

  // MARK: Child containers

  @MainActor @Test func childContainersForEveryKind() async throws {
    let parent = Container()
    parent.register(\.specSync, scope: .singleton) { SpecBox("parent") }
    parent.register(\.specAsync, scope: .singleton) { () async throws in SpecBox("parent") }
    parent.register(\.specMain, scope: .singleton) { SpecBox("parent") }
    parent.register(\.specArg, scope: .singleton) { _, n in SpecBox("parent", id: n) }
    parent.register(\.specAsyncArg, scope: .singleton) { _, n async throws in SpecBox("parent", id: n) }
    parent.register(\.specMainArg, scope: .singleton) { _, n in SpecBox("parent", id: n) }
    let child = parent.makeChild()

    // A parent's shared instance is shared with the child.
    #expect(try child[\.specSync] === parent[\.specSync])
    #expect(try await child.resolve(\.specAsync) === parent.resolve(\.specAsync))
    #expect(try child[\.specMain] === parent[\.specMain])
    #expect(try child.resolve(\.specArg, argument: 1) === parent.resolve(\.specArg, argument: 1))
    #expect(try await child.resolve(\.specAsyncArg, argument: 1) === parent.resolve(\.specAsyncArg, argument: 1))
    #expect(try child.resolve(\.specMainArg, argument: 1) === parent.resolve(\.specMainArg, argument: 1))

    // What the child registers stays in the child.
    let session = parent.makeChild()
    session.register(\.specSync) { SpecBox("child") }
    session.register(\.specAsync) { () async throws in SpecBox("child") }
    session.register(\.specMain) { SpecBox("child") }
    session.register(\.specArg) { _, n in SpecBox("child", id: n) }
    session.register(\.specAsyncArg) { _, n async throws in SpecBox("child", id: n) }
    session.register(\.specMainArg) { _, n in SpecBox("child", id: n) }
    #expect(try session[\.specSync].tag == "child")
    #expect(try await session.resolve(\.specAsync).tag == "child")
    #expect(try session[\.specMain].tag == "child")
    #expect(try session.resolve(\.specArg, argument: 1).tag == "child")
    #expect(try await session.resolve(\.specAsyncArg, argument: 1).tag == "child")
    #expect(try session.resolve(\.specMainArg, argument: 1).tag == "child")
    #expect(try parent[\.specSync].tag == "parent")
    #expect(try await parent.resolve(\.specAsync).tag == "parent")
    #expect(try parent[\.specMain].tag == "parent")
    #expect(try parent.resolve(\.specArg, argument: 1).tag == "parent")
    #expect(try await parent.resolve(\.specAsyncArg, argument: 1).tag == "parent")
    #expect(try parent.resolve(\.specMainArg, argument: 1).tag == "parent")
  }

  @MainActor @Test(arguments: specScopes) func childContainersShareWhatTheParentKeeps(_ scope: Scope) async throws {
    let parent = Container()
    parent.register(\.specSync, scope: scope) { SpecBox() }
    parent.register(\.specAsync, scope: scope) { () async throws in SpecBox() }
    parent.register(\.specMain, scope: scope) { SpecBox() }
    parent.register(\.specArg, scope: scope) { _, n in SpecBox(id: n) }
    parent.register(\.specAsyncArg, scope: scope) { _, n async throws in SpecBox(id: n) }
    parent.register(\.specMainArg, scope: scope) { _, n in SpecBox(id: n) }
    let child = parent.makeChild()
    let shared = scope == .singleton || scope == .cached || scope == .weak
    let pairs: [(String, SpecBox, SpecBox)] = [
      ("sync", try parent[\.specSync], try child[\.specSync]),
      ("async", try await parent.resolve(\.specAsync), try await child.resolve(\.specAsync)),
      ("main", try parent[\.specMain], try child[\.specMain]),
      ("arg", try parent.resolve(\.specArg, argument: 1), try child.resolve(\.specArg, argument: 1)),
      (
        "async arg", try await parent.resolve(\.specAsyncArg, argument: 1),
        try await child.resolve(\.specAsyncArg, argument: 1)
      ),
      ("main arg", try parent.resolve(\.specMainArg, argument: 1), try child.resolve(\.specMainArg, argument: 1)),
    ]
    for (kind, inParent, inChild) in pairs {
      #expect((inParent === inChild) == shared, "\(kind), \(scope)")
    }
    if scope == .cached {
      child.resetCached()
      #expect(try child[\.specMain] === pairs[2].1, "the child's reset does not clear the parent's instance")
    }
  }

  @MainActor @Test func aChildThatDecoratesAParentsMainActorSingletonKeepsItsOwn() async throws {
    let parent = Container()
    parent.register(\.specMain, scope: .singleton) { SpecBox("made") }
    let child = parent.makeChild()
    child.decorate(\.specMain) { _, box in SpecBox("child decorated", wrapping: box) }
    let inChild = try child[\.specMain]
    let inParent = try parent[\.specMain]
    #expect(inChild.tag == "child decorated" && inChild.wrapped?.tag == "made")
    #expect(inParent.tag == "made")
    #expect(try child[\.specMain] === inChild)
  }

  // MARK: dispose:

  @MainActor @Test func disposeClosureForEveryKind() async throws {
    let container = Container()
    let log = SpecLog()
    container.register(\.specSync, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { SpecBox("a") }
    container.register(\.specAsync, scope: .singleton, dispose: { log.append("async \($0.tag)") }) {
      () async throws in SpecBox("b")
    }
    container.register(\.specMain, scope: .singleton, dispose: { log.append("main \($0.tag)") }) { SpecBox("c") }
    container.register(\.specArg, scope: .singleton, dispose: { log.append("arg \($0.id)") }) { _, n in
      SpecBox(id: n)
    }
    container.register(\.specAsyncArg, scope: .cached, dispose: { log.append("async arg \($0.id)") }) {
      _, n async throws in SpecBox(id: n)
    }
    container.register(\.specMainArg, scope: .singleton, dispose: { log.append("main arg \($0.id)") }) { _, n in
      SpecBox(id: n)
    }
    _ = try container[\.specSync]
    _ = try await container.resolve(\.specAsync)
    _ = try container[\.specMain]
    _ = try container.resolve(\.specArg, argument: 1)
    _ = try container.resolve(\.specArg, argument: 2)
    _ = try await container.resolve(\.specAsyncArg, argument: 3)
    _ = try container.resolve(\.specMainArg, argument: 4)
    try await container.dispose()
    // Reverse order of creation, each once.
    #expect(log.all == ["main arg 4", "async arg 3", "arg 2", "arg 1", "main c", "async b", "sync a"])
  }

  @MainActor @Test func disposableValuesForEveryKind() async throws {
    let container = Container()
    let log = SpecLog()
    container.register(\.specDisposableSync, scope: .singleton) { SpecDisposableBox("sync", log: log) }
    container.register(\.specDisposableAsync, scope: .singleton) { () async throws in
      SpecDisposableBox("async", log: log)
    }
    container.register(\.specDisposableMain, scope: .singleton) { SpecDisposableBox("main", log: log) }
    container.register(\.specDisposableArg, scope: .singleton) { _, n in SpecDisposableBox("arg \(n)", log: log) }
    _ = try container[\.specDisposableSync]
    _ = try await container.resolve(\.specDisposableAsync)
    _ = try container[\.specDisposableMain]
    _ = try container.resolve(\.specDisposableArg, argument: 5)
    try await container.dispose()
    #expect(log.all == ["disposed arg 5", "disposed main", "disposed async", "disposed sync"])
    let error = #expect(throws: ResolutionError.self) { try container[\.specSync] }
    #expect(error?.kind == .containerDisposed)
  }

  // MARK: Decorators

  @MainActor @Test func decoratorsForEveryKind() async throws {
    let container = Container()
    container.decorate(\.specSync) { _, box in SpecBox("decorated", wrapping: box) }
    container.decorate(\.specAsync) { r, box in
      let other = try await r.resolve(\.specAsyncArg, argument: 9)  // an asynchronous decorator may await
      return SpecBox("decorated", id: other.id, wrapping: box)
    }
    container.decorate(\.specMain) { _, box in
      MainActor.assertIsolated()
      return SpecBox("decorated", wrapping: box)
    }
    container.decorate(\.specArg) { _, box in SpecBox("decorated", id: box.id, wrapping: box) }
    container.decorate(\.specAsyncArg) { _, box in SpecBox("decorated", id: box.id, wrapping: box) }
    container.decorate(\.specMainArg) { _, box in SpecBox("decorated", id: box.id, wrapping: box) }
    // Decorators compose: the first registered wraps the factory's value.
    container.decorate(\.specSync) { _, box in SpecBox("outer", wrapping: box) }

    let sync = try container[\.specSync]
    #expect(sync.tag == "outer" && sync.wrapped?.tag == "decorated" && sync.wrapped?.wrapped?.tag == "sync default")
    let async = try await container.resolve(\.specAsync)
    #expect(async.tag == "decorated" && async.id == 9 && async.wrapped?.tag == "async default")
    #expect(try container[\.specMain].wrapped?.tag == "main default")
    #expect(try container.resolve(\.specArg, argument: 2).wrapped?.tag == "arg default")
    #expect(try await container.resolve(\.specAsyncArg, argument: 3).wrapped?.id == 3)
    #expect(try container.resolve(\.specMainArg, argument: 4).wrapped?.id == 4)

    // A decorator applies to an override too.
    try await withOverrides {
      $0.register(\.specMain) { SpecBox("override") }
      $0.register(\.specArg) { _, n in SpecBox("override", id: n) }
    } operation: { () async throws in
      #expect(try container[\.specMain].wrapped?.tag == "override")
      #expect(try container.resolve(\.specArg, argument: 1).wrapped?.tag == "override")
    }
  }

  // MARK: Multibindings

  @MainActor @Test func multibindingContributionsForEveryKind() async throws {
    let container = Container()
    let log = SpecLog()
    container.contribute(to: \.specMulti, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { _ in
      SpecBox("s1")
    }
    container.contribute(to: \.specMulti) { _ in SpecBox("s2") }
    container.contribute(to: \.specAsyncMulti, scope: .singleton, dispose: { log.append("async \($0.tag)") }) { r in
      SpecBox("a1", wrapping: try await r.resolve(\.specAsync))
    }
    container.contribute(to: \.specAsyncMulti) { _ in SpecBox("a2") }
    container.contribute(to: \.specMainMulti, scope: .cached, dispose: { log.append("main \($0.tag)") }) { r in
      SpecBox("m1", wrapping: try r[\.specMain])
    }
    container.contribute(to: \.specMainMulti, scope: .weak) { _ in SpecBox("m2") }
    let child = container.makeChild()
    child.contribute(to: \.specMulti) { _ in SpecBox("child") }

    let sync1 = try container[\.specMulti]
    let sync2 = try container.resolve(\.specMulti)
    #expect(sync1.map(\.tag) == ["s1", "s2"])
    #expect(sync1[0] === sync2[0] && sync1[1] !== sync2[1])
    #expect(try child[\.specMulti].map(\.tag) == ["s1", "s2", "child"])
    #expect(try child[\.specMulti][0] === sync1[0])

    let async1 = try await container.resolve(\.specAsyncMulti)
    let async2 = try await container[\.specAsyncMulti]
    #expect(async1.map(\.tag) == ["a1", "a2"])
    #expect(async1[0] === async2[0] && async1[1] !== async2[1])

    let main1 = try container[\.specMainMulti]
    // Note: in `@MainActor` *async* code, `try container.resolve(\.specMainMulti)` (and
    // `resolve(\.mainActorKey)`, `provider(...).get()` of a main-actor key or multibinding) does
    // not compile: Swift prefers the `async` overload in an async context, so it needs `await`.
    // The subscript and `Lazy.value` work without it.
    let main2 = try await container.resolve(\.specMainMulti)
    #expect(main1.map(\.tag) == ["m1", "m2"])
    #expect(main1[0] === main2[0] && main1[1] === main2[1])

    // Handles of multibindings.
    #expect(try container.provider(\.specMulti).get().count == 2)
    #expect(try await container.provider(\.specAsyncMulti).get().count == 2)
    #expect(try await container.provider(\.specMainMulti).get().count == 2)  // `await`: see the note above
    #expect(try container.lazy(\.specMulti).value.count == 2)
    #expect(try await container.lazy(\.specAsyncMulti).value.count == 2)
    #expect(try container.lazy(\.specMainMulti).value.count == 2)

    try await container.dispose()
    #expect(Set(log.all) == ["sync s1", "async a1", "main m1"])
  }

  // MARK: Tracing

  @MainActor @Test func tracingSeesEveryKind() async throws {
    let container = Container()
    let recorder = SpecRecorder()
    container.register(\.specAsync, scope: .singleton) { () async throws in SpecBox() }
    container.observe(recorder)
    _ = try container[\.specSync]
    _ = try await container.resolve(\.specAsync)
    _ = try await container.resolve(\.specAsync)
    _ = try container[\.specMain]
    _ = try container.resolve(\.specArg, argument: 1)
    _ = try await container.resolve(\.specAsyncArg, argument: 1)
    _ = try container.resolve(\.specMainArg, argument: 1)
    _ = try container[\.specMainPair]
    #expect(throws: ResolutionError.self) { try container[\.specMissing] }
    container.observe(nil)
    let events = recorder.events
    for name in ["specSync", "specAsync", "specMain", "specArg", "specAsyncArg", "specMainArg"] {
      #expect(events.contains { $0.dependency.name == "\\.\(name)" && $0.outcome == .created }, "\(name)")
    }
    #expect(events.contains { $0.dependency.name == "\\.specAsync" && $0.outcome == .reused })
    #expect(
      events.contains {
        $0.dependency.name == "\\.specMain" && $0.depth == 1 && $0.requestedBy?.name == "\\.specMainPair"
      })
    #expect(events.contains { $0.dependency.name == "\\.specMainPair" && $0.outcome == .created })
    // "A resolution that throws is reported too, with the outcome failed": also a required key
    // nobody registered, resolved at the top level.
    #expect(events.contains { $0.dependency.name == "\\.specMissing" && $0.outcome == .failed && $0.depth == 0 })
    // A factory that throws is reported as failed, and so is the missing key below it.
    container.register(\.specSync) { r in SpecBox(wrapping: try r[\.specMissing]) }
    container.observe(recorder)
    #expect(throws: ResolutionError.self) { try container[\.specSync] }
    container.observe(nil)
    #expect(recorder.events.contains { $0.dependency.name == "\\.specSync" && $0.outcome == .failed })
    #expect(
      recorder.events.contains {
        $0.dependency.name == "\\.specMissing" && $0.outcome == .failed && $0.requestedBy?.name == "\\.specSync"
          && $0.registeredAt == nil
      })

    // ResolutionTracer prints a main-actor key's tree.
    let lines = SpecLog()
    container.observe(ResolutionTracer { lines.append($0) })
    _ = try container[\.specMainPair]
    container.observe(nil)
    #expect(lines.all.joined(separator: "\n").contains("\\.specMainPair"))
  }

  // MARK: Lazy and Provider handles

  @MainActor @Test func providersAndLazyForEveryKindOnTheMainActor() async throws {
    let container = Container()
    container.register(\.specMain, scope: .singleton) { SpecBox("main") }
    #expect(try container.provider(\.specSync).get().tag == "sync default")
    #expect(try await container.provider(\.specAsync).get().tag == "async default")
    #expect(try await container.provider(\.specMain).get().tag == "main")  // `await`: see the note above
    #expect(try container.provider(\.specArg).get(3).id == 3)
    #expect(try await container.provider(\.specAsyncArg).get(4).id == 4)
    #expect(try container.provider(\.specMainArg).get(5).id == 5)

    #expect(try container.lazy(\.specSync).value.tag == "sync default")
    #expect(try await container.lazy(\.specAsync).value.tag == "async default")
    let lazyMain = container.lazy(\.specMain)
    #expect(try lazyMain.value === container[\.specMain])
    #expect(try container.lazy(\.specArg, argument: 6).value.id == 6)
    #expect(try await container.lazy(\.specAsyncArg, argument: 7).value.id == 7)
    #expect(try container.lazy(\.specMainArg, argument: 8).value.id == 8)

    // A Lazy keeps its value; a Provider resolves again.
    let lazy = container.lazy(\.specSync)
    #expect(try lazy.value === lazy.value)
    let provider = container.provider(\.specSync)
    #expect(try provider.get() !== provider.get())
  }

  @Test func mainActorHandlesAwaitedFromElsewhere() async throws {
    let container = Container()
    container.register(\.specMain, scope: .singleton) { SpecBox(specOnMainQueue() ? "main actor" : "elsewhere") }
    let provider = container.provider(\.specMain)
    let viaProvider = try await provider.get()
    #expect(viaProvider.tag == "main actor")
    let viaArgumentProvider = try await container.provider(\.specMainArg).get(2)
    #expect(viaArgumentProvider.id == 2)
    let lazy = container.lazy(\.specMain)
    #expect(try await lazy.value === viaProvider)
  }

  @Test func handlesMadeInFactoriesBreakCyclesForEveryKind() async throws {
    let container = Container()
    container.register(\.specSync, scope: .singleton) { r in
      let handle = r.lazy(\.specSyncPair)
      _ = handle
      return SpecBox("with a handle")
    }
    container.register(\.specAsync) { r async throws in
      let provider = r.provider(\.specAsyncArg)
      return try await provider.get(11)
    }
    #expect(try container[\.specSync].tag == "with a handle")
    #expect(try await container.resolve(\.specAsync).id == 11)
  }

  // MARK: Property wrappers

  final class SyncInjectee {
    @Injected(\.specSync) var sync: SpecBox
    @Injected(\.specArg, argument: 7) var arg: SpecBox
    @Injected(\.specMulti) var multi: [SpecBox]
    @LazyInjected(\.specSync) var lazySync: SpecBox
    @LazyInjected(\.specArg, argument: 8) var lazyArg: SpecBox
  }

  @MainActor final class MainInjectee {
    @Injected(\.specMain) var main: SpecBox
    @Injected(\.specMainArg, argument: 3) var mainArg: SpecBox
    @Injected(\.specMainMulti) var mainMulti: [SpecBox]
    @LazyInjected(\.specMain) var lazyMain: SpecBox
    @LazyInjected(\.specMainArg, argument: 4) var lazyMainArg: SpecBox
  }

  @MainActor @Test func propertyWrappersForEveryKindTheyCanTake() async throws {
    let container = Container()
    container.register(\.specSync, scope: .singleton) { SpecBox("registered") }
    container.register(\.specMain, scope: .singleton) { SpecBox("registered main") }
    container.register(\.specArg) { _, n in SpecBox("registered", id: n) }
    container.register(\.specMainArg) { _, n in SpecBox("registered main", id: n) }
    container.contribute(to: \.specMulti) { _ in SpecBox("element") }
    container.contribute(to: \.specMainMulti) { _ in SpecBox("main element") }
    let (sync, main) = await withContainer(container) {
      #expect(Container.current === container)
      return (SyncInjectee(), MainInjectee())
    }
    #expect(Container.current !== container)
    #expect(sync.sync === (try container[\.specSync]))
    #expect(sync.arg.tag == "registered" && sync.arg.id == 7)
    #expect(sync.multi.map(\.tag) == ["element"])
    #expect(sync.lazySync === (try container[\.specSync]))  // read after withContainer ended
    #expect(sync.lazyArg.id == 8)
    #expect(main.main === (try container[\.specMain]))
    #expect(main.mainArg.tag == "registered main" && main.mainArg.id == 3)
    #expect(main.mainMulti.map(\.tag) == ["main element"])
    #expect(main.lazyMain === (try container[\.specMain]))
    #expect(main.lazyMainArg.id == 4)
  }

  final class ExplicitInjectee {
    @Injected(\.specSync, container: specExplicitContainer) var sync: SpecBox
  }

  @MainActor @Test func aRequiredKeysDeclaredScopeHoldsForEveryKind() async throws {
    let container = Container()
    container.register(\.specRequiredMain) { SpecBox() }
    container.register(\.specRequiredArg) { _, n in SpecBox(id: n) }
    container.register(\.specRequiredAsync) { () async throws in SpecBox() }
    #expect(try container[\.specRequiredMain] === container[\.specRequiredMain])
    #expect(
      try container.resolve(\.specRequiredArg, argument: 1) === container.resolve(\.specRequiredArg, argument: 1))
    #expect(try await container.resolve(\.specRequiredAsync) === container.resolve(\.specRequiredAsync))
  }

  @Test func aGraphScopedAsyncKeyIsSharedByChildTasksOfOneResolution() async throws {
    let container = Container()
    container.register(\.specAsync, scope: .graph) { () async throws in SpecBox() }
    let pair = try await container.resolve(\.specGraphParent)
    #expect(pair.first === pair.second)
    #expect(try await container.resolve(\.specGraphParent).first !== pair.first)
  }

  // MARK: Overrides

  @Test func anAsyncOverrideScopeDisposesItsSingletonsOfEveryKind() async throws {
    let container = Container()
    let log = SpecLog()
    try await withOverrides {
      $0.register(\.specSync, scope: .singleton, dispose: { log.append("sync \($0.tag)") }) { SpecBox("s") }
      $0.register(\.specAsync, scope: .singleton, dispose: { log.append("async \($0.tag)") }) {
        () async throws in SpecBox("a")
      }
      $0.register(\.specMain, scope: .singleton, dispose: { log.append("main \($0.tag)") }) { SpecBox("m") }
      $0.register(\.specArg, scope: .singleton, dispose: { log.append("arg \($0.id)") }) { _, n in SpecBox(id: n) }
    } operation: {
      _ = try container[\.specSync]
      _ = try await container.resolve(\.specAsync)
      _ = try await container.resolve(\.specMain)
      _ = try container.resolve(\.specArg, argument: 4)
    }
    #expect(Set(log.all) == ["sync s", "async a", "main m", "arg 4"])
    #expect(try container[\.specSync].tag == "sync default")
  }

  @Test func aProviderResolvesInTheScopeItWasMadeIn() async throws {
    let container = Container()
    let (provider, lazy) = try await withOverrides {
      $0.register(\.specMain) { SpecBox("override") }
      $0.register(\.specArg) { _, n in SpecBox("override", id: n) }
    } operation: { () async throws in
      (container.provider(\.specMain), container.lazy(\.specArg, argument: 2))
    }
    #expect(try await provider.get().tag == "override")
    #expect(try lazy.value.tag == "override")
    #expect(try await container.provider(\.specMain).get().tag == "main default")
  }

  @MainActor @Test func overridesForEveryKind() async throws {
    let container = Container()
    try await withOverrides {
      $0.register(\.specSync) { SpecBox("override") }
      $0.register(\.specAsync) { () async throws in SpecBox("override") }
      $0.register(\.specMain) { SpecBox("override") }
      $0.register(\.specArg) { _, n in SpecBox("override", id: n) }
      $0.register(\.specAsyncArg) { _, n async throws in SpecBox("override", id: n) }
      $0.register(\.specMainArg) { _, n in SpecBox("override", id: n) }
      $0.contribute(to: \.specMulti) { _ in SpecBox("override") }
    } operation: { () async throws in
      #expect(try container[\.specSync].tag == "override")
      #expect(try await container.resolve(\.specAsync).tag == "override")
      #expect(try container[\.specMain].tag == "override")
      #expect(try container.resolve(\.specArg, argument: 1).tag == "override")
      #expect(try await container.resolve(\.specAsyncArg, argument: 1).tag == "override")
      #expect(try container.resolve(\.specMainArg, argument: 1).tag == "override")
      #expect(try container[\.specMulti].map(\.tag) == ["override"])
      #expect(try await container.provider(\.specMain).get().tag == "override")
      #expect(try await container.lazy(\.specAsync).value.tag == "override")
    }
    #expect(try container[\.specSync].tag == "sync default")
    #expect(try await container.resolve(\.specAsync).tag == "async default")
    #expect(try container[\.specMain].tag == "main default")
    #expect(try container.resolve(\.specArg, argument: 1).tag == "arg default")
    #expect(try await container.resolve(\.specAsyncArg, argument: 1).tag == "async arg default")
    #expect(try container.resolve(\.specMainArg, argument: 1).tag == "main arg default")
  }

  // MARK: Validation

  @Test func validationRunsEveryKind() async throws {
    let container = Container()
    let ran = SpecCounter()
    container.register(\.specSync) { r in
      _ = try r[\.specMissing]
      return SpecBox()
    }
    container.register(\.specAsync) { r async throws in
      _ = try r[\.specMissing]
      return SpecBox()
    }
    container.register(\.specMain) { r in
      _ = ran.next()
      _ = try r[\.specMissing]
      return SpecBox()
    }
    container.register(\.specArg) { r, _ in
      _ = try r[\.specMissing]
      return SpecBox()
    }
    container.register(\.specAsyncArg) { r, _ async throws in
      _ = try r[\.specMissing]
      return SpecBox()
    }
    container.register(\.specMainArg) { r, _ in
      _ = try r[\.specMissing]
      return SpecBox()
    }

    // Without samples, the argument keys are listed by name.
    let withoutSamples = await container.validate()
    #expect(ran.value >= 1, "the main-actor factory ran")
    let heads = Set(withoutSamples.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
    #expect(heads == ["\\.specSync", "\\.specAsync", "\\.specMain"])
    #expect(
      Set(withoutSamples.needsSampleArgument.map(\.name)) == ["\\.specArg", "\\.specAsyncArg", "\\.specMainArg"])

    // With samples, every one runs.
    let withSamples = await container.validate(arguments: [\.specArg: 1, \.specAsyncArg: 2, \.specMainArg: 3])
    let allHeads = Set(withSamples.problems(.requiredKeyNotProvided).compactMap { $0.path.first?.name })
    #expect(
      allHeads == [
        "\\.specSync", "\\.specAsync", "\\.specMain", "\\.specArg", "\\.specAsyncArg", "\\.specMainArg",
      ])
    #expect(withSamples.needsSampleArgument.isEmpty)
    for problem in withSamples.problems(.requiredKeyNotProvided) {
      #expect(problem.dependency.name == "\\.specMissing")
      #expect(problem.path.last?.name == "\\.specMissing")
    }
  }

  @Test func validationPassesAValidGraphOfEveryKind() async throws {
    let container = Container()
    container.register(\.specMissing) { SpecBox() }
    container.register(\.specMain) { r in SpecBox(wrapping: try r[\.specMissing]) }
    container.register(\.specAsyncArg) { r, n async throws in SpecBox(id: n, wrapping: try r[\.specMissing]) }
    container.contribute(to: \.specMainMulti) { r in try r[\.specMain] }
    let report = await container.validate(
      including: [\.specMainPair, \.specAsyncPair, \.specMainMulti, \.specAsyncMulti],
      arguments: [\.specAsyncArg: 5])
    #expect(report.isValid, "\(report)")
    #expect(report.needsSampleArgument.isEmpty)
    await expectValidGraph(container, including: [\.specMainPair], arguments: [\.specAsyncArg: 5])
  }
}

let specExplicitContainer: Container = {
  let container = Container()
  container.register(\.specSync) { SpecBox("explicit") }
  return container
}()

@Suite struct MainActorHopTests {
  /// Runs off the main actor (a nonisolated async function).
  nonisolated func resolveElsewhere(_ container: Container) async throws -> (SpecBox, SpecBox, [SpecBox]) {
    let box = try await container.resolve(\.specMain)
    let argument = try await container.resolve(\.specMainArg, argument: 12)
    let elements = try await container.resolve(\.specMainMulti)
    return (box, argument, elements)
  }

  @Test func anAsyncResolveOfAMainActorKeyHopsToTheMainActor() async throws {
    let container = Container()
    container.register(\.specMain) { SpecBox(specOnMainQueue() ? "main actor" : "elsewhere") }
    container.register(\.specMainArg) { _, n in SpecBox(specOnMainQueue() ? "main actor" : "elsewhere", id: n) }
    container.contribute(to: \.specMainMulti) { _ in SpecBox(specOnMainQueue() ? "main actor" : "elsewhere") }
    let (box, argument, elements) = try await Task.detached { try await resolveElsewhere(container) }.value
    #expect(box.tag == "main actor")
    #expect(argument.tag == "main actor" && argument.id == 12)
    #expect(elements.map(\.tag) == ["main actor"])
  }

  @Test func anAsyncFactoryResolvesAMainActorKeyWithAwait() async throws {
    let container = Container()
    container.register(\.specMain) { SpecBox(specOnMainQueue() ? "main actor" : "elsewhere") }
    container.register(\.specAsync) { r async throws in SpecBox("async", wrapping: try await r.resolve(\.specMain)) }
    #expect(try await container.resolve(\.specAsync).wrapped?.tag == "main actor")
  }
}

extension Dependencies {
  var specDisposableSync: Key<SpecDisposableBox> { .required() }
  var specDisposableAsync: AsyncKey<SpecDisposableBox> { .required() }
  var specDisposableMain: MainActorKey<SpecDisposableBox> { .required() }
  var specDisposableArg: ArgumentKey<Int, SpecDisposableBox> { .required() }
}

// MARK: - validate() sees every key

@Suite struct ValidationSeesEveryKeyTests {
  @Test func aRequiredKeyBehindAMainActorViewModelIsReportedFromTheKey() async throws {
    let container = Container()
    let report = await container.validate(including: [\.specViewModel])
    #expect(!report.isValid)
    let problems = report.problems(.requiredKeyNotProvided)
    #expect(problems.count == 1)
    let problem = try #require(problems.first)
    #expect(problem.dependency.name == "\\.specStorage")
    #expect(problem.dependency.location == Dependencies.declarationSite(of: \.specStorage))
    #expect(problem.dependency.location?.fileID.hasSuffix("DocumentedBehaviourTests.swift") == true)
    #expect(problem.path.map(\.name) == ["\\.specViewModel", "\\.specStorage"])
    #expect(problem.description.contains("\\.specViewModel → \\.specStorage"))
    #expect(
      problem.description.contains(
        "DocumentedBehaviourTests.swift:\(Dependencies.declarationSite(of: \.specStorage).line)"))
  }

  @MainActor @Test func aRequiredKeyBehindARegisteredViewModelIsReportedFromTheMainActor() async throws {
    let container = Container()
    container.register(\.specViewModel) { r in SpecViewModel(storage: try r[\.specStorage]) }
    let report = await container.validate()
    let problem = try #require(report.problems(.requiredKeyNotProvided).first)
    #expect(problem.dependency.name == "\\.specStorage")
    #expect(problem.path.map(\.name) == ["\\.specViewModel", "\\.specStorage"])
    #expect(
      problem.registeredAt == nil || problem.registeredAt?.fileID.hasSuffix("DocumentedBehaviourTests.swift") == true)

    container.register(\.specStorage) { SpecSQLStorage() }
    #expect(await container.validate().isValid)
  }

  @Test func anArgumentKeyWithoutASampleIsListedByNameAndWithOneIsRun() async throws {
    let container = Container()
    container.register(\.specArg) { r, n in SpecBox(id: n, wrapping: try r[\.specMissing]) }
    let unchecked = await container.validate()
    #expect(unchecked.needsSampleArgument.map(\.name) == ["\\.specArg"])
    #expect(unchecked.description.contains("\\.specArg"))

    let checked = await container.validate(arguments: [\.specArg: 42])
    #expect(checked.needsSampleArgument.isEmpty)
    #expect(checked.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.specMissing"])

    // A sample of the wrong type is reported, not skipped.
    let wrong = await container.validate(arguments: [\.specArg: "forty-two"])
    #expect(wrong.problems(.factoryMismatch).map(\.dependency.name) == ["\\.specArg"])
  }

  @Test func anArgumentKeyNamedInIncludingWithoutASampleIsListed() async throws {
    let container = Container()
    let report = await container.validate(including: [\.specMainArg, \.specAsyncArg])
    #expect(Set(report.needsSampleArgument.map(\.name)) == ["\\.specMainArg", "\\.specAsyncArg"])
  }

  @Test func validationOfAsyncKeysAwaitsThem() async throws {
    let container = Container()
    container.register(\.specAsync) { r async throws in
      await Task.yield()
      return SpecBox(wrapping: try r[\.specMissing])
    }
    let report = await container.validate()
    #expect(
      report.problems(.requiredKeyNotProvided).map(\.path).map { $0.map(\.name) } == [
        ["\\.specAsync", "\\.specMissing"]
      ])
  }

  @Test func anArgumentKeyBehindAProviderWithoutASampleIsListedByName() async throws {
    let container = Container()
    container.register(\.specArg) { r, n in SpecBox(id: n, wrapping: try r[\.specMissing]) }
    let report = await container.validate(including: [\.specArgHandleHolder])
    #expect(report.needsSampleArgument.map(\.name).contains("\\.specArg"), "\(report)")
    let sampled = await container.validate(including: [\.specArgHandleHolder], arguments: [\.specArg: 1])
    #expect(sampled.problems(.requiredKeyNotProvided).map(\.dependency.name) == ["\\.specMissing"], "\(sampled)")
  }

  @Test func decoratorsAndMainActorContributionsAreValidated() async throws {
    let container = Container()
    container.decorate(\.specMain) { r, box in SpecBox(wrapping: try r[\.specMissing]) }
    container.decorate(\.specAsync) { r, box in
      await Task.yield()
      return SpecBox(wrapping: try r[\.specMissing])
    }
    container.contribute(to: \.specMainMulti) { r in
      _ = try r[\.specStorage]
      return SpecBox()
    }
    let report = await container.validate()
    let paths = Set(report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) })
    #expect(paths.contains(["\\.specMain", "\\.specMissing"]), "\(report)")
    #expect(paths.contains(["\\.specAsync", "\\.specMissing"]), "\(report)")
    let included = await Container().validate(including: [\.specMainMulti])
    #expect(included.isValid, "no contribution, nothing to report: \(included)")
    let withContribution = await container.validate(including: [\.specMainMulti])
    #expect(
      withContribution.problems(.requiredKeyNotProvided).contains { $0.dependency.name == "\\.specStorage" },
      "\(withContribution)")
  }

  @Test func validationKeepsNoInstance() async throws {
    let container = Container()
    let counter = SpecCounter()
    container.register(\.specMain, scope: .singleton) { SpecBox(id: counter.next()) }
    _ = await container.validate()
    let ranInValidation = counter.value
    #expect(ranInValidation == 1)
    _ = try await container.resolve(\.specMain)
    #expect(counter.value == ranInValidation + 1, "the dry run's instance is not the app's")
  }
}

// MARK: - State belongs to its container

final class SpecSharedHolder {
  @Injected(\.specShared) var shared: SpecBox
}

@Suite struct StatePerContainerTests {
  @Test func aReplacedRegistrationIsFreed() async throws {
    let container = Container()
    weak var captured: SpecBox?
    weak var made: SpecBox?
    do {
      let capture = SpecBox("captured")
      captured = capture
      container.register(\.specSync, scope: .singleton) { SpecBox("old", wrapping: capture) }
      made = try container[\.specSync]
    }
    #expect(captured != nil && made != nil)
    container.register(\.specSync, scope: .singleton) { SpecBox("new") }
    #expect(try container[\.specSync].tag == "new")
    _ = try container[\.specSync]
    #expect(await freedSoon { captured == nil }, "what the replaced factory captured is freed")
    #expect(await freedSoon { made == nil }, "the replaced registration's singleton is freed")
  }

  @Test func replacedRegistrationsOfEveryKindAreFreed() async throws {
    let container = Container()
    weak var asyncCapture: SpecBox?
    weak var argCapture: SpecBox?
    weak var mainCapture: SpecBox?
    do {
      let a = SpecBox()
      let b = SpecBox()
      let c = SpecBox()
      asyncCapture = a
      argCapture = b
      mainCapture = c
      container.register(\.specAsync, scope: .singleton) { () async throws in SpecBox(wrapping: a) }
      container.register(\.specArg, scope: .singleton) { _, n in SpecBox(id: n, wrapping: b) }
      container.register(\.specMain, scope: .singleton) { SpecBox(wrapping: c) }
      _ = try await container.resolve(\.specAsync)
      _ = try container.resolve(\.specArg, argument: 1)
      _ = try await container.resolve(\.specMain)
    }
    container.register(\.specAsync) { () async throws in SpecBox() }
    container.register(\.specArg) { _, n in SpecBox(id: n) }
    container.register(\.specMain) { SpecBox() }
    _ = try await container.resolve(\.specAsync)
    _ = try container.resolve(\.specArg, argument: 1)
    _ = try await container.resolve(\.specMain)
    #expect(await freedSoon { asyncCapture == nil })
    #expect(await freedSoon { argCapture == nil })
    #expect(await freedSoon { mainCapture == nil })
  }

  /// Runs `read` in two override scopes open at once, tagged "left" and "right", each of which
  /// registers its own `\.specShared` and `\.specMain` singletons, tagged too; `read` meets the
  /// other scope at `barrier` once it has read something. Returns what each scope read, by tag.
  private func inTwoParallelScopes(
    _ read: @escaping @Sendable (_ tag: String, _ barrier: Rendezvous) async throws -> [SpecBox]
  ) async throws -> [String: [SpecBox]] {
    let barrier = Rendezvous(parties: 2)
    return try await withThrowingTaskGroup(of: (String, [SpecBox]).self) { group in
      for tag in ["left", "right"] {
        group.addTask {
          try await withOverrides {
            $0.register(\.specShared, scope: .singleton) { SpecBox(tag) }
            $0.register(\.specMain, scope: .singleton) { SpecBox(tag) }
          } operation: {
            (tag, try await read(tag, barrier))
          }
        }
      }
      return try await group.reduce(into: [String: [SpecBox]]()) { $0[$1.0] = $1.1 }
    }
  }

  @Test func parallelOverrideScopesEachKeepTheirOwnSingleton() async throws {
    let container = Container()
    let results = try await inTwoParallelScopes { _, barrier in
      let first = try container[\.specShared]
      #expect(await barrier.arrive(timeout: hangBound))  // both scopes are open now
      let second = try container[\.specShared]
      let explicit = await withContainer(container) { SpecSharedHolder().shared }
      let viaAsync = await withContainer(container) { SpecSharedHolder().shared }
      let shared = try Container.shared[\.specShared]
      let viaShared = SpecSharedHolder().shared  // Container.current is Container.shared here
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
    #expect(try container[\.specShared].tag == "shared default")
  }

  @MainActor final class MainHolder {
    @Injected(\.specMain) var main: SpecBox
  }

  @Test func parallelOverrideScopesEachKeepTheirOwnMainActorSingleton() async throws {
    let container = Container()
    let results = try await inTwoParallelScopes { _, barrier in
      let first = try await container.resolve(\.specMain)
      #expect(await barrier.arrive(timeout: hangBound))
      let second = try await container.resolve(\.specMain)
      let injected = await withContainer(container) { await MainActor.run { MainHolder().main } }
      return [first, second, injected]
    }
    for (tag, boxes) in results {
      #expect(boxes.allSatisfy { $0.tag == tag && $0 === boxes[0] }, "\(tag)")
    }
    #expect(results.count == 2)
  }

  @Test(.overrides { $0.register(\.specShared, scope: .singleton) { SpecBox("trait A") } })
  func overridesTraitA() async throws {
    let container = Container()
    let resolved = try container[\.specShared]
    #expect(resolved.tag == "trait A")
    #expect(try container[\.specShared] === resolved)
    let injected = await withContainer(container) { SpecSharedHolder().shared }
    #expect(injected === resolved)
    #expect(SpecSharedHolder().shared.tag == "trait A")
  }

  @Test(.overrides { $0.register(\.specShared, scope: .singleton) { SpecBox("trait B") } })
  func overridesTraitB() async throws {
    let container = Container()
    let resolved = try container[\.specShared]
    #expect(resolved.tag == "trait B")
    let injected = await withContainer(container) { SpecSharedHolder().shared }
    #expect(injected === resolved)
    #expect(SpecSharedHolder().shared.tag == "trait B")
  }

  @Test(.container { $0.register(\.specShared, scope: .singleton) { SpecBox("container A") } })
  func containerTraitA() async throws {
    #expect(Container.current !== Container.shared)
    let injected = SpecSharedHolder().shared
    #expect(injected.tag == "container A")
    #expect(try Container.current[\.specShared] === injected)
  }

  @Test(.container { $0.register(\.specShared, scope: .singleton) { SpecBox("container B") } })
  func containerTraitB() async throws {
    #expect(Container.current !== Container.shared)
    let injected = SpecSharedHolder().shared
    #expect(injected.tag == "container B")
    #expect(try Container.current[\.specShared] === injected)
  }

  @Test func withContainerSetsTheTasksCurrentContainer() async throws {
    let container = Container()
    container.register(\.specShared) { SpecBox("mine") }
    #expect(Container.current === Container.shared)
    let injected = await withContainer(container) { SpecSharedHolder().shared }
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
    mine.register(\.specShared, scope: .singleton) { SpecBox("mine") }
    let before = try mine[\.specShared]
    let other = Container()
    for index in 0..<100 {
      other.register(type: Int.self, name: "other \(index)") { index }
    }
    other.register(\.specShared, scope: .singleton) { SpecBox("other") }
    _ = try other[\.specShared]
    #expect(try mine[\.specShared] === before)
  }

  @Test func overridesOfOneContainerDoNotReachAnother() async throws {
    let first = Container()
    let second = Container()
    first.register(\.specShared, scope: .singleton) { SpecBox("first") }
    #expect(try second[\.specShared].tag == "shared default")
    #expect(try first[\.specShared] === first.makeChild()[\.specShared])
  }
}

enum ExplicitInjecteeHolder {
  static func make() -> SpecBox { EveryKindFeatureTests.ExplicitInjectee().sync }
}

// MARK: - Deep graphs never crash

/// Runs `body` on a new thread with the given stack size, outside any task.
final class SpecThreadJob: @unchecked Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

func specOnThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    let job = SpecThreadJob { continuation.resume(returning: body()) }
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
        let job = Unmanaged<SpecThreadJob>.fromOpaque(context!).takeRetainedValue()
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

@Suite struct DeepChainOfEveryKindTests {
  static func expectTooDeepOrSucceeded(
    _ outcome: Result<Int, any Error>, first: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    switch outcome {
    case .success(let value):
      print("deep chain from \(first) succeeded")
      #expect(value == 9_999, sourceLocation: sourceLocation)
    case .failure(let error):
      let resolution = error as? ResolutionError
      print("deep chain from \(first) threw after \(resolution?.path.count ?? -1) steps")
      #expect(resolution?.kind == .resolutionTooDeep, "\(error)", sourceLocation: sourceLocation)
      #expect(resolution?.path.first?.name == first, sourceLocation: sourceLocation)
      #expect((resolution?.path.count ?? 0) > 1, sourceLocation: sourceLocation)
      #expect(resolution?.description.contains("path: \(first)") == true, sourceLocation: sourceLocation)
    }
  }

  @Test func aTenThousandDeepChainOfKeysOnA512KiBThread() async {
    let container = Container()
    let outcome = await specOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container[\.[specStep: 0]] }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "\\.subscript(specStep:)")
  }

  @Test func aTenThousandDeepChainOfTypesOnA512KiBThread() async {
    let container = Container()
    for step in 0..<10_000 {
      container.register(type: Int.self, name: "chain step \(step)") { r in
        step == 9_999 ? 0 : try r.resolve(type: Int.self, name: "chain step \(step + 1)") + 1
      }
    }
    let outcome = await specOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(type: Int.self, name: "chain step 0") }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "Int (name: \"chain step 0\")")
  }

  @Test func aTenThousandDeepArgumentCountdownOnA512KiBThread() async {
    let container = Container()
    let outcome = await specOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(\.specCountdown, argument: 9_999) }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "\\.specCountdown")
  }

  @Test func aTenThousandDeepChainOfSingletonsOnA512KiBThread() async {
    let container = Container()
    for step in 0..<10_000 {
      container.register(type: Int.self, name: "chain singleton \(step)", scope: .singleton) { r in
        step == 9_999 ? 0 : try r.resolve(type: Int.self, name: "chain singleton \(step + 1)") + 1
      }
    }
    let outcome = await specOnThread(stackSize: 512 * 1024) { () -> Result<Int, any Error> in
      Result { try container.resolve(type: Int.self, name: "chain singleton 0") }
    }
    Self.expectTooDeepOrSucceeded(outcome, first: "Int (name: \"chain singleton 0\")")
  }
}

// MARK: - The seeds' provider shape

protocol DependencyProvider {
  func resolve<T>() throws -> T
}

extension Container: DependencyProvider {}

@Suite struct ProviderShapeTests {
  struct Repository { let storage: any SpecStorage }

  func makeRepository(_ provider: any DependencyProvider) throws -> Repository {
    Repository(storage: try provider.resolve())
  }

  func makeRepositoryGenerically<P: DependencyProvider>(_ provider: P) throws -> Repository {
    Repository(storage: try provider.resolve())
  }

  @Test func aContainerBacksAHandWrittenDependencyProvider() throws {
    let container = Container()
    container.register(type: (any SpecStorage).self, scope: .singleton) { SpecSQLStorage() }
    container.register(type: SpecBox.self) { SpecBox("by type") }
    let provider: any DependencyProvider = container
    #expect(try makeRepository(provider).storage is SpecSQLStorage)
    #expect(try makeRepositoryGenerically(container).storage is SpecSQLStorage)
    let box: SpecBox = try provider.resolve()
    #expect(box.tag == "by type")
    let error = #expect(throws: ResolutionError.self) { let _: Int = try provider.resolve() }
    #expect(error?.kind == .notRegistered)
  }

  @Test func aFactoryCanUseTheContainerAsItsProvider() throws {
    let container = Container()
    container.register(type: (any SpecStorage).self, scope: .singleton) { SpecSQLStorage() }
    container.register(type: Repository.self) {
      let provider: any DependencyProvider = container
      return Repository(storage: try provider.resolve())
    }
    let provider: any DependencyProvider = container
    let repository: Repository = try provider.resolve()
    #expect(repository.storage is SpecSQLStorage)
  }
}
