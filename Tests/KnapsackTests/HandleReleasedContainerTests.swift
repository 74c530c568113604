import Knapsack
import Testing

/// A singleton that keeps a `Lazy` of a dependency of its container.
final class HrcHolder: Sendable {
  let clock: Lazy<Key<Int>>
  init(_ clock: Lazy<Key<Int>>) { self.clock = clock }
}

extension Dependencies {
  var hrcClock: Key<Int> { Key { 7 } }
  var hrcHolder: Key<HrcHolder> { Key { r in HrcHolder(r.lazy(\.hrcClock)) }.scope(.singleton) }
}

@Suite struct HandleReleasedContainerTests {
  /// The singleton outlives its container, which its handle holds weakly: reading the handle
  /// fails with an error that says the container was released (not disposed), names the line
  /// that made the handle, and says what to do about it.
  @Test func aHandleReadAfterItsContainerWasReleasedSaysSoAndWhereItWasMade() async throws {
    weak var released: Container?
    let holder: HrcHolder = try {
      let container = Container()
      released = container
      return try container[\.hrcHolder]
    }()
    #expect(await freedSoon { released == nil }, "the container was not released")
    let error = try #require(throws: ResolutionError.self) { try holder.clock.value }
    #expect(error.kind == .containerDisposed)
    #expect(error.requestedAt == CodeLocation(fileID: "KnapsackTests/HandleReleasedContainerTests.swift", line: 12))
    #expect(error.description.contains("its container, which was released (not disposed;"), "\(error)")
    #expect(error.description.contains("asked for at KnapsackTests/HandleReleasedContainerTests.swift:12"), "\(error)")
    #expect(error.description.contains("fix: keep the container for as long as the instances it made are used"))
    #expect(!error.description.contains("a disposed one stays disposed"))
  }
}
