import Knapsack
import Synchronization
import Testing

/// A `Disposable` whose `dispose()` disposes a container whose disposal is what called it: the
/// call returns at once instead of waiting for the disposal that waits for it.
@Suite(.hangGuard) struct ReentrantDisposalTests {
  /// A session that closes its container when it is closed, the way an owner of a scope would.
  final class ClosesItsContainer: Disposable {
    let container: Container
    let closed = Atomic<Int>(0)
    init(_ container: Container) { self.container = container }
    func dispose() async throws {
      closed.add(1, ordering: .relaxed)
      try await container.dispose()
    }
  }

  /// Disposes `container` in a task of its own, and says whether that ended without an error. A
  /// disposal that waits for itself never ends: the suite's time limit stops the wait. No clock
  /// of its own: on a busy pool the task may wait long for a thread (a deadline on the clock ran
  /// out while it was still queued, with the whole suite on a loaded machine).
  func disposes(_ container: Container) async -> Bool {
    await ended { (try? await container.dispose()) != nil } == true
  }

  @Test func anInstanceThatDisposesItsOwnContainerDoesNotHangTheDisposal() async throws {
    let container = Container()
    container.register(type: ClosesItsContainer.self, scope: .singleton) { ClosesItsContainer(container) }
    let session = try container.resolve(type: ClosesItsContainer.self)
    #expect(await disposes(container), "dispose() waited for itself")
    #expect(session.closed.load(ordering: .relaxed) == 1)
    #expect(throws: ResolutionError.self) { try container.resolve(type: ClosesItsContainer.self) }
  }

  @Test func aChildsInstanceThatDisposesTheParentDoesNotHangTheParentsDisposal() async throws {
    let parent = Container()
    let child = parent.makeChild()
    child.register(type: ClosesItsContainer.self, scope: .singleton) { ClosesItsContainer(parent) }
    let session = try child.resolve(type: ClosesItsContainer.self)
    #expect(await disposes(parent), "the parent's dispose() waited for the child, which waited for the parent")
    #expect(session.closed.load(ordering: .relaxed) == 1)
  }

  /// The session alone is disposed (a sign-out), and its instance closes the app's container:
  /// the app's disposal waits for the session's, which waited for the app's. The call returns at
  /// once, and the app's disposal goes on when the session's ends.
  @Test(arguments: [1, 3])
  func aDescendantsInstanceThatDisposesItsAncestorDoesNotHangTheDescendantsDisposal(depth: Int) async throws {
    let app = Container()
    var session = app.makeChild()
    for _ in 1..<depth { session = session.makeChild() }
    let closedInApp = Atomic<Int>(0)
    app.register(type: Int.self, scope: .singleton, dispose: { _ in closedInApp.add(1, ordering: .relaxed) }) { 7 }
    _ = try app.resolve(type: Int.self)
    session.register(type: ClosesItsContainer.self, scope: .singleton) { ClosesItsContainer(app) }
    let closing = try session.resolve(type: ClosesItsContainer.self)
    #expect(await disposes(session), "the session's dispose() waited for the app's, which waited for the session's")
    #expect(closing.closed.load(ordering: .relaxed) == 1)
    #expect(app.isDisposed)
    // The app's disposal, begun from the session's, ends: a later call waits for it.
    #expect(await disposes(app))
    #expect(closedInApp.load(ordering: .relaxed) == 1)
  }

  @Test func anInstanceThatDisposesAnotherContainerWaitsForThatDisposal() async throws {
    // Not reentrant: the other container's disposal is not the one running, so it is awaited and
    // its instances are closed by the time the first disposal ends.
    let other = Container()
    let closedInOther = Atomic<Int>(0)
    other.register(type: Int.self, scope: .singleton, dispose: { _ in closedInOther.add(1, ordering: .relaxed) }) { 7 }
    _ = try other.resolve(type: Int.self)
    let container = Container()
    container.register(type: ClosesItsContainer.self, scope: .singleton) { ClosesItsContainer(other) }
    _ = try container.resolve(type: ClosesItsContainer.self)
    #expect(await disposes(container))
    #expect(closedInOther.load(ordering: .relaxed) == 1)
    #expect(other.isDisposed)
  }
}
