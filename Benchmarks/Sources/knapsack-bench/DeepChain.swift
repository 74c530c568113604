import DeepChain
import Foundation
import Knapsack
import Synchronization

// `knapsack-bench deep-chain`: the release-build half of issue 10's "deep graphs never crash".
// Resolves a 10,000-deep chain of type registrations on a thread with a 512 KiB stack (it must
// throw `resolutionTooDeep` or succeed, never crash), and measures the stack one level of
// resolution takes from a 100-deep chain. The debug-build half is in the library's EngineTests.

/// Runs the check, prints the figures, and exits non-zero if the chain gave anything but a
/// result or `resolutionTooDeep`.
func runDeepChain() -> Never {
  guard let perLevel = stackBytesPerLevel() else {
    print("deep-chain: the 100-deep chain did not resolve")
    exit(1)
  }
  print("deep-chain: stack per level of resolution (release): \(perLevel) bytes")

  let container = deepChain(10_000)
  let outcome = Mutex<String?>(nil)
  let done = DispatchSemaphore(value: 0)
  let thread = Thread {
    do {
      let depth = try container.resolve(type: Int.self, name: "level 0")
      outcome.withLock { $0 = "resolved, depth \(depth)" }
    } catch let error as ResolutionError where error.kind == .resolutionTooDeep {
      outcome.withLock { $0 = "threw resolutionTooDeep after \(error.path.count) levels" }
    } catch {
      outcome.withLock { $0 = "FAILED: \(error)" }
    }
    done.signal()
  }
  thread.stackSize = 512 * 1024
  thread.start()
  done.wait()
  let text = outcome.withLock { $0 } ?? "FAILED: no outcome"
  print("deep-chain: 10,000-deep chain on a 512 KiB thread: \(text)")
  exit(text.hasPrefix("FAILED") ? 1 : 0)
}
