import BenchSupport

/// Every scenario in table order. The ids are the `scenario` values in the JSON file.
let scenarioInfos = [
  ScenarioInfo(id: "S1", title: "transient: resolve a protocol-typed service, new instance each time"),
  ScenarioInfo(id: "S2", title: "graph: view model ← repository ← (network client, cache) ← logger"),
  ScenarioInfo(id: "S3", title: "singleton: resolve an already-created singleton"),
  ScenarioInfo(id: "S1/trace-off", title: "S1 on a container whose observer was removed: tracing off costs nothing"),
  ScenarioInfo(id: "S3/trace-off", title: "S3 on a container whose observer was removed: tracing off costs nothing"),
  ScenarioInfo(id: "S4/1000", title: "start-up: new container, 1,000 distinct registrations, one resolve"),
  ScenarioInfo(id: "S4/10000", title: "start-up: new container, 10,000 distinct registrations, one resolve"),
  ScenarioInfo(id: "S5/1-thread", title: "contended singleton, one thread (ns per resolve; ops/s)"),
  ScenarioInfo(
    id: "S5/2-threads", title: "contended singleton, two threads at once (wall ns per resolve; total ops/s)"),
  ScenarioInfo(id: "S6", title: "override read: a value read under a scoped test override"),
  ScenarioInfo(id: "S7", title: "failure path: resolve something unregistered (few registrations)"),
  ScenarioInfo(id: "S7/10000", title: "failure path: resolve something unregistered (10,000 registrations)"),
  ScenarioInfo(id: "S8", title: "deep chain: resolve the first of 100 named registrations, each resolving the next"),
  ScenarioInfo(
    id: "S3/after-scope", title: "S3 once an override scope has opened and closed in the process"),
  ScenarioInfo(
    id: "S3/scope-open",
    title: "S3 while another thread holds an override scope open: what a test running in parallel pays"),
  ScenarioInfo(
    id: "S3/registering-elsewhere",
    title: "S3 while another thread keeps re-registering and resolving a key of another container"),
  ScenarioInfo(
    id: "S3/busy-elsewhere",
    title: "S3 while another thread keeps resolving a key of another container: the control for the row above"),
]

/// Scenarios in which another thread keeps working (and allocating) while one is measured: their
/// allocations per operation are not counted, since the counter sees every thread.
let busyThreadScenarios: Set<String> = ["S3/registering-elsewhere", "S3/busy-elsewhere"]

/// Every benchmark of the given contenders (all by default), in scenario order. Each contender's
/// setup (containers, warm-up resolutions) runs only if it is asked for.
func allBenchmarks(of contenders: [Contender] = Contender.allCases) -> [Benchmark] {
  let byContender = contenders.map { contender in
    switch contender {
    case .manual: manualBenchmarks()
    case .knapsack: knapsackBenchmarks()
    case .swinject: swinjectBenchmarks()
    case .swiftDependencies: dependenciesBenchmarks()
    }
  }
  return scenarioInfos.flatMap { info in byContender.flatMap { $0.filter { $0.scenario == info.id } } }
}

/// Heap bytes per registration at 10,000 registrations, per contender (median of three).
func bytesPerRegistration() -> [Contender: Double] {
  func median(_ measure: () -> Double) -> Double {
    _ = measure()  // warm-up: first-use caches and metadata are not the registrations' cost
    return Summary(samples: (0..<3).map { _ in measure() }).median
  }
  return [
    .manual: 0,
    .knapsack: median(knapsackBytesPerRegistration),
    .swinject: median(swinjectBytesPerRegistration),
    .swiftDependencies: median(dependenciesBytesPerRegistration),
  ]
}

/// The first 10,000-registration start-up of each contender in this process, in nanoseconds: one
/// sample each, including one-time work (type names, generic metadata, conformance lookups) that
/// the repeated S4 samples no longer pay. Run before anything else touches the generated types.
func firstStartUps() -> [(Contender, UInt64)] {
  let runs: [(Contender, () -> any Sendable)] = [
    (.manual, { manualStartUp(count: 10_000) }),
    (.knapsack, { knapsackStartUp(count: 10_000) }),
    (.swinject, { swinjectStartUp(count: 10_000) }),
    (.swiftDependencies, { dependenciesStartUp(count: 10_000) }),
  ]
  return runs.map { contender, startUp in
    let start = monotonicNanoseconds()
    blackHole(startUp())
    return (contender, monotonicNanoseconds() &- start)
  }
}
