import DeepChain
import Foundation
import Knapsack
import Synchronization

// `knapsack-bench deep-chain`: the release-build half of issue 10's "deep graphs never crash".
// Resolves 10,000-deep chains (of type registrations and of an argument key on a thread with a
// 512 KiB stack, and of asynchronous keys): each must throw `resolutionTooDeep` or succeed, never
// crash. Also measures the stack one level of resolution takes from a 100-deep chain. The
// debug-build half is in the library's EngineTests.

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
  for (name, text) in outcomes { print("deep-chain: \(name): \(text)") }
  exit(outcomes.contains { $0.1.hasPrefix("FAILED") } ? 1 : 0)
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
