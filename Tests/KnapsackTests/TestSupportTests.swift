import Testing

/// The helpers that bound a test's waits: a hang must end the wait, not the run.
@Suite(.hangGuard) struct TestSupportTests {
  @Test func aWaitForWorkThatEndsReturnsItsResult() async {
    #expect(await ended { 7 } == 7)
  }

  /// What the time limit does to a test that hangs: it cancels the test, and the wait for work
  /// that never ends returns nil, and cancels that work.
  @Test func aWaitForWorkThatNeverEndsEndsWhenTheWaitingTaskIsCancelled() async {
    let neverEnded = Ending<Bool>()
    let workCancelled = Ending<Bool>()
    let waiting = Task {
      await ended {
        let value = await neverEnded.value()
        workCancelled.end(Task.isCancelled)
        return value
      }
    }
    waiting.cancel()
    #expect(await waiting.value == nil)
    #expect(await workCancelled.value() == true)
  }

  @Test func aWaitThatBeginsAfterTheEndReturnsAtOnce() async {
    let ending = Ending<String>()
    ending.end("done")
    ending.end("again")
    #expect(await ending.value() == "done")
  }
}
