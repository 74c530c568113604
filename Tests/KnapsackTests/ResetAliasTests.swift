import Knapsack
import Testing

extension Dependencies {
  var raCached: Key<LcResource> { .required() }
  var raAlias: Key<LcResource> { .required() }
  var raMarker: Key<LcResource> { .required() }
  var raFile: Key<LcFileHandle> { .required() }
  var raFileAlias: Key<LcFileHandle> { .required() }
}

/// A cache reset drops, and disposes of, the cached instances: not one that another key, which
/// the reset does not clear, still hands out.
@Suite struct ResetAliasTests {
  /// A singleton that hands out a cached key's instance keeps handing it out after a reset: the
  /// reset must not close it under the singleton.
  @Test func aResetDoesNotCloseACachedInstanceASingletonStillHandsOut() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.raMarker, scope: .cached) { LcResource("marker", log: log) }
    container.register(\.raCached, scope: .cached) { LcResource("a", log: log) }
    container.register(\.raAlias, scope: .singleton) { r in try r[\.raCached] }
    _ = try container[\.raMarker]
    let b = try container[\.raAlias]
    container.resetCached()
    // The marker, made first, is disposed last by the background disposal.
    #expect(await waitUntil(timeout: hangBound) { log.all.contains("marker") })
    #expect(try container[\.raAlias] === b)
    #expect(b.disposals.count == 0, "the singleton's instance was closed by the reset")
    try await container.dispose()
    #expect(b.disposals.count == 1)
  }

  @Test func aParentsResetDoesNotCloseWhatAChildsSingletonHandsOut() async throws {
    let log = Collected<String>()
    let parent = Container()
    parent.register(\.raMarker, scope: .cached) { LcResource("marker", log: log) }
    parent.register(\.raCached, scope: .cached) { LcResource("a", log: log) }
    let child = parent.makeChild()
    child.register(\.raAlias, scope: .singleton) { r in try r[\.raCached] }
    _ = try parent[\.raMarker]
    let b = try child[\.raAlias]
    parent.resetCached()
    #expect(await waitUntil(timeout: hangBound) { log.all.contains("marker") })
    #expect(try child[\.raAlias] === b)
    #expect(b.disposals.count == 0, "the child's singleton was closed by the parent's reset")
    try await parent.dispose()
    #expect(b.disposals.count == 1)
  }

  /// The same when only the cached key's registration disposes of the value (its `dispose:`
  /// closure), and the singleton's would not.
  @Test func aResetDoesNotRunTheCachedKeysDisposeClosureOnWhatASingletonHandsOut() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.raMarker, scope: .cached) { LcResource("marker", log: log) }
    container.register(\.raFile, scope: .cached, dispose: { file in log.append(file.name) }) { LcFileHandle("file") }
    container.register(\.raFileAlias, scope: .singleton) { r in try r[\.raFile] }
    _ = try container[\.raMarker]
    let file = try container[\.raFileAlias]
    container.resetCached()
    #expect(await waitUntil(timeout: hangBound) { log.all.contains("marker") })
    #expect(try container[\.raFileAlias] === file)
    #expect(try container[\.raFile] !== file)
    #expect(log.all == ["marker"], "the singleton's instance was closed by the reset")
    try await container.dispose()
    #expect(log.all == ["marker", "file", "file"])
  }

  /// Two cached keys of one container that hand out one instance are cleared together: the
  /// reset drops it, and disposes of it once.
  @Test func aCachedInstanceTwoCachedKeysHandOutIsStillDroppedByAReset() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.raCached, scope: .cached) { LcResource("a", log: log) }
    container.register(\.raAlias, scope: .cached) { r in try r[\.raCached] }
    let a = try container[\.raAlias]
    container.resetCached()
    #expect(await waitUntil(timeout: hangBound) { a.disposals.count == 1 }, "the dropped instance was kept")
    try await container.dispose()
    #expect(a.disposals.count == 1)
  }
}
