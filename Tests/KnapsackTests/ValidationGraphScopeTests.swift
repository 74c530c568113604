import Knapsack
import Synchronization
import Testing

/// A unit of work that can be begun once, shared (graph scope) by the writers of one resolution.
private final class GraphUnitOfWork: Sendable {
  private let begun = Atomic<Bool>(false)
  var isBegun: Bool { begun.load(ordering: .relaxed) }
  func begin() throws { if begun.exchange(true, ordering: .relaxed) { throw GraphAlreadyBegun() } }
}

private struct GraphAlreadyBegun: Error, CustomStringConvertible {
  var description: String { "the unit of work was already begun" }
}

private struct GraphNotBegun: Error, CustomStringConvertible {
  var description: String { "the unit of work was not begun" }
}

private struct GraphNotShared: Error, CustomStringConvertible {
  var description: String { "the writers do not share one unit of work" }
}

private struct GraphWriter: Sendable { let work: GraphUnitOfWork }
private struct GraphSaver: Sendable {
  let items: GraphWriter
  let tags: GraphWriter
}

extension Dependencies {
  fileprivate var gsWork: Key<GraphUnitOfWork> { Key { GraphUnitOfWork() }.scope(.graph) }
  /// Each writer begins the unit of work: two in one resolution fail.
  fileprivate var gsBeginningItems: Key<GraphWriter> { Key { r in try Self.begun(r) } }
  fileprivate var gsBeginningTags: Key<GraphWriter> { Key { r in try Self.begun(r) } }
  fileprivate var gsBeginningSaver: Key<GraphSaver> {
    Key { r in GraphSaver(items: try r[\.gsBeginningItems], tags: try r[\.gsBeginningTags]) }
  }
  /// Writers that take the unit of work as it is; the saver checks that they share it.
  fileprivate var gsItems: Key<GraphWriter> { Key { r in GraphWriter(work: try r[\.gsWork]) } }
  fileprivate var gsTags: Key<GraphWriter> { Key { r in GraphWriter(work: try r[\.gsWork]) } }
  fileprivate var gsSaver: Key<GraphSaver> {
    Key { r in
      let saver = GraphSaver(items: try r[\.gsItems], tags: try r[\.gsTags])
      guard saver.items.work === saver.tags.work else { throw GraphNotShared() }
      return saver
    }
  }
  /// A writer that needs the unit of work begun by someone else in its resolution: alone, it
  /// fails (down a path of two, `\.gsAlone → \.gsNeedsBegun`); below `\.gsStarter`, which begins
  /// it first, it does not.
  fileprivate var gsAlone: Key<GraphWriter> { Key { r in try r[\.gsNeedsBegun] } }
  fileprivate var gsNeedsBegun: Key<GraphWriter> {
    Key { r in
      let work = try r[\.gsWork]
      guard work.isBegun else { throw GraphNotBegun() }
      return GraphWriter(work: work)
    }
  }
  fileprivate var gsStarter: Key<GraphSaver> {
    Key { r in
      let work = try r[\.gsWork]
      try work.begin()
      let alone = try r[\.gsAlone]
      return GraphSaver(items: alone, tags: try r[\.gsMissing])
    }
  }
  fileprivate var gsMissing: Key<GraphWriter> { .required() }

  private static func begun(_ r: Resolver) throws -> GraphWriter {
    let work = try r[\.gsWork]
    try work.begin()
    return GraphWriter(work: work)
  }
}

/// A validation run reuses what an earlier root made or how it failed (see Diagnostics.md); a
/// graph-scoped instance is its resolution's own, so a root that made one is not reused: what
/// validation reports matches what resolving each key does, whichever keys are named.
@Suite struct ValidationGraphScopeTests {
  @Test func twoWritersThatBeginOneUnitOfWorkAreReportedWhateverTheRootsAre() async throws {
    let container = Container()
    #expect(throws: ResolutionError.self) { try container[\.gsBeginningSaver] }
    for roots: [PartialKeyPath<Dependencies>] in [
      [\.gsBeginningSaver], [\.gsBeginningItems, \.gsBeginningSaver, \.gsBeginningTags],
      [\.gsBeginningTags, \.gsBeginningItems, \.gsBeginningSaver],
    ] {
      let report = await container.validate(including: roots)
      let problem = try #require(report.problems(.factoryFailed).first, "\(roots): \(report)")
      #expect(problem.path.first?.name == "\\.gsBeginningSaver", "\(report)")
      #expect(problem.description.contains("already begun"), "\(report)")
    }
  }

  @Test func writersThatShareAUnitOfWorkAreNotReportedWhateverTheRootsAre() async throws {
    let container = Container()
    _ = try container[\.gsSaver]
    for roots: [PartialKeyPath<Dependencies>] in [
      [\.gsSaver], [\.gsItems, \.gsSaver], [\.gsItems, \.gsSaver, \.gsTags], [\.gsTags, \.gsSaver],
    ] {
      let report = await container.validate(including: roots)
      #expect(report.isValid, "\(roots): \(report)")
    }
  }

  /// With registrations instead of `including:`, the same.
  @Test func registeredWritersAreJudgedByTheirOwnResolutions() async throws {
    let container = Container()
    container.register(\.gsItems) { r in GraphWriter(work: try r[\.gsWork]) }
    container.register(\.gsTags) { r in GraphWriter(work: try r[\.gsWork]) }
    container.register(\.gsSaver) { r in
      let saver = GraphSaver(items: try r[\.gsItems], tags: try r[\.gsTags])
      guard saver.items.work === saver.tags.work else { throw GraphNotShared() }
      return saver
    }
    #expect(await container.validate().isValid)
  }

  /// `\.gsAlone` fails as a root (nothing began the unit of work), but not below `\.gsStarter`;
  /// there the run goes on to the missing key, which only `\.gsStarter` asks for. (Remembered as
  /// failed, `\.gsAlone` would stop `\.gsStarter`'s run at once, and the missing key would go
  /// unreported.)
  @Test func aRootThatFailedWithAGraphInstanceDoesNotStopAnotherRootsRun() async throws {
    let container = Container()
    let report = await container.validate(including: [\.gsAlone, \.gsStarter])
    let failed = try #require(report.problems(.factoryFailed).first, "\(report)")
    #expect(failed.path.map(\.name) == ["\\.gsAlone", "\\.gsNeedsBegun"], "\(report)")
    let missing = try #require(report.problems(.requiredKeyNotProvided).first, "\(report)")
    #expect(missing.path.map(\.name) == ["\\.gsStarter", "\\.gsMissing"], "\(report)")
    // What resolving it throws.
    let error = try #require(throws: ResolutionError.self) { try container[\.gsStarter] }
    #expect(error.kind == .requiredKeyNotProvided)
    #expect(error.path.map(\.name) == missing.path.map(\.name))
  }
}
