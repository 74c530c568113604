import BenchSupport
import DeepChain
import Foundation
import Knapsack
import S4Knapsack
import Synchronization

// Knapsack as its documentation shows it: keys declared on `Dependencies` with a default factory
// and a scope, resolved with `try container.resolve(\.key)`, overridden with `withOverrides`.
// S4 uses type-based registration (`register(type: T.self) { … }`), the API meant for registering
// many services at run time.

extension Dependencies {
  var benchService: Key<any Service> { Key { LiveService() } }
  var benchLogger: Key<Logger> { Key { Logger() }.scope(.graph) }
  var benchNetwork: Key<NetworkClient> { Key { r in NetworkClient(logger: try r[\.benchLogger]) } }
  var benchCache: Key<Cache> { Key { r in Cache(logger: try r[\.benchLogger]) } }
  var benchRepository: Key<Repository> {
    Key { r in Repository(network: try r[\.benchNetwork], cache: try r[\.benchCache]) }
  }
  var benchViewModel: Key<ViewModel> { Key { r in ViewModel(repository: try r[\.benchRepository]) } }
  var benchAppState: Key<AppState> { Key { AppState() }.scope(.singleton) }
  var benchOverridable: Key<any Service> { Key { LiveService() } }
  var benchMissing: Key<Unregistered> { .required() }
}

/// Unwraps a resolution that cannot fail in these scenarios; a failure is a bug in the benchmark.
@inline(__always)
func resolved<T>(_ resolve: () throws -> T) -> T {
  do {
    return try resolve()
  } catch {
    fatalError("benchmark resolution failed: \(error)")
  }
}

func knapsackBenchmarks() -> [Benchmark] {
  let container = Container()
  blackHole(resolved { try container.resolve(\.benchAppState) })  // S3 measures an existing singleton
  blackHole(resolved { try container.resolve(\.benchViewModel) })
  blackHole(resolved { try container.resolve(\.benchService) })
  // The same keys on a container that had an observer installed and removed: tracing must cost
  // nothing once it is off (compare S1/trace-off and S3/trace-off with S1 and S3).
  let traced = Container()
  traced.observe(StartupProfiler())
  blackHole(resolved { try traced.resolve(\.benchAppState) })
  traced.observe(nil)
  blackHole(resolved { try traced.resolve(\.benchAppState) })
  var large: Container?  // built on first use, so other scenarios never pay for it
  let chain = deepChain(100)
  blackHole(resolved { try chain.resolve(type: Int.self, name: "level 0") })
  let fake: any Service = FakeService()

  func run(_ scenario: String, ops: Int = 1, _ body: @escaping (Int) -> UInt64) -> Benchmark {
    Benchmark(scenario: scenario, contender: .knapsack, workload: .measure(operationsPerIteration: ops, body))
  }
  return [
    run("S1") { n in timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchService) }) } },
    run("S2") { n in timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchViewModel) }) } },
    run("S3") { n in timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) } },
    run("S1/trace-off") { n in timeLoop(n) { blackHoleRetained(resolved { try traced.resolve(\.benchService) }) } },
    run("S3/trace-off") { n in timeLoop(n) { blackHoleRetained(resolved { try traced.resolve(\.benchAppState) }) } },
    run("S4/1000") { n in timeLoop(n) { blackHole(knapsackStartUp(count: 1000)) } },
    run("S4/10000") { n in timeLoop(n) { blackHole(knapsackStartUp(count: 10_000)) } },
    run("S5/1-thread") { n in
      timeThreads(1, n) { n in
        for _ in 0..<n { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
      }
    },
    run("S5/2-threads", ops: 2) { n in
      timeThreads(2, n) { n in
        for _ in 0..<n { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
      }
    },
    run("S6") { n in
      withOverrides {
        $0.register(\.benchOverridable) { fake }
      } operation: {
        timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchOverridable) }) }
      }
    },
    run("S7") { n in
      timeLoop(n) {
        do { blackHole(try container.resolve(\.benchMissing)) } catch { blackHole(error) }
      }
    },
    run("S7/10000") { n in
      let container = large ?? Container()
      if large == nil {
        registerGeneratedServices(into: container, count: 10_000)
        large = container
      }
      return timeLoop(n) {
        do { blackHole(try container.resolve(\.benchMissing)) } catch { blackHole(error) }
      }
    },
    run("S8") { n in timeLoop(n) { blackHole(resolved { try chain.resolve(type: Int.self, name: "level 0") }) } },
    run("S3/after-scope") { n in
      // While no override scope is alive, a resolution skips the task-local look-up for one: a
      // scope that has closed costs nothing.
      withOverrides { _ in
      } operation: {
      }
      return timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
    },
    run("S3/scope-open") { n in
      // Another thread holds an override scope open (as a test running in parallel does), so
      // this thread's resolutions look for a scope of their own.
      let opened = DispatchSemaphore(value: 0)
      let finished = DispatchSemaphore(value: 0)
      Thread {
        withOverrides { _ in
        } operation: {
          opened.signal()
          finished.wait()
        }
      }.start()
      opened.wait()
      defer { finished.signal() }
      return timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
    },
    run("S3/registering-elsewhere") { n in
      // Another thread keeps replacing a registration of another container, and so retiring its
      // plans: state that belongs to that container, which this thread's resolutions never read.
      let other = Container()
      return whileAnotherThreadRuns({
        other.register(\.benchOverridable) { LiveService() }
        blackHoleRetained(resolved { try other.resolve(\.benchOverridable) })
      }) {
        timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
      }
    },
    run("S3/busy-elsewhere") { n in
      // The control for S3/registering-elsewhere: the other thread does the same but register, so
      // the two differ only by what registering costs this thread (the other core's load, which
      // this machine's two cores share, is in both).
      let other = Container()
      other.register(\.benchOverridable) { LiveService() }
      return whileAnotherThreadRuns({
        blackHoleRetained(resolved { try other.resolve(\.benchOverridable) })
      }) {
        timeLoop(n) { blackHoleRetained(resolved { try container.resolve(\.benchAppState) }) }
      }
    },
  ]
}

/// Runs `measure` while another thread runs `work` over and over.
func whileAnotherThreadRuns<R>(_ work: @escaping @Sendable () -> Void, measure: () -> R) -> R {
  let running = Atomic<Bool>(true)
  let started = DispatchSemaphore(value: 0)
  let stopped = DispatchSemaphore(value: 0)
  Thread {
    started.signal()
    while running.load(ordering: .relaxed) { work() }
    stopped.signal()
  }.start()
  started.wait()
  defer {
    running.store(false, ordering: .relaxed)
    stopped.wait()
  }
  return measure()
}

/// S4: a new container, `count` registrations, one resolution.
@inline(never)
func knapsackStartUp(count: Int) -> any Sendable {
  let container = Container()
  registerGeneratedServices(into: container, count: count)
  return resolved { try resolveGeneratedService(from: container, count: count) }
}

/// Heap bytes one container with 10,000 registrations holds, per registration.
func knapsackBytesPerRegistration() -> Double {
  let before = heapBytesInUse()
  let container = Container()
  registerGeneratedServices(into: container, count: 10_000)
  let after = heapBytesInUse()
  withExtendedLifetime(container) {}
  return Double(after - before) / 10_000
}
