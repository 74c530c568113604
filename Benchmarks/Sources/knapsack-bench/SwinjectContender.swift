import BenchSupport
import S4Swinject
import Swinject

// Swinject 2.10.0 as its README shows it: `register` with a factory closure, `resolve(_:)!`, object
// scopes `.transient`, `.graph` (shares an instance within one resolution) and `.container`
// (singleton). Single-threaded scenarios use the plain container (Swinject's default and its
// fastest path); S5 uses `synchronize()`, which Swinject requires for use from several threads.

/// Swinject's synchronized resolver is documented as thread-safe but is not marked `Sendable`.
struct SynchronizedSwinject: @unchecked Sendable {
  let resolver: any Resolver
}

func swinjectBenchmarks() -> [Benchmark] {
  let container = Container()
  container.register((any Service).self) { _ in LiveService() }.inObjectScope(.transient)
  container.register(Logger.self) { _ in Logger() }.inObjectScope(.graph)
  container.register(NetworkClient.self) { r in NetworkClient(logger: r.resolve(Logger.self)!) }
    .inObjectScope(.transient)
  container.register(Cache.self) { r in Cache(logger: r.resolve(Logger.self)!) }.inObjectScope(.transient)
  container.register(Repository.self) { r in
    Repository(network: r.resolve(NetworkClient.self)!, cache: r.resolve(Cache.self)!)
  }.inObjectScope(.transient)
  container.register(ViewModel.self) { r in ViewModel(repository: r.resolve(Repository.self)!) }
    .inObjectScope(.transient)
  container.register(AppState.self) { _ in AppState() }.inObjectScope(.container)
  _ = container.resolve(AppState.self)!  // S3 measures an already-created singleton

  let synchronized = SynchronizedSwinject(resolver: container.synchronize())
  _ = synchronized.resolver.resolve(AppState.self)!

  var large: Container?  // built on first use, so other scenarios never pay for it
  let chain = Container()
  for step in 0..<100 {
    let next = "level \(step + 1)"
    if step == 99 {
      chain.register(Int.self, name: "level \(step)") { _ in 0 }
    } else {
      chain.register(Int.self, name: "level \(step)") { r in r.resolve(Int.self, name: next)! + 1 }
    }
  }
  _ = chain.resolve(Int.self, name: "level 0")!

  func run(_ scenario: String, ops: Int = 1, _ body: @escaping (Int) -> UInt64) -> Benchmark {
    Benchmark(scenario: scenario, contender: .swinject, workload: .measure(operationsPerIteration: ops, body))
  }
  return [
    run("S1") { n in timeLoop(n) { blackHoleRetained(container.resolve((any Service).self)!) } },
    run("S2") { n in timeLoop(n) { blackHoleRetained(container.resolve(ViewModel.self)!) } },
    run("S3") { n in timeLoop(n) { blackHoleRetained(container.resolve(AppState.self)!) } },
    run("S4/1000") { n in timeLoop(n) { blackHole(swinjectStartUp(count: 1000)) } },
    run("S4/10000") { n in timeLoop(n) { blackHole(swinjectStartUp(count: 10_000)) } },
    run("S5/1-thread") { n in
      timeThreads(1, n) { n in for _ in 0..<n { blackHoleRetained(synchronized.resolver.resolve(AppState.self)!) } }
    },
    run("S5/2-threads", ops: 2) { n in
      timeThreads(2, n) { n in for _ in 0..<n { blackHoleRetained(synchronized.resolver.resolve(AppState.self)!) } }
    },
    Benchmark(
      scenario: "S6", contender: .swinject,
      workload: .notApplicable(
        "no scoped override: replacing a service means registering again in a (child) container")),
    run("S7") { n in timeLoop(n) { blackHole(container.resolve(Unregistered.self)) } },
    run("S7/10000") { n in
      let container = large ?? Container()
      if large == nil {
        registerGeneratedServices(into: container, count: 10_000)
        large = container
      }
      return timeLoop(n) { blackHole(container.resolve(Unregistered.self)) }
    },
    run("S8") { n in timeLoop(n) { blackHole(chain.resolve(Int.self, name: "level 0")!) } },
  ]
}

/// S4: a new container, `count` registrations, one resolution.
@inline(never)
func swinjectStartUp(count: Int) -> any Sendable {
  let container = Container()
  registerGeneratedServices(into: container, count: count)
  return resolveGeneratedService(from: container, count: count)
}

/// Heap bytes one container with 10,000 registrations holds, per registration.
func swinjectBytesPerRegistration() -> Double {
  let before = heapBytesInUse()
  let container = Container()
  registerGeneratedServices(into: container, count: 10_000)
  let after = heapBytesInUse()
  withExtendedLifetime(container) {}
  return Double(after - before) / 10_000
}
