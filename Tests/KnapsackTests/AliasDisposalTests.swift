import Knapsack
import Testing

extension Dependencies {
  var adParentKey: Key<LcResource> { .required() }
  var adChildKey: Key<LcResource> { .required() }
}

/// An object that a container's key and a key below it (a child's, an override scope's) both hand
/// out, made first below: it is disposed once, with the container that outlives the other, and
/// never closed under that container's key while it still hands it out.
@Suite struct AliasDisposalTests {
  @Test(arguments: [false, true])
  func anObjectMadeFirstInAChildThatTheParentHandsOutTooIsDisposedOnceWithTheParent(
    disposingTheChildFirst: Bool
  ) async throws {
    let log = Collected<String>()
    let shared = LcResource("shared", log: log)
    let parent = Container()
    parent.register(\.adParentKey, scope: .singleton) { shared }
    let child = parent.makeChild()
    child.register(\.adChildKey, scope: .singleton) { shared }
    _ = try child[\.adChildKey]
    _ = try parent[\.adParentKey]
    if disposingTheChildFirst {
      // A session ends: the parent still hands the object out.
      try await child.dispose()
      #expect(shared.disposals.count == 0, "the child closed what its parent still hands out")
    }
    try await parent.dispose()
    withExtendedLifetime(child) {}
    #expect(shared.disposals.count == 1)
  }

  @Test func anObjectMadeFirstInAnOverrideScopeThatTheContainerHandsOutTooIsClosedWithTheContainer()
    async throws
  {
    let log = Collected<String>()
    let shared = LcResource("shared", log: log)
    let container = Container()
    container.register(\.adParentKey, scope: .singleton) { shared }
    try await withOverrides { overrides in
      overrides.register(\.adChildKey, scope: .singleton) { shared }
    } operation: {
      _ = try container[\.adChildKey]
      // The container itself, outside the scope, hands it out too.
      _ = try await Task.detached { try container[\.adParentKey] }.value
    }
    #expect(shared.disposals.count == 0, "the scope closed what the container still hands out")
    try await container.dispose()
    #expect(shared.disposals.count == 1)
  }
}
