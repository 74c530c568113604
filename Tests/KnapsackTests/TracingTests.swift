import Foundation
import Knapsack
import Testing

/// A value in the tracing tests' graphs.
final class TrNode: Sendable {
  let label: String
  let children: [TrNode]
  init(_ label: String, _ children: [TrNode] = []) {
    self.label = label
    self.children = children
  }
}

final class TrTyped: Sendable {}

extension Dependencies {
  var trApp: Key<TrNode> { .required() }
  var trRepository: Key<TrNode> { .required() }
  var trClock: Key<TrNode> { .required() }
  // Served by its default, so its events carry no registration site.
  var trStore: Key<TrNode> { Key { TrNode("store") }.scope(.singleton) }
  var trBroken: Key<TrNode> { .required() }
  var trMissing: Key<TrNode> { .required() }
  var trSlow: Key<TrNode> { .required() }
  var trSlowParent: Key<TrNode> { .required() }
  var trFast: Key<TrNode> { .required() }
  var trAsync: AsyncKey<TrNode> { .required() }
  var trLog: Key<Collected<String>> { Key { Collected<String>() }.scope(.singleton) }
  // A factory that resolves two dependencies side by side, each with a dependency of its own.
  var trSideBySide: AsyncKey<TrNode> {
    AsyncKey { r in
      async let slow = r.resolve(\.trSlowBranch)
      async let fast = r.resolve(\.trFastBranch)
      return TrNode("both", [try await slow, try await fast])
    }
  }
  var trSlowBranch: AsyncKey<TrNode> {
    AsyncKey { r in
      try await Task.sleep(for: .milliseconds(60))
      return TrNode("slow", [try await r.resolve(\.trSlowLeaf)])
    }
  }
  var trFastBranch: AsyncKey<TrNode> {
    AsyncKey { r in
      try await Task.sleep(for: .milliseconds(20))
      return TrNode("fast", [try await r.resolve(\.trFastLeaf)])
    }
  }
  var trSlowLeaf: AsyncKey<TrNode> { AsyncKey { _ in TrNode("slow leaf") } }
  var trFastLeaf: AsyncKey<TrNode> { AsyncKey { _ in TrNode("fast leaf") } }
}

private let file = "KnapsackTests/TracingTests.swift"

/// Writes each event to a log it resolves from the container it observes, in both callbacks.
final class TrLoggingObserver: ResolutionObserver {
  let container: Container
  init(container: Container) { self.container = container }
  func willResolve(_ dependency: DependencyReference, depth: Int) {
    (try? container[\.trLog])?.append("will \(dependency.name)")
  }
  func didResolve(_ event: ResolutionEvent) {
    (try? container[\.trLog])?.append("did \(event.dependency.name) \(event.outcome)")
  }
}

/// Keeps every event and every `willResolve` call it sees.
final class TrRecorder: ResolutionObserver {
  let events = Collected<ResolutionEvent>()
  let starts = Collected<String>()
  func willResolve(_ dependency: DependencyReference, depth: Int) { starts.append("\(depth) \(dependency.name)") }
  func didResolve(_ event: ResolutionEvent) { events.append(event) }

  /// Each event as `depth name (scope) outcome ← requester`.
  var summary: [String] {
    events.all.map { event in
      "\(event.depth) \(event.dependency.name) (\(event.scope)) \(event.outcome.rawValue)"
        + (event.requestedBy.map { " ← \($0.name)" } ?? "")
    }
  }
}

/// A container with app → repository (singleton) → store (singleton default); app → clock.
private func knownContainer() -> (Container, [String: Int]) {
  let container = Container()
  var lines: [String: Int] = [:]
  lines["\\.trApp"] = #line + 1
  container.register(\.trApp) { r in TrNode("app", [try r[\.trRepository], try r[\.trClock]]) }
  lines["\\.trRepository"] = #line + 1
  container.register(\.trRepository, scope: .singleton) { r in TrNode("repository", [try r[\.trStore]]) }
  lines["\\.trClock"] = #line + 1
  container.register(\.trClock) { TrNode("clock") }
  return (container, lines)
}

/// Replaces every timing (`0.123 ms`) with `<t>`.
private func normalised(_ text: String) -> String {
  text.replacing(/\d+\.\d{3} ms/, with: "<t>")
}

@Suite struct TracingTests {
  // MARK: ResolutionTracer

  @Test func traceOfAKnownResolutionMatches() async throws {
    let (container, _) = knownContainer()
    let written = Collected<String>()
    container.observe(ResolutionTracer { written.append($0) })
    _ = try container[\.trApp]
    _ = try container[\.trApp]
    #expect(
      written.all.map(normalised) == [
        #"""
        \.trApp (unique) created in <t>
          \.trRepository (singleton) created in <t>
            \.trStore (singleton) created in <t>
          \.trClock (unique) created in <t>
        """#,
        #"""
        \.trApp (unique) created in <t>
          \.trRepository (singleton) reused in <t>
          \.trClock (unique) created in <t>
        """#,
      ])
  }

  /// A child with an observer of its own makes `\.trApp`; the parent keeps the singleton
  /// `\.trRepository` and traces only its own step, asked for by a step it never saw: that tree
  /// starts at the margin and names who asked, rather than hanging indented under nothing.
  @Test func aStepAskedForByAnUnseenStepStartsItsOwnTree() async throws {
    let parent = Container()
    parent.register(\.trRepository, scope: .singleton) { r in TrNode("repository", [try r[\.trStore]]) }
    let written = Collected<String>()
    parent.observe(ResolutionTracer { written.append($0) })
    let child = parent.makeChild()
    child.register(\.trApp) { r in TrNode("app", [try r[\.trRepository]]) }
    child.observe(ResolutionTracer { _ in })
    _ = try child[\.trApp]
    #expect(
      written.all.map(normalised) == [
        #"""
        \.trRepository (singleton) created in <t>, asked for by \.trApp
          \.trStore (singleton) created in <t>
        """#
      ])
  }

  @Test func tracerWritesMillisecondsWithThreeDecimals() async throws {
    let (container, _) = knownContainer()
    let written = Collected<String>()
    container.observe(ResolutionTracer { written.append($0) })
    _ = try container[\.trClock]
    let line = try #require(written.all.first)
    #expect(line.wholeMatch(of: /\\\.trClock \(unique\) created in \d+\.\d{3} ms/) != nil, "\(line)")
  }

  @Test func eachTopLevelResolutionIsOneTree() async throws {
    let (container, _) = knownContainer()
    let written = Collected<String>()
    container.observe(ResolutionTracer { written.append($0) })
    _ = try container[\.trClock]
    _ = try container[\.trStore]
    _ = try container[\.trStore]
    #expect(
      written.all.map(normalised) == [
        #"\.trClock (unique) created in <t>"#,
        #"\.trStore (singleton) created in <t>"#,
        #"\.trStore (singleton) reused in <t>"#,
      ])
  }

  @Test func aFailedResolutionDoesNotBreakTheNextTrace() async throws {
    let (container, _) = knownContainer()
    container.register(\.trBroken) { r in TrNode("broken", [try r[\.trClock], try r[\.trMissing]]) }
    let written = Collected<String>()
    container.observe(ResolutionTracer { written.append($0) })
    #expect(throws: ResolutionError.self) { try container[\.trBroken] }
    _ = try container[\.trClock]
    let last = try #require(written.all.last, "nothing was written after the failure")
    #expect(normalised(last) == #"\.trClock (unique) created in <t>"#, "\(written.all)")
    // The failed resolution's own tree was written too, marked as failed.
    let lines = written.all.map(normalised)
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.first?.hasPrefix(#"\.trBroken (unique) failed in <t>"#) == true, "\(lines)")
    #expect(lines.first?.contains(#"  \.trClock (unique) created in <t>"#) == true, "\(lines)")
  }

  @Test func anObserverThatResolvesFromItsContainerIsNotCalledForThoseResolutions() async throws {
    // Each resolution the observer makes would otherwise call it again, without end.
    let container = Container()
    container.observe(TrLoggingObserver(container: container))
    container.register(\.trApp) { r in TrNode("app", [try r[\.trStore]]) }
    #expect(try container[\.trApp].label == "app")
    _ = try container.resolve(\.trApp)
    let log = try container[\.trLog]
    #expect(
      log.all == [
        // The log's own creation, inside the first callback, is not observed.
        "will \\.trApp", "will \\.trStore", "did \\.trStore created", "did \\.trApp created",
        "will \\.trApp", "will \\.trStore", "did \\.trStore reused", "did \\.trApp created",
        "will \\.trLog", "did \\.trLog reused",
      ], "\(log.all)")
  }

  @Test func observerSeesFailedResolutions() async throws {
    let (container, _) = knownContainer()
    container.register(\.trBroken) { r in TrNode("broken", [try r[\.trClock], try r[\.trMissing]]) }
    let recorder = TrRecorder()
    container.observe(recorder)
    #expect(throws: ResolutionError.self) { try container[\.trBroken] }
    let summary = recorder.summary
    #expect(summary.first == "1 \\.trClock (unique) created ← \\.trBroken", "\(summary)")
    #expect(summary.last == "0 \\.trBroken (unique) failed", "\(summary)")
    // Every willResolve was matched by a didResolve, so tree-building observers stay balanced.
    #expect(recorder.starts.all.count == recorder.events.all.count, "\(recorder.starts.all) vs \(summary)")
  }

  @Test func profilerCountsOnlyFactoryCallsThatSucceeded() async throws {
    let (container, _) = knownContainer()
    container.register(\.trBroken) { r in TrNode("broken", [try r[\.trMissing]]) }
    let profiler = StartupProfiler()
    container.observe(profiler)
    #expect(throws: ResolutionError.self) { try container[\.trBroken] }
    _ = try container[\.trClock]
    #expect(profiler.slowestFactories.map(\.dependency.name) == ["\\.trClock"])
  }

  // MARK: Observers

  @Test func observerSeesEveryResolutionInnermostFirst() async throws {
    let (container, lines) = knownContainer()
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try container[\.trApp]
    #expect(
      recorder.summary == [
        "2 \\.trStore (singleton) created ← \\.trRepository",
        "1 \\.trRepository (singleton) created ← \\.trApp",
        "1 \\.trClock (unique) created ← \\.trApp",
        "0 \\.trApp (unique) created",
      ])
    #expect(recorder.starts.all == ["0 \\.trApp", "1 \\.trRepository", "2 \\.trStore", "1 \\.trClock"])
    let sites = Dictionary(recorder.events.all.map { ($0.dependency.name, $0.registeredAt) }) { first, _ in first }
    #expect(sites["\\.trApp"] == CodeLocation(fileID: file, line: lines["\\.trApp"] ?? 0))
    #expect(sites["\\.trRepository"] == CodeLocation(fileID: file, line: lines["\\.trRepository"] ?? 0))
    #expect(sites["\\.trStore"] == .some(nil), "a key's default has no registration site")
  }

  @Test func observerSeesCacheHitsAsReused() async throws {
    let (container, _) = knownContainer()
    _ = try container[\.trApp]
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try container[\.trRepository]
    _ = try container[\.trApp]
    #expect(
      recorder.summary == [
        "0 \\.trRepository (singleton) reused",
        "1 \\.trRepository (singleton) reused ← \\.trApp",
        "1 \\.trClock (unique) created ← \\.trApp",
        "0 \\.trApp (unique) created",
      ])
  }

  @Test func aParentDurationIncludesItsDependencies() async throws {
    let (container, _) = knownContainer()
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try container[\.trApp]
    let durations = Dictionary(recorder.events.all.map { ($0.dependency.name, $0.duration) }) { first, _ in first }
    let app = try #require(durations["\\.trApp"])
    let repository = try #require(durations["\\.trRepository"])
    let store = try #require(durations["\\.trStore"])
    #expect(app >= repository)
    #expect(repository >= store)
  }

  @Test func typeRegistrationsAreObservedToo() async throws {
    let container = Container()
    container.register(type: TrTyped.self, scope: .singleton) { TrTyped() }
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try container.resolve(type: TrTyped.self)
    _ = try container.resolve(type: TrTyped.self)
    #expect(recorder.summary == ["0 TrTyped (singleton) created", "0 TrTyped (singleton) reused"])
  }

  @Test func asyncResolutionsAreObserved() async throws {
    let container = Container()
    container.register(\.trAsync, scope: .singleton) { r async throws in TrNode("async", [try r[\.trClock]]) }
    container.register(\.trClock) { TrNode("clock") }
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try await container.resolve(\.trAsync)
    _ = try await container.resolve(\.trAsync)
    #expect(
      recorder.summary == [
        "1 \\.trClock (unique) created ← \\.trAsync",
        "0 \\.trAsync (singleton) created",
        "0 \\.trAsync (singleton) reused",
      ])
  }

  @Test func parentObserverSeesChildResolutions() async throws {
    let (parent, _) = knownContainer()
    let recorder = TrRecorder()
    parent.observe(recorder)
    let child = parent.makeChild()
    child.register(\.trClock) { TrNode("session clock") }
    _ = try child[\.trClock]
    #expect(recorder.summary == ["0 \\.trClock (unique) created"])
  }

  /// The known container, and a child of it with a recorder of its own.
  private func observedChild() -> (parent: Container, child: Container, recorder: TrRecorder) {
    let (parent, _) = knownContainer()
    let child = parent.makeChild()
    let recorder = TrRecorder()
    child.observe(recorder)
    return (parent, child, recorder)
  }

  @Test func childObserverDoesNotSeeTheParentsOwnResolutions() async throws {
    let (parent, child, recorder) = observedChild()
    _ = try parent[\.trClock]
    #expect(recorder.events.all.isEmpty)
    _ = try child[\.trClock]
    #expect(recorder.summary == ["0 \\.trClock (unique) created"])
  }

  @Test func childObserverSeesTheParentsSharedInstancesItResolves() async throws {
    let (_, child, recorder) = observedChild()
    // \.trRepository is the parent's singleton: resolved through the child, it is observed
    // there, made the first time, reused after. What its factory resolves in the parent is the
    // parent's to observe (see the next test).
    _ = try child[\.trRepository]
    _ = try child[\.trRepository]
    #expect(recorder.summary == ["0 \\.trRepository (singleton) created", "0 \\.trRepository (singleton) reused"])
    // As a dependency of the child's own registration, with the requester named.
    child.register(\.trApp) { r in TrNode("session app", [try r[\.trRepository]]) }
    _ = try child[\.trApp]
    #expect(
      recorder.summary.suffix(2) == [
        "1 \\.trRepository (singleton) reused ← \\.trApp",
        "0 \\.trApp (unique) created",
      ])
  }

  @Test func childObserverSeesTheParentsSharedInstancesAsynchronously() async throws {
    let parent = Container()
    parent.register(\.trAsync, scope: .singleton) { _ async in TrNode("async") }
    let child = parent.makeChild()
    let recorder = TrRecorder()
    child.observe(recorder)
    _ = try await child.resolve(\.trAsync)
    _ = try await child.resolve(\.trAsync)
    #expect(recorder.summary == ["0 \\.trAsync (singleton) created", "0 \\.trAsync (singleton) reused"])
  }

  @Test func parentAndChildObserversEachSeeASharedInstanceOnce() async throws {
    let (parent, _) = knownContainer()
    let child = parent.makeChild()
    let parents = TrRecorder()
    let childs = TrRecorder()
    parent.observe(parents)
    child.observe(childs)
    _ = try child[\.trRepository]
    _ = try child[\.trRepository]
    #expect(childs.summary == ["0 \\.trRepository (singleton) created", "0 \\.trRepository (singleton) reused"])
    #expect(
      parents.summary == [
        "1 \\.trStore (singleton) created ← \\.trRepository",
        "0 \\.trRepository (singleton) created",
        "0 \\.trRepository (singleton) reused",
      ])
    // A grandchild that observes nothing of its own reports to its parent's observer, once.
    let grandchild = child.makeChild()
    _ = try grandchild[\.trRepository]
    #expect(childs.summary.count == 3)
    #expect(parents.summary.count == 4)
  }

  @Test func oneObserverInstalledOnParentAndChildSeesEachStepOnce() async throws {
    let (parent, _) = knownContainer()
    let child = parent.makeChild()
    let recorder = TrRecorder()
    parent.observe(recorder)
    child.observe(recorder)
    _ = try child[\.trRepository]
    #expect(
      recorder.summary == [
        "1 \\.trStore (singleton) created ← \\.trRepository",
        "0 \\.trRepository (singleton) created",
      ])
  }

  @Test func removingTheObserverStopsEvents() async throws {
    let (container, _) = knownContainer()
    let recorder = TrRecorder()
    container.observe(recorder)
    _ = try container[\.trClock]
    container.observe(nil)
    _ = try container[\.trClock]
    _ = try container[\.trApp]
    #expect(recorder.events.all.count == 1)
  }

  @Test func installingAnotherObserverReplacesTheFirst() async throws {
    let (container, _) = knownContainer()
    let first = TrRecorder()
    let second = TrRecorder()
    container.observe(first)
    _ = try container[\.trClock]
    container.observe(second)
    _ = try container[\.trClock]
    #expect(first.events.all.count == 1)
    #expect(second.events.all.count == 1)
  }

  @Test func anObservedSingletonIsStillOneInstance() async throws {
    let (container, _) = knownContainer()
    let before = try container[\.trRepository]
    container.observe(TrRecorder())
    #expect(try container[\.trRepository] === before)
    container.observe(nil)
    #expect(try container[\.trRepository] === before)
  }

  // MARK: StartupProfiler

  /// slow parent (singleton) → slow (singleton, sleeps); fast (unique, does not).
  private func profiledContainer() -> Container {
    let container = Container()
    container.register(\.trSlow, scope: .singleton) { () -> TrNode in
      // The slowest factory by its own time; a synchronous factory cannot suspend, so it holds
      // its thread, for 150 ms only.
      Thread.sleep(forTimeInterval: 0.15)
      return TrNode("slow")
    }
    container.register(\.trSlowParent, scope: .singleton) { r in TrNode("slow parent", [try r[\.trSlow]]) }
    container.register(\.trFast) { TrNode("fast") }
    return container
  }

  @Test func profilerListsTheSlowestFactoryFirst() async throws {
    let container = profiledContainer()
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try container[\.trFast]
    _ = try container[\.trSlowParent]
    _ = try container[\.trSlowParent]
    container.observe(nil)
    let entries = profiler.slowestFactories
    // One entry per factory call; the reused singleton does not count.
    #expect(entries.count == 3)
    #expect(Set(entries.map(\.dependency.name)) == ["\\.trSlow", "\\.trSlowParent", "\\.trFast"])
    #expect(entries.first { $0.dependency.name == "\\.trSlow" }?.scope == .singleton)
    // Slowest first by their own time: which factory that is depends on the clock (a loaded
    // machine may hold any factory up), so only the order is checked here; the test below checks
    // which one comes first with durations it sets.
    #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.selfDuration >= $1.selfDuration })
  }

  /// The order, with the durations of the events set by the test, not measured: a parent that
  /// waited 150 ms for its dependency comes after it, since its own time is what it spent itself.
  @Test func profilerRanksByOwnTimeNotTotalTime() {
    let profiler = StartupProfiler()
    func reference(_ name: String) -> DependencyReference {
      DependencyReference(name: name, typeName: "Node", location: nil)
    }
    func event(_ name: String, by asker: String?, _ duration: Duration) -> ResolutionEvent {
      ResolutionEvent(
        dependency: reference(name), requestedBy: asker.map(reference), scope: .singleton, registeredAt: nil,
        depth: asker == nil ? 0 : 1, duration: duration, outcome: .created)
    }
    profiler.didResolve(event("fast", by: nil, .milliseconds(2)))
    profiler.didResolve(event("slow", by: "parent", .milliseconds(150)))
    profiler.didResolve(event("parent", by: nil, .milliseconds(151)))
    let entries = profiler.slowestFactories
    #expect(entries.map(\.dependency.name) == ["slow", "fast", "parent"])
    #expect(entries.map(\.selfDuration) == [.milliseconds(150), .milliseconds(2), .milliseconds(1)])
    #expect(entries.map(\.totalDuration) == [.milliseconds(150), .milliseconds(2), .milliseconds(151)])
    #expect(
      profiler.report(limit: 1).hasSuffix("\n  150.000 ms self, 150.000 ms total  slow (singleton)"),
      "\(profiler.report())")
  }

  @Test func profilerSeparatesSelfTimeFromTotalTime() async throws {
    let container = profiledContainer()
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try container[\.trSlowParent]
    let entries = Dictionary(uniqueKeysWithValues: profiler.slowestFactories.map { ($0.dependency.name, $0) })
    let slow = try #require(entries["\\.trSlow"])
    let parent = try #require(entries["\\.trSlowParent"])
    #expect(slow.selfDuration == slow.totalDuration, "a factory without dependencies")
    #expect(parent.selfDuration + slow.totalDuration == parent.totalDuration)
    #expect(parent.totalDuration >= slow.totalDuration)
  }

  @Test func profilerReportIsATableSlowestFirst() async throws {
    let container = profiledContainer()
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try container[\.trFast]
    _ = try container[\.trSlowParent]
    // The first line is the slowest factory's, whichever the clock made it (see above).
    let slowest = try #require(profiler.slowestFactories.first)
    #expect(
      normalised(profiler.report(limit: 1)) == #"""
        Knapsack start-up: 3 factory call(s), slowest first
          <t> self, <t> total  \#(slowest.dependency.name) (\#(slowest.scope))
        """#)
    let full = profiler.report().components(separatedBy: "\n")
    #expect(full.count == 4)
    #expect(full.dropFirst().allSatisfy { normalised($0).hasPrefix("  <t> self, <t> total  \\.tr") })
  }

  @Test func dependenciesResolvedSideBySideAreDrawnUnderWhatAskedForThem() async throws {
    let container = Container()
    let written = Collected<String>()
    container.observe(ResolutionTracer { written.append($0) })
    _ = try await container.resolve(\.trSideBySide)
    let tree = try #require(written.all.first).components(separatedBy: "\n").map {
      $0.prefix { $0 == " " }.count / 2
    }
    let names = try #require(written.all.first).components(separatedBy: "\n").map {
      String($0.drop { $0 == " " }.prefix { $0 != " " })
    }
    // Each branch is followed by its own leaf, whatever order they finished in.
    let lines = Array(zip(names, tree))
    #expect(lines.count == 5, "\(written.all)")
    #expect(lines.first.map { $0.0 == #"\.trSideBySide"# && $0.1 == 0 } == true)
    for (branch, leaf) in [(#"\.trSlowBranch"#, #"\.trSlowLeaf"#), (#"\.trFastBranch"#, #"\.trFastLeaf"#)] {
      let position = try #require(lines.firstIndex { $0.0 == branch }, "\(written.all)")
      #expect(lines[position].1 == 1)
      #expect(lines[position + 1].0 == leaf && lines[position + 1].1 == 2, "\(written.all)")
    }
  }

  @Test func profilerCountsDependenciesResolvedSideBySideOnce() async throws {
    let container = Container()
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try await container.resolve(\.trSideBySide)
    let entries = Dictionary(uniqueKeysWithValues: profiler.slowestFactories.map { ($0.dependency.name, $0) })
    let parent = try #require(entries[#"\.trSideBySide"#])
    let slow = try #require(entries[#"\.trSlowBranch"#])
    // The branches overlap: the parent's own time is its time less the slower branch's, not
    // less both (which would be negative).
    #expect(parent.selfDuration >= .zero)
    #expect(parent.selfDuration <= parent.totalDuration - slow.totalDuration + .milliseconds(5))
    #expect(profiler.slowestFactories.allSatisfy { $0.selfDuration >= .zero && $0.selfDuration <= $0.totalDuration })
    // The report is written whatever the durations (it stopped the program on a negative one).
    #expect(profiler.report().components(separatedBy: "\n").count == 6)
  }

  @Test func emptyProfilerReportsNoCalls() async {
    let profiler = StartupProfiler()
    #expect(profiler.slowestFactories.isEmpty)
    #expect(profiler.report() == "Knapsack start-up: 0 factory call(s), slowest first")
  }
}

extension Dependencies {
  var trNobodysKey: Key<Int> { .required() }
  var trNobodysAsyncKey: AsyncKey<Int> { .required() }
  var trNobodysMainKey: MainActorKey<Int> { .required() }
  var trNobodysArgumentKey: ArgumentKey<Int, Int> { .required() }
}

/// A resolution of a key that nothing provides fails, and the observer hears of it, whatever the
/// key's kind: with the outcome failed and no registration site.
@Suite struct TracingOfMissingKeysTests {
  @Test func aMissingKeyOfEveryKindIsObservedAsFailed() async throws {
    let container = Container()
    let recorder = SpecRecorder()
    container.observe(recorder)
    #expect(throws: ResolutionError.self) { try container[\.trNobodysKey] }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.trNobodysAsyncKey) }
    await #expect(throws: ResolutionError.self) { try await container.resolve(\.trNobodysMainKey) }
    #expect(throws: ResolutionError.self) { try container.resolve(\.trNobodysArgumentKey, argument: 1) }
    let failed = recorder.events.filter { $0.outcome == .failed && $0.registeredAt == nil }.map(\.dependency.name)
    #expect(
      failed.sorted() == ["\\.trNobodysArgumentKey", "\\.trNobodysAsyncKey", "\\.trNobodysKey", "\\.trNobodysMainKey"])
  }

  @Test func aMissingKeyIsNotObservedOnceTheObserverIsRemoved() throws {
    let container = Container()
    let recorder = SpecRecorder()
    container.observe(recorder)
    container.observe(nil)
    #expect(throws: ResolutionError.self) { try container[\.trNobodysKey] }
    #expect(recorder.events.isEmpty)
  }
}
