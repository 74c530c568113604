import Knapsack
import Testing

/// What a dry run costs, counted in factory calls, as the Diagnostics article states it: at most
/// what resolving each registration once costs in the app, with a unique dependency run once for
/// each factory that asks for it within one resolution, and a graph-scoped one once.
@Suite struct ValidationCostTests {
  /// A diamond `levels` deep of named `Int` registrations in `scope`: each level asks twice for
  /// the next; `deepest` counts the calls of the last level's factory.
  static func diamond(levels: Int, scope: Scope, deepest: Counter) -> Container {
    let container = Container()
    container.register(type: Int.self, name: "diamond \(levels)", scope: scope) {
      deepest.increment()
      return 1
    }
    for level in 0..<levels {
      let next = "diamond \(level + 1)"
      container.register(type: Int.self, name: "diamond \(level)", scope: scope) { r in
        try r.resolve(type: Int.self, name: next) &+ r.resolve(type: Int.self, name: next)
      }
    }
    return container
  }

  @Test func aUniqueDiamondRunsItsDeepestLevelAsOftenAsOneResolutionDoes() async throws {
    let levels = 10
    let inTheApp = Counter()
    #expect(
      try Self.diamond(levels: levels, scope: .unique, deepest: inTheApp).resolve(type: Int.self, name: "diamond 0")
        == 1 << levels)
    let inTheRun = Counter()
    let report = await Self.diamond(levels: levels, scope: .unique, deepest: inTheRun).validate()
    #expect(report.isValid)
    // Every level is a root of its own, but a root another root's run already made is not run
    // again: no more than the resolution of the top level.
    #expect(inTheRun.count <= inTheApp.count)
    #expect(inTheRun.count >= 1)
  }

  @Test func aGraphScopedDiamondRunsEachLevelOncePerRoot() async throws {
    let levels = 200
    let inTheApp = Counter()
    _ = try Self.diamond(levels: levels, scope: .graph, deepest: inTheApp).resolve(type: Int.self, name: "diamond 0")
    #expect(inTheApp.count == 1)
    let inTheRun = Counter()
    let report = await Self.diamond(levels: levels, scope: .graph, deepest: inTheRun).validate()
    #expect(report.isValid)
    // Linear: at most once for each of the 201 roots.
    #expect(inTheRun.count <= levels + 1)
  }
}
