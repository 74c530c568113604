import BenchSupport
import CMallocCounter
import Foundation
import Synchronization

/// The libraries compared, plus hand-written construction as the floor.
enum Contender: String, CaseIterable, Sendable {
  case manual
  case knapsack
  case swinject
  case swiftDependencies = "swift-dependencies"
}

/// One scenario as one contender runs it.
struct Benchmark {
  enum Workload {
    /// Runs the operation `n` times (on each thread) and returns the elapsed nanoseconds.
    case measure(operationsPerIteration: Int, (Int) throws -> UInt64)
    /// The contender has no equivalent of the scenario; the reason goes in the table.
    case notApplicable(String)
  }

  var scenario: String
  var contender: Contender
  var workload: Workload
}

/// Times `n` runs of `operation` in a loop; with `operation` inlined, the loop holds only its body.
@inline(__always)
func timeLoop(_ n: Int, _ operation: () throws -> Void) rethrows -> UInt64 {
  let start = monotonicNanoseconds()
  for _ in 0..<n {
    try operation()
  }
  return monotonicNanoseconds() &- start
}

/// Runs `loop(n)` on `threads` new threads at once and returns the wall time from the first
/// thread's start to the last thread's end. Thread creation is outside the timed span.
func timeThreads(_ threads: Int, _ n: Int, _ loop: @escaping @Sendable (Int) -> Void) -> UInt64 {
  final class Gate: Sendable {
    let ready = Atomic<Int>(0)
    let go = Atomic<Bool>(false)
    let span = Mutex<(start: UInt64, end: UInt64)>((.max, 0))
    let finished = DispatchSemaphore(value: 0)
  }
  let gate = Gate()
  for _ in 0..<threads {
    let thread = Thread {
      gate.ready.add(1, ordering: .sequentiallyConsistent)
      while !gate.go.load(ordering: .acquiring) {}
      let start = monotonicNanoseconds()
      loop(n)
      let end = monotonicNanoseconds()
      gate.span.withLock { span in
        span.start = min(span.start, start)
        span.end = max(span.end, end)
      }
      gate.finished.signal()
    }
    thread.start()
  }
  while gate.ready.load(ordering: .sequentiallyConsistent) < threads {
    usleep(100)
  }
  gate.go.store(true, ordering: .releasing)
  for _ in 0..<threads {
    gate.finished.wait()
  }
  return gate.span.withLock { $0.end &- $0.start }
}

/// How long samples are and how many are taken.
struct SamplingPlan {
  var sampleNanoseconds: UInt64
  var samples: Int

  static let full = SamplingPlan(sampleNanoseconds: 200_000_000, samples: 7)
  static let quick = SamplingPlan(sampleNanoseconds: 10_000_000, samples: 7)
}

/// Measures benchmarks scenario by scenario. Within a scenario the contenders' samples are taken
/// in turn (manual, knapsack, swinject, swift-dependencies, manual, …) so a noisy stretch on a
/// shared machine hits every contender alike.
func measure(
  _ benchmarks: [Benchmark], plan: SamplingPlan, log: (String) -> Void
) throws
  -> [BenchResult]
{
  var results: [BenchResult] = []
  let scenarios = benchmarks.map(\.scenario).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
  for scenario in scenarios {
    var runnable: [(contender: Contender, ops: Int, run: (Int) throws -> UInt64, n: Int)] = []
    for benchmark in benchmarks where benchmark.scenario == scenario {
      guard case .measure(let ops, let run) = benchmark.workload else { continue }
      runnable.append((benchmark.contender, ops, run, try calibrate(run, target: plan.sampleNanoseconds)))
    }
    var samples = Array(repeating: [Double](), count: runnable.count)
    for _ in 0..<plan.samples {
      for (index, entry) in runnable.enumerated() {
        let elapsed = try entry.run(entry.n)
        samples[index].append(Double(elapsed) / Double(entry.n * entry.ops))
      }
    }
    for (index, entry) in runnable.enumerated() {
      let summary = Summary(samples: samples[index])
      let opsPerSecond = scenario.hasPrefix("S5") ? 1e9 / summary.median : nil
      // A scenario whose other thread keeps allocating would count that thread's allocations.
      let allocations =
        busyThreadScenarios.contains(scenario)
        ? nil : try allocationsPerOperation(entry.run, n: entry.n, operationsPerIteration: entry.ops)
      results.append(
        BenchResult(
          scenario: scenario, contender: entry.contender.rawValue, nanoseconds: summary,
          operationsPerSecond: opsPerSecond, allocationsPerOperation: allocations))
      log(
        "  \(scenario) \(entry.contender.rawValue): \(SVGChart.durationLabel(summary.median))/op, "
          + "\(allocations.map { String(format: "%.2f", $0) } ?? "?") allocations/op (n = \(entry.n) per sample)")
    }
  }
  return results
}

/// Heap allocations one operation makes, counted (untimed) by the malloc wrappers of
/// CMallocCounter: `run(n)` and then `run(2n)`, and the difference divided by `n` operations, so
/// whatever a run costs once (thread start, a lazily built container) cancels out. Counts every
/// thread's allocations, so S5's threads are included. `nil` where allocations are not counted.
func allocationsPerOperation(
  _ run: (Int) throws -> UInt64, n: Int, operationsPerIteration: Int
) throws -> Double? {
  guard knapsack_bench_allocations_counted() != 0 else { return nil }
  let start = knapsack_bench_allocations()
  _ = try run(n)
  let middle = knapsack_bench_allocations()
  _ = try run(2 * n)
  let end = knapsack_bench_allocations()
  let difference = Double(end &- middle) - Double(middle &- start)
  // Not clamped: a negative figure means one-time work fell into the first run only, and shows.
  return difference / Double(n * operationsPerIteration)
}

/// Finds an iteration count whose run takes about `target` nanoseconds (after a warm-up run).
func calibrate(_ run: (Int) throws -> UInt64, target: UInt64) throws -> Int {
  var n = 1
  _ = try run(1)
  while true {
    let elapsed = try run(n)
    if elapsed >= target / 8 || n >= 1 << 40 {
      let scaled = Double(n) * Double(target) / Double(max(elapsed, 1))
      let count = max(1, Int(scaled.rounded()))
      _ = try run(count)  // warm-up at the final size
      return count
    }
    n *= elapsed < target / 1000 ? 16 : 2
  }
}
