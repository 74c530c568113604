import Foundation
import Synchronization
import Testing

/// A class instance whose identity the tests compare; each test makes its own.
final class Token: Sendable {
  let label: String
  init(_ label: String = "token") { self.label = label }
}

/// State guarded by a lock that ThreadSanitizer understands.
///
/// Test helpers do not use `Synchronization.Mutex`: on Linux its contended path runs in the
/// uninstrumented standard library, so `--sanitize=thread` reports false races on the state it
/// guards (see /work/notes/core-bugs.md). `NSLock` is a pthread mutex, which TSan intercepts.
final class Locked<State>: @unchecked Sendable {
  // Safe: `state` is only touched while `lock` is held.
  private let lock = NSLock()
  private var state: State
  init(_ state: State) { self.state = state }

  func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// A test-local set of values, safe to fill from many threads and tasks.
final class Collected<Element: Sendable>: Sendable {
  private let items = Locked<[Element]>([])
  func append(_ element: Element) { items.withLock { $0.append(element) } }
  var all: [Element] { items.withLock { $0 } }
}

/// An error a test's factory throws on purpose.
struct PlannedFailure: Error, CustomStringConvertible {
  let reason: String
  init(_ reason: String = "planned failure") { self.reason = reason }
  var description: String { reason }
}

/// How long a test waits for something that only a hang would keep from happening: long, because
/// a loaded machine can stall every thread of the test process for a minute or more (seen under
/// ThreadSanitizer while other builds ran on the same two cores). A passing test never waits it
/// out; a hang still fails, after it.
let hangBound: Duration = .seconds(180)

/// How long a thread a test started (or the main thread, in a main-actor factory) blocks waiting
/// for the test's own next step: longer than any run. The whole suite's tests start at once and
/// share the cooperative pool, so the step this thread waits for can be minutes away on a loaded
/// machine or under ThreadSanitizer (a bound of ``hangBound`` on the clock ran out while the
/// test's code was still queued, and the test saw an interleaving it did not set up). A passing
/// test never waits it out; a hang is failed by the test's own wait, counted in polls (see
/// ``waitUntil(timeout:isolation:_:)``), and this only ends the thread it left behind.
let threadWaitBound: Duration = .seconds(3600)

/// A gate that many threads wait at until it opens, so that they start at the same moment.
final class StartGate: @unchecked Sendable {
  // Safe: `open` is only read and written while `condition` is locked.
  private let condition = NSCondition()
  private var open = false

  func wait() {
    condition.lock()
    while !open { condition.wait() }
    condition.unlock()
  }

  func release() {
    condition.lock()
    open = true
    condition.broadcast()
    condition.unlock()
  }
}

/// Threads started by a test; the test waits for them with a bound, so that a deadlock fails the
/// test instead of hanging the run.
final class ThreadGroup: Sendable {
  private let finished = Atomic<Int>(0)
  let count: Int

  /// Starts `count` threads; each waits at a common gate, then runs `body(index)`.
  init(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    self.count = count
    let gate = StartGate()
    let started = Atomic<Int>(0)
    for index in 0..<count {
      let thread = Thread { [self] in
        started.add(1, ordering: .relaxed)
        gate.wait()
        body(index)
        self.finished.add(1, ordering: .releasing)
      }
      thread.stackSize = 1 << 19
      thread.start()
    }
    // Open the gate once every thread exists, so that they all race for the first resolution.
    // A thread of its own waits for them: the caller, often a job of the shared cooperative
    // pool, goes on at once.
    Thread {
      while started.load(ordering: .relaxed) < count { usleep(50) }
      gate.release()
    }.start()
  }

  /// Waits until every thread finished or `timeout` passed; returns whether they all finished.
  /// The timeout only guards against a hang; no test asserts how long anything takes.
  func join(timeout: Duration = hangBound) async -> Bool {
    await waitUntil(timeout: timeout) { self.finished.load(ordering: .acquiring) == self.count }
  }
}

/// Called inside a factory: blocks (bounded) until `arrivals` reaches `count`, then a moment longer,
/// so that other resolutions reach the engine while this one is still making the value. On the
/// cooperative pool (two threads here) this is what makes a task-group test really concurrent.
///
/// It blocks because a synchronous factory cannot suspend, and a test of resolutions made in a
/// task group must keep the creation under way while the others arrive. It holds one thread of
/// the pool for at most `timeout` (plus 5 ms): if the other tasks cannot start because the pool
/// is busy, the factory goes on after the bound, and the test still passes, only less
/// concurrently; it never waits for a hang.
func holdUntil(_ arrivals: Counter, reaches count: Int = 2, timeout: Duration = .seconds(2)) {
  let deadline = ContinuousClock.now + timeout
  while arrivals.count < count, ContinuousClock.now < deadline { usleep(100) }
  usleep(5_000)
}

/// Polls `condition` every 2 ms until it holds, for at most as many polls as fit in `timeout`;
/// returns whether it held.
///
/// The bound counts polls, not time on the clock: each poll is a job of the cooperative pool (two
/// threads here), shared by every test of the run. When the pool is busy (the whole suite on a
/// loaded machine), a poll waits its turn behind the jobs queued before it, so the work the test
/// waits for, which runs on the same pool, goes on between two polls; a deadline on the clock ran
/// out while that work was still queued, and failed tests that did not hang. On an idle pool the
/// bound is about `timeout`.
///
/// It runs in the caller's isolation, so that `condition` may read the test's local state (a
/// `weak var`, a non-sendable probe).
func waitUntil(
  timeout: Duration, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
  let interval = Duration.milliseconds(2)
  var polls = Int(timeout / interval)
  while !condition() {
    if polls <= 0 { return false }
    polls -= 1
    try? await Task.sleep(for: interval)
  }
  return true
}

/// The time limit of a suite whose tests wait for work they start in tasks of their own
/// (``ended(_:)``): only a hang reaches it, and Swift Testing then cancels the test, which ends
/// the wait. Long, because its clock runs while the test waits its turn on the cooperative pool
/// that the whole run shares; a passing test ends as soon as its work does.
extension Trait where Self == TimeLimitTrait {
  static var hangGuard: Self { .timeLimit(.minutes(20)) }
}

/// The end of work a test runs in a task of its own: its result, or nil if the waiting test was
/// cancelled first (its ``Trait/hangGuard`` time limit ran out). Set once; a wait for it is woken
/// by that event, with no clock of its own.
final class Ending<Value: Sendable>: Sendable {
  private enum State {
    case pending(CheckedContinuation<Value?, Never>?)
    case ended(Value?)
  }
  private let state = Locked(State.pending(nil))

  /// Ends with `value`, nil for a cancelled wait; a later call changes nothing.
  func end(_ value: Value?) {
    let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
      guard case .pending(let waiter) = state else { return nil }
      state = .ended(value)
      return waiter
    }
    waiter?.resume(returning: value)
  }

  /// Suspends until the work ended, or the waiting task is cancelled (then nil).
  func value() async -> Value? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (waiter: CheckedContinuation<Value?, Never>) in
        let ended = state.withLock { state -> Value?? in
          switch state {
          case .ended(let value): return .some(value)
          case .pending:
            state = .pending(waiter)
            return .none
          }
        }
        if let ended { waiter.resume(returning: ended) }
      }
    } onCancel: {
      end(nil)
    }
  }
}

/// Runs `body` in a detached task and waits for it to end: its result, or nil if the test was
/// cancelled first (a hang, stopped by the ``Trait/hangGuard`` time limit), after which the task
/// is cancelled and left behind. The wait ends as soon as `body` does, however long it waited for
/// a thread: unlike a deadline polled on the clock, it cannot run out while `body` is still
/// queued behind the rest of the run.
func ended<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T? {
  let ending = Ending<T>()
  let task = Task.detached { ending.end(await body()) }
  let value = await ending.value()
  if value == nil { task.cancel() }
  return value
}

/// A meeting point for a fixed number of parties, used to force a particular interleaving.
/// Waiting is bounded: if the others never arrive (because the engine serialised them), the
/// party goes on after `timeout`, so the test still finishes.
final class Rendezvous: Sendable {
  private let arrived = Atomic<Int>(0)
  let parties: Int
  init(parties: Int) { self.parties = parties }

  /// Arrives and blocks the thread until everyone arrived; returns whether they did.
  @discardableResult
  func arriveAndWait(timeout: Duration = .seconds(3)) -> Bool {
    arrived.add(1, ordering: .acquiringAndReleasing)
    let deadline = ContinuousClock.now + timeout
    while arrived.load(ordering: .acquiring) < parties {
      if ContinuousClock.now > deadline { return false }
      usleep(100)
    }
    return true
  }

  /// Arrives and suspends until everyone arrived; returns whether they did.
  @discardableResult
  func arrive(timeout: Duration = .seconds(3)) async -> Bool {
    arrived.add(1, ordering: .acquiringAndReleasing)
    return await waitUntil(timeout: timeout) { self.arrived.load(ordering: .acquiring) >= self.parties }
  }
}

/// The result of something run on another thread or task, recorded for the test to inspect.
enum Outcome: Sendable {
  case value(ObjectIdentifier)
  case failure(any Error)

  var error: (any Error)? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

/// A task executor that runs its jobs only when ``drain(until:timeout:)`` is called, on the calling
/// thread: a nested run loop, which runs a job of some task in the middle of other code on that
/// thread. A task made with it as its executor preference is enqueued here at once, so a test
/// does not depend on the shared pool being free.
final class ManualExecutor: TaskExecutor {
  private let jobs = Mutex<[UnownedJob]>([])

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    jobs.withLock { $0.append(job) }
  }

  /// Runs enqueued jobs on the calling thread until `done()` holds (checked after each pass) or
  /// `timeout` passed; returns whether `done()` held.
  @discardableResult
  func drain(until done: () -> Bool, timeout: Duration = threadWaitBound) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
      while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
      if done() { return true }
      if ContinuousClock.now > deadline { return false }
      usleep(100)
    }
  }
}

/// Whether `isFreed` holds within ``hangBound``, checked at once and then every 2 ms (see
/// ``waitUntil(timeout:isolation:_:)``): for what a container lets go of (a replaced registration,
/// what its factory captured, an instance of a container that is gone). The container lets it go
/// at once, unless a resolution that reads more containers than its read section can name (a deep
/// line of child containers) runs meanwhile in another test: then it is let go when that
/// resolution ends. A test that expects it let go while one of its own resolutions runs still
/// fails, when the wait runs out.
///
/// The wait suspends: the resolution it waits for may need a thread of the cooperative pool, which
/// a blocking wait would hold.
func freedSoon(isolation: isolated (any Actor)? = #isolation, _ isFreed: () -> Bool) async -> Bool {
  await waitUntil(timeout: hangBound, isFreed)
}

/// Blocks the calling thread until `condition` holds or `timeout` passed, checking every 200 µs;
/// returns whether it held. Only for code that cannot suspend and runs on a thread of its own
/// (a ``ThreadGroup``'s, ``onThreadOutsideAnyTask(timeout:_:)``'s) or on the main thread (a
/// main-actor factory): never on the cooperative pool, where it would hold one of its two threads
/// while the work it waits for may need one.
func waitUntilSync(timeout: Duration, _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    usleep(200)
  }
  return true
}

/// Runs `body` on a new thread, outside any task, and returns its result; nil if it did not finish
/// within `timeout`.
func onThreadOutsideAnyTask<T: Sendable>(
  timeout: Duration = hangBound, _ body: @escaping @Sendable () -> T
) async -> T? {
  let result = Mutex<T?>(nil)
  // `body` runs outside the lock: one that hangs must not keep the wait below from reading it.
  Thread {
    let value = body()
    result.withLock { $0 = value }
  }.start()
  _ = await waitUntil(timeout: timeout) { result.withLock { $0 != nil } }
  return result.withLock { $0 }
}
