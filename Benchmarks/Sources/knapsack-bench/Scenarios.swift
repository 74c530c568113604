import BenchSupport

/// Every scenario in table order. The ids are the `scenario` values in the JSON file.
let scenarioInfos = [
  ScenarioInfo(id: "S1", title: "transient: resolve a protocol-typed service, new instance each time"),
  ScenarioInfo(id: "S2", title: "graph: view model ← repository ← (network client, cache) ← logger"),
  ScenarioInfo(id: "S3", title: "singleton: resolve an already-created singleton"),
  ScenarioInfo(id: "S4/1000", title: "start-up: new container, 1,000 distinct registrations, one resolve"),
  ScenarioInfo(id: "S4/10000", title: "start-up: new container, 10,000 distinct registrations, one resolve"),
  ScenarioInfo(id: "S5/1-thread", title: "contended singleton, one thread (ns per resolve; ops/s)"),
  ScenarioInfo(id: "S5/2-threads", title: "contended singleton, two threads at once (wall ns per resolve; total ops/s)"),
  ScenarioInfo(id: "S6", title: "override read: a value read under a scoped test override"),
  ScenarioInfo(id: "S7", title: "failure path: resolve something unregistered (few registrations)"),
  ScenarioInfo(id: "S7/10000", title: "failure path: resolve something unregistered (10,000 registrations)"),
]

/// Every benchmark of every contender, in scenario order.
func allBenchmarks() -> [Benchmark] {
  let byContender = [manualBenchmarks(), knapsackBenchmarks(), swinjectBenchmarks(), dependenciesBenchmarks()]
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
