import Dispatch
import Knapsack
import Synchronization
import Testing

private protocol Sink: Sendable { var label: String { get } }
private final class PlainSink: Sink {
  let label: String
  init(_ label: String) { self.label = label }
}
private final class Fresh: Sendable {}
private final class HoldingSink: Sink {
  let label: String
  let fresh: Fresh
  init(_ label: String, _ fresh: Fresh) { (self.label, self.fresh) = (label, fresh) }
}
private final class SinkReader: Sendable {
  let sinks: [any Sink]
  init(_ sinks: [any Sink]) { self.sinks = sinks }
}
@MainActor private final class HuntScreen {
  let serial: Int
  init(_ serial: Int) { self.serial = serial }
}
private final class HuntSession: Sendable {}

extension Dependencies {
  fileprivate var hfSinks: Multibinding<any Sink> { Multibinding() }
  fileprivate var hfFresh: Key<Fresh> { Key { Fresh() } }
  fileprivate var hfReader: Key<SinkReader> { Key { r in SinkReader(try r[\.hfSinks]) } }
  fileprivate var hfScreen: MainActorKey<HuntScreen> { MainActorKey { HuntScreen(7) } }
  fileprivate var hfMissing: Key<HuntSession> { .required() }
  fileprivate var hfDetail: DependencyKey<MainActorKind, Int, HuntScreen> {
    DependencyKey { r, n in
      _ = try r[\.hfMissing]
      return HuntScreen(n)
    }
  }
  fileprivate var hfDetailHost: MainActorKey<HuntScreen> {
    MainActorKey { r in try r.resolve(\.hfDetail, argument: 7) }
  }
  fileprivate var hfRemote: DependencyKey<AsyncKind, String, HuntSession> {
    DependencyKey { r, _ in try r[\.hfMissing] }
  }
  fileprivate var hfRemoteHost: AsyncKey<HuntSession> {
    AsyncKey { r in try await r.resolve(\.hfRemote, argument: "real") }
  }
  fileprivate var hfProfile: ArgumentKey<Int, HuntSession> { ArgumentKey { _, _ in HuntSession() } }
  fileprivate var hfProfileHolder: Key<HuntSession> { Key { r in try r.resolve(\.hfProfile, argument: 1) } }
  fileprivate var hfNobodyAsks: ArgumentKey<Int, HuntSession> { ArgumentKey { r, _ in try r[\.hfMissing] } }
}

/// One helper called twice contributes twice from one line.
private func addSink(_ container: Container, scope: Scope, _ label: String) {
  container.contribute(to: \.hfSinks, scope: scope) { r in HoldingSink(label, try r[\.hfFresh]) }
}

/// Findings of user-side hunts: contributions from one line, main-actor code inside a
/// `DispatchQueue.sync` block, argument keys a factory ran, the profiler and a multibinding.
@Suite struct HuntFindingsStop66Tests {
  @Test func contributionsFromOneLineAreToldApartByValidation() async {
    let container = Container()
    for scope in [Scope.unique, .singleton] {
      container.contribute(to: \.hfSinks, scope: scope) { r in HoldingSink("\(scope)", try r[\.hfFresh]) }
    }
    let report = await container.validate()
    let captives = report.problems(.captiveDependency)
    #expect(captives.count == 1, "\(report)")
    #expect(captives.first?.dependency.name.hasSuffix("#2") == true, "\(report)")
    #expect(captives.first?.message.contains("holds \\.hfFresh") == true, "\(report)")
    #expect(report.checkedCount == 3, "\(report)")
  }

  @Test func contributionsFromOneLineAreNodesOfTheirOwnInTheGraph() async throws {
    let container = Container()
    for (label, scope) in [("a", Scope.unique), ("b", .singleton), ("c", .unique)] {
      container.contribute(to: \.hfSinks, scope: scope) { PlainSink(label) as any Sink }
    }
    #expect(try container[\.hfReader].sinks.map(\.label) == ["a", "b", "c"])
    let graph = await container.graph(including: [\.hfReader])
    let contributions = graph.nodes.filter { $0.dependency.name.contains("contribution") }
    #expect(contributions.count == 3, "\(graph.nodes.map(\.dependency.name))")
    #expect(Set(contributions.map(\.dependency.name)).count == 3)
    #expect(contributions.map(\.scope).filter { $0 == .singleton }.count == 1)
    #expect(contributions.map(\.dependency.name).filter { $0.hasSuffix("#2") || $0.hasSuffix("#3") }.count == 2)
  }

  @Test func aHelperCalledInAParentAndItsChildMakesTwoNodes() async {
    let parent = Container()
    addSink(parent, scope: .unique, "parent")
    let child = parent.makeChild()
    addSink(child, scope: .singleton, "child")
    let report = await child.validate()
    #expect(report.problems(.captiveDependency).count == 1, "\(report)")
    let graph = await child.graph()
    #expect(graph.nodes.filter { $0.dependency.name.contains("contribution") }.count == 2)
  }

  @Test func numbersAreGivenAgainByTheNextContainer() {
    // Names follow what one container sees, so each new container names its contributions alike.
    func names() throws -> [String] {
      let container = Container()
      for label in ["x", "y"] { container.contribute(to: \.hfSinks) { PlainSink(label) as any Sink } }
      let seen = NameLog()
      container.observe(RecordingNames { seen.append($0) })
      _ = try container[\.hfSinks]
      return seen.all
    }
    #expect(throws: Never.self) {
      let first = try names()
      #expect(first.filter { $0.contains("contribution") }.count == 2)
      #expect(try names() == first)
    }
  }

  @Test func theFixForAParentContributionThatNeedsAChildKeyDoesNotSayRegisterIt() async {
    let parent = Container()
    parent.contribute(to: \.hfSinks, scope: .singleton) { r in
      PlainSink(String(describing: try r[\.hfMissing])) as any Sink
    }
    let child = parent.makeChild()
    child.register(\.hfMissing) { HuntSession() }
    let report = await child.validate(including: [\.hfReader])
    let problem = report.problems(.captiveDependency).first
    #expect(problem != nil, "\(report)")
    let text = problem.map { "\($0)" } ?? ""
    #expect(text.contains("make that contribution in this child instead"), "\(text)")
    #expect(!text.contains("register \\.hfSinks contribution"), "\(text)")
  }

  @MainActor @Test func aMainActorKeyResolvesInsideADispatchQueueSyncBlockOnTheMainThread() throws {
    let container = Container()
    let queue = DispatchQueue(label: "knapsack.tests.lock")
    let serial = try queue.sync {
      try MainActor.assumeIsolated { try container[\.hfScreen].serial }
    }
    #expect(serial == 7)
  }

  @Test func anArgumentKeyAFactoryRanIsNotListedAsNeedingASample() async {
    let container = Container()
    let report = await container.validate(including: [\.hfDetailHost, \.hfRemoteHost, \.hfNobodyAsks])
    let names = report.needsSampleArgument.map(\.name)
    #expect(!names.contains("\\.hfDetail"), "\(report)")
    #expect(!names.contains("\\.hfRemote"), "\(report)")
    #expect(names.contains("\\.hfNobodyAsks"), "\(report)")
    let paths = report.problems(.requiredKeyNotProvided).map { $0.path.map(\.name) }
    #expect(paths.contains { $0.starts(with: ["\\.hfDetailHost", "\\.hfDetail"]) }, "\(report)")
    #expect(paths.contains { $0.starts(with: ["\\.hfRemoteHost", "\\.hfRemote"]) }, "\(report)")
  }

  @Test func theStartupProfilerCountsContributionsNotTheMultibinding() throws {
    let container = Container()
    for label in ["a", "b"] { container.contribute(to: \.hfSinks) { PlainSink(label) as any Sink } }
    let profiler = StartupProfiler()
    container.observe(profiler)
    _ = try container[\.hfReader]
    let names = profiler.slowestFactories.map(\.dependency.name)
    #expect(names.count == 3, "\(names)")
    #expect(!names.contains("\\.hfSinks"), "\(names)")
    #expect(names.contains("\\.hfReader"))
  }

  @Test func aParentContributingAfterItsChildFromTheSameLineIsToldApart() async {
    let parent = Container()
    let child = parent.makeChild()
    addSink(child, scope: .singleton, "child")
    addSink(parent, scope: .unique, "parent")
    let report = await child.validate()
    #expect(report.problems(.captiveDependency).count == 1, "\(report)")
    let graph = await child.graph()
    #expect(graph.nodes.filter { $0.dependency.name.contains("contribution") }.count == 2)
  }

  @Test func contributionsMadeAtOnceFromOneLineGetNamesOfTheirOwn() async throws {
    let container = Container()
    await withTaskGroup(of: Void.self) { group in
      for number in 0..<32 {
        group.addTask { container.contribute(to: \.hfSinks) { PlainSink("\(number)") as any Sink } }
      }
    }
    let names = NameLog()
    container.observe(RecordingNames { names.append($0) })
    #expect(try container[\.hfSinks].count == 32)
    let contributions = names.all.filter { $0.contains("contribution") }
    #expect(contributions.count == 32)
    #expect(Set(contributions).count == 32, "\(contributions)")
  }

  @Test func anArgumentKeyRunOnlyByAParentForItsOwnRegistrationIsStillListed() async {
    let parent = Container()
    parent.register(\.hfProfileHolder, scope: .singleton) { r in try r.resolve(\.hfProfile, argument: 1) }
    let child = parent.makeChild()
    // The child's own registration, which nothing ran: its missing dependency is not checked.
    child.register(\.hfProfile) { r, _ in try r[\.hfMissing] }
    let report = await child.validate(including: [\.hfProfileHolder])
    #expect(report.needsSampleArgument.map(\.name) == ["\\.hfProfile"], "\(report)")
    #expect(report.problems(.requiredKeyNotProvided).isEmpty, "\(report)")
  }
}

/// Names, appended from any thread.
private final class NameLog: Sendable {
  private let names = Mutex<[String]>([])
  func append(_ name: String) { names.withLock { $0.append(name) } }
  var all: [String] { names.withLock { $0 } }
}

/// Hands each resolved dependency's name to `note`.
private final class RecordingNames: ResolutionObserver, Sendable {
  let note: @Sendable (String) -> Void
  init(_ note: @escaping @Sendable (String) -> Void) { self.note = note }
  func willResolve(_ dependency: DependencyReference, depth: Int) {}
  func didResolve(_ event: ResolutionEvent) { note(event.dependency.name) }
}
