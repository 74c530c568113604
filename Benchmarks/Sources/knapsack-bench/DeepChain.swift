import Foundation
import Knapsack
import Synchronization

// `knapsack-bench deep-chain`: the release-build half of issue 10's "deep graphs never crash".
// Resolves a 10,000-deep chain of type registrations on a thread with a 512 KiB stack (it must
// throw `resolutionTooDeep` or succeed, never crash), and measures the stack one level of
// resolution takes from a 100-deep chain. The debug-build half is in the library's EngineTests.

/// A container with a chain of `length` named `Int` registrations, each resolving the next;
/// the last one calls `bottom` before returning 0.
func deepChain(_ length: Int, bottom: @escaping @Sendable () -> Void = {}) -> Container {
  let container = Container()
  for step in 0..<length {
    let next = "level \(step + 1)"
    if step == length - 1 {
      container.register(type: Int.self, name: "level \(step)") {
        bottom()
        return 0
      }
    } else {
      container.register(type: Int.self, name: "level \(step)") { r in try r.resolve(type: Int.self, name: next) + 1 }
    }
  }
  return container
}

/// The stack address of the caller's frame, roughly.
@inline(never)
func stackAddress() -> UInt {
  var marker = 0
  return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}

/// Runs the check, prints the figures, and exits non-zero if the chain gave anything but a
/// result or `resolutionTooDeep`.
func runDeepChain() -> Never {
  let deepest = Atomic<UInt>(0)
  let measured = deepChain(100) { deepest.store(stackAddress(), ordering: .relaxed) }
  let top = stackAddress()
  guard (try? measured.resolve(type: Int.self, name: "level 0")) == 99 else {
    print("deep-chain: the 100-deep chain did not resolve")
    exit(1)
  }
  print("deep-chain: stack per level of resolution (release): \((top - deepest.load(ordering: .relaxed)) / 100) bytes")

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
