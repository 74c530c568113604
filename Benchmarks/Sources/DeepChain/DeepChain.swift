import Knapsack
import Synchronization

// The 100-deep chain the stack figure is measured on, shared by `knapsack-bench deep-chain`
// (release build) and `stack-per-level` (debug build), so both figures come from the same code.

/// A container with a chain of `length` named `Int` registrations, each resolving the next;
/// the last one calls `bottom` before returning 0.
public func deepChain(_ length: Int, bottom: @escaping @Sendable () -> Void = {}) -> Container {
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
public func stackAddress() -> UInt {
  var marker = 0
  return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}

/// Stack bytes one level of resolution takes: resolves a 100-deep chain whose last factory notes
/// the stack address, and divides the distance from the caller's frame by 100. `nil` if the
/// chain does not resolve.
public func stackBytesPerLevel() -> Int? {
  let deepest = Atomic<UInt>(0)
  let chain = deepChain(100) { deepest.store(stackAddress(), ordering: .relaxed) }
  let top = stackAddress()
  guard (try? chain.resolve(type: Int.self, name: "level 0")) == 99 else { return nil }
  return Int(top - deepest.load(ordering: .relaxed)) / 100
}
