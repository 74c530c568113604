import Knapsack
import Testing

extension Dependencies {
  fileprivate var scopedConnection: Key<Token> { Key { Token("connection") }.scope(.singleton) }
}

/// An override scope whose task is cancelled (a test cut short by its time limit, under the
/// `.overrides` trait) still disposes what it made: its disposal runs in a task of its own, as a
/// container's does, so a `dispose` that awaits something cancellable completes. It used to run
/// in the cancelled task, where such a `dispose` failed at once, its error ignored, and the
/// resource stayed open.
@Suite struct CancelledScopeDisposalTests {
  /// A `dispose` closure that awaits a cancellable sleep before it closes, counting closes.
  private static func closing(_ closed: Counter) -> @Sendable (Token) async throws -> Void {
    { _ in
      try await Task.sleep(for: .milliseconds(1))
      closed.increment()
    }
  }

  @Test(.hangGuard) func aCancelledScopeStillDisposesWhatItMade() async throws {
    let container = Container()
    let closed = Counter()
    let inUse = Counter()
    let test = Task {
      try await withOverrides {
        $0.register(\.scopedConnection, scope: .singleton, dispose: Self.closing(closed)) { Token("fake") }
      } operation: { () async throws in
        _ = try container[\.scopedConnection]
        inUse.increment()
        // Runs until the task is cancelled.
        try? await Task.sleep(for: .seconds(600))
      }
    }
    #expect(await waitUntil(timeout: hangBound) { inUse.count == 1 })
    test.cancel()
    _ = await test.result
    #expect(closed.count == 1)
  }

  @Test(.hangGuard) func aCancelledCallerOfDisposeStillDisposesEverything() async throws {
    let container = Container()
    let closed = Counter()
    container.register(\.scopedConnection, scope: .singleton, dispose: Self.closing(closed)) { Token("real") }
    _ = try container[\.scopedConnection]
    let shutdown = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await container.dispose()
    }
    try await shutdown.value
    #expect(closed.count == 1)
    #expect(container.isDisposed)
  }

  @Test(.hangGuard) func disposingAContainerInACancelledScopeDisposesItsCopy() async throws {
    let container = Container()
    let closed = Counter()
    try await withOverrides {
      $0.register(\.scopedConnection, scope: .singleton, dispose: Self.closing(closed)) { Token("fake") }
    } operation: { () async throws in
      _ = try container[\.scopedConnection]
      withUnsafeCurrentTask { $0?.cancel() }
      try await container.dispose()
      #expect(closed.count == 1)
    }
    #expect(closed.count == 1)
  }
}
