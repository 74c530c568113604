import Knapsack
import Synchronization
import Testing

extension Dependencies {
  var rdFirst: Key<LcResource> { .required() }
  var rdGated: Key<LcGatedResource> { .required() }
}

/// What a cache reset dropped is disposed in the background; disposing the container waits for
/// it, so that a shutdown that resets, then disposes, leaves nothing open.
@Suite struct ResetThenDisposeTests {
  @Test func disposeClosesWhatAResetDroppedBeforeItReturns() async throws {
    let log = Collected<String>()
    let container = Container()
    container.register(\.rdFirst, scope: .cached) { LcResource("first", log: log) }
    container.register(\.rdGated, scope: .cached) { LcGatedResource() }
    let first = try container[\.rdFirst]
    // Made last, so the background disposal closes it first: it holds up the rest until opened.
    let gated = try container[\.rdGated]
    container.resetCached()
    await gated.waitUntilStarted()
    let returned = Atomic<Bool>(false)
    // Opens the gate once `dispose()` returned, or once it closed `first` itself.
    let opener = Task {
      _ = await waitUntil(timeout: hangBound) {
        returned.load(ordering: .acquiring) || first.disposals.count > 0
      }
      gated.open()
    }
    try await container.dispose()
    let firstClosed = first.disposals.count == 1
    let gatedClosed = gated.isClosed
    returned.store(true, ordering: .releasing)
    await opener.value
    #expect(firstClosed, "dispose() returned before what the reset dropped was closed")
    #expect(gatedClosed, "dispose() returned before the dropped instance being closed was")
    #expect(await waitUntil(timeout: hangBound) { first.disposals.count == 1 })
    #expect(first.disposals.count == 1)
  }
}
