import DeepChain
import Foundation
import Knapsack
import Synchronization

// `knapsack-bench deep-chain`: the release-build half of issue 10's "deep graphs never crash".
// Resolves 10,000-deep chains (of type registrations and of an argument key on a thread with a
// 512 KiB stack, and of asynchronous keys): each must throw `resolutionTooDeep` or succeed, never
// crash. Also measures the stack one level of resolution takes from a 100-deep chain, and
// validates a 10,000-deep chain registered from its tail, which must cost about one factory call
// per registration. The debug-build half is in the library's EngineTests and ValidationTests.

extension Dependencies {
  /// A chain of one argument key: the factory for `n` resolves the key again for `n - 1`.
  var deepCountdown: ArgumentKey<Int, Int> {
    ArgumentKey { r, n in n == 0 ? 0 : try r.resolve(\.deepCountdown, argument: n - 1) + 1 }
  }
  /// A chain of asynchronous keys: level `n` resolves level `n - 1`.
  subscript(deepAsyncChain level: Int) -> AsyncKey<Int> {
    AsyncKey { r in level == 0 ? 0 : try await r.resolve(\.[deepAsyncChain: level - 1]) + 1 }
  }
}

/// Runs the check, prints the figures, and exits non-zero if a chain gave anything but a
/// result or `resolutionTooDeep`.
func runDeepChain() -> Never {
  guard let perLevel = stackBytesPerLevel() else {
    print("deep-chain: the 100-deep chain did not resolve")
    exit(1)
  }
  print("deep-chain: stack per level of resolution (release): \(perLevel) bytes")

  let types = deepChain(10_000)
  let keys = Container()
  let outcomes = [
    ("10,000-deep chain on a 512 KiB thread", onSmallThread { try types.resolve(type: Int.self, name: "level 0") }),
    (
      "10,000-deep chain of an argument key on a 512 KiB thread",
      onSmallThread { try keys.resolve(\.deepCountdown, argument: 9_999) }
    ),
    (
      "10,000-deep chain of asynchronous keys",
      outcome(waitingFor: { try await keys.resolve(\.[deepAsyncChain: 9_999]) })
    ),
  ]
  let validation = ("validate() of a 10,000-deep chain registered from its tail", validateTailFirstChain(10_000))
  for (name, text) in outcomes + [validation] { print("deep-chain: \(name): \(text)") }
  exit((outcomes + [validation]).contains { $0.1.hasPrefix("FAILED") } ? 1 : 0)
}

/// Validates a chain of `length` registrations, each needing the one registered before it (so
/// the tail comes first in registration order, and "level 0" first in name order), and says how
/// many factory calls and how long it took, and what it reported. FAILED if the dry run called
/// the factories more than twice each, or reported anything but `resolutionTooDeep`.
private func validateTailFirstChain(_ length: Int) -> String {
  let calls = Atomic<Int>(0)
  let container = Container()
  container.register(type: Int.self, name: "level 0") { 0 }
  for level in 1...length {
    container.register(type: Int.self, name: "level \(level)") { r in
      calls.add(1, ordering: .relaxed)
      return try r.resolve(type: Int.self, name: "level \(level - 1)") + 1
    }
  }
  let outcome = Mutex<String?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    let clock = ContinuousClock()
    let start = clock.now
    let report = await container.validate()
    let seconds = (clock.now - start) / .seconds(1)
    let made = calls.load(ordering: .relaxed)
    let kinds = Set(report.problems.map(\.kind.rawValue)).sorted()
    let text =
      "\(made) factory calls, \(String(format: "%.2f", seconds)) s, problems: \(kinds.isEmpty ? "none" : kinds.joined(separator: ", "))"
    let failed = made > 2 * length || kinds.contains { $0 != "resolutionTooDeep" }
    outcome.withLock { $0 = failed ? "FAILED: " + text : text }
    done.signal()
  }
  done.wait()
  return outcome.withLock { $0 } ?? "FAILED: no outcome"
}

/// What resolving `resolve` on a new thread with a 512 KiB stack gave, in words.
private func onSmallThread(_ resolve: @escaping @Sendable () throws -> Int) -> String {
  let outcome = Mutex<String?>(nil)
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    outcome.withLock { $0 = describe { try resolve() } }
    done.signal()
  }
  thread.stackSize = 512 * 1024
  thread.start()
  done.wait()
  return outcome.withLock { $0 } ?? "FAILED: no outcome"
}

/// What the asynchronous `resolve` gave, in words, waited for from this (synchronous) thread.
private func outcome(waitingFor resolve: @escaping @Sendable () async throws -> Int) -> String {
  let outcome = Mutex<String?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    let result: Result<Int, any Error>
    do { result = .success(try await resolve()) } catch { result = .failure(error) }
    outcome.withLock { $0 = describe { try result.get() } }
    done.signal()
  }
  done.wait()
  return outcome.withLock { $0 } ?? "FAILED: no outcome"
}

/// "resolved, depth N", "threw resolutionTooDeep after N levels", or "FAILED: ..." for anything else.
private func describe(_ resolve: () throws -> Int) -> String {
  do {
    return "resolved, depth \(try resolve())"
  } catch let error as ResolutionError where error.kind == .resolutionTooDeep {
    return "threw resolutionTooDeep after \(error.path.count) levels"
  } catch {
    return "FAILED: \(error)"
  }
}
