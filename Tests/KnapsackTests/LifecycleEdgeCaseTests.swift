import Foundation
import Knapsack
import Synchronization
import Testing

// Edge cases: each test fails if the behaviour it names is broken, which no other test of the
// suite notices.

/// A disposable value (not an object): `resetCached()` cannot tell it apart by identity.
struct EdgeDisposableValue: Disposable {
  let label: String
  let log: Collected<String>
  func dispose() async throws { log.append(label) }
}

extension Dependencies {
  var edgeCachedValue: Key<EdgeDisposableValue> { .required() }
}

@Suite struct LifecycleEdgeCaseTests {
  /// What a cached key's factory made before its decorator failed is kept only to be
  /// disposed of with the container: `resetCached()` disposes of the cached instance, not it.
  @Test func resetCachedLeavesWhatAFailedDecorationLeftForTheContainer() async throws {
    let container = Container()
    let log = Collected<String>()
    let made = Counter()
    let fails = Atomic<Bool>(true)
    container.register(\.edgeCachedValue, scope: .cached) {
      EdgeDisposableValue(label: made.increment() == 1 ? "left by the failure" : "cached", log: log)
    }
    container.decorate(\.edgeCachedValue) { _, value in
      if fails.load(ordering: .relaxed) { throw PlannedFailure("decorator fails") }
      return value
    }
    #expect(throws: (any Error).self) { try container[\.edgeCachedValue] }
    fails.store(false, ordering: .relaxed)
    #expect(try container[\.edgeCachedValue].label == "cached")
    container.resetCached()
    // The disposal runs in a task of its own.
    for _ in 0..<200 where log.all.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
    try await Task.sleep(for: .milliseconds(50))
    #expect(log.all == ["cached"])
    try await container.dispose()
    #expect(log.all == ["cached", "left by the failure"])
  }
}
