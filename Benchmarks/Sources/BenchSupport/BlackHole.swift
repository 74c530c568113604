import CBlackHole

/// Consumes `value` so the optimiser has to produce it.
///
/// The value is stored in a stack slot whose address goes to a C function the Swift compiler
/// cannot see into, so neither the value nor the work that made it can be removed. The cost is one
/// call, the same for every contender.
@inlinable
@inline(__always)
public func blackHole<T>(_ value: T) {
  withUnsafePointer(to: value) { knapsack_bench_black_hole(UnsafeRawPointer($0)) }
}

/// Takes a strong reference to `object` for a moment, as code that keeps a resolved object does.
///
/// A retain, the opaque call, a release: the same for every contender, and enough that two
/// threads reading one shared object contend on its reference count, as real callers do.
@inlinable
@inline(__always)
public func blackHoleRetained(_ object: AnyObject) {
  let reference = Unmanaged.passRetained(object)
  knapsack_bench_black_hole(UnsafeRawPointer(reference.toOpaque()))
  reference.release()
}
