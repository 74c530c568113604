import BenchSupport
import Dependencies
import S4Dependencies
import S4Services

// swift-dependencies 1.17.1 as its documentation shows it: keys with a `liveValue`, read with a
// local `@Dependency` property wrapper, overridden with `withDependencies`. A live value is cached
// once per key, so a new instance per read (S1, S2) comes from a dependency client whose closure
// builds it: the library's documented way to model a factory.

struct ServiceFactory: Sendable {
  var make: @Sendable () -> any Service
}

/// S2 factories. The library has no per-resolution scope, so the logger is one shared live value
/// (4 new objects per view model instead of 5).
struct GraphFactories: Sendable {
  var makeNetworkClient: @Sendable () -> NetworkClient
  var makeCache: @Sendable () -> Cache
  var makeRepository: @Sendable () -> Repository
  var makeViewModel: @Sendable () -> ViewModel
}

private enum ServiceFactoryKey: DependencyKey {
  static let liveValue = ServiceFactory { LiveService() }
}

private enum LoggerKey: DependencyKey {
  static let liveValue = Logger()
}

private enum GraphFactoriesKey: DependencyKey {
  static let liveValue = GraphFactories(
    makeNetworkClient: {
      @Dependency(\.benchLogger) var logger
      return NetworkClient(logger: logger)
    },
    makeCache: {
      @Dependency(\.benchLogger) var logger
      return Cache(logger: logger)
    },
    makeRepository: {
      @Dependency(\.benchGraph) var graph
      return Repository(network: graph.makeNetworkClient(), cache: graph.makeCache())
    },
    makeViewModel: {
      @Dependency(\.benchGraph) var graph
      return ViewModel(repository: graph.makeRepository())
    }
  )
}

private enum AppStateKey: DependencyKey {
  static let liveValue = AppState()
}

private enum OverridableServiceKey: DependencyKey {
  static let liveValue: any Service = LiveService()
}

extension DependencyValues {
  var benchServiceFactory: ServiceFactory {
    get { self[ServiceFactoryKey.self] }
    set { self[ServiceFactoryKey.self] = newValue }
  }
  var benchLogger: Logger {
    get { self[LoggerKey.self] }
    set { self[LoggerKey.self] = newValue }
  }
  var benchGraph: GraphFactories {
    get { self[GraphFactoriesKey.self] }
    set { self[GraphFactoriesKey.self] = newValue }
  }
  var benchAppState: AppState {
    get { self[AppStateKey.self] }
    set { self[AppStateKey.self] = newValue }
  }
  var benchOverridable: any Service {
    get { self[OverridableServiceKey.self] }
    set { self[OverridableServiceKey.self] = newValue }
  }
}

@inline(never)
func dependenciesMakeService() -> any Service {
  @Dependency(\.benchServiceFactory) var factory
  return factory.make()
}

@inline(never)
func dependenciesMakeViewModel() -> ViewModel {
  @Dependency(\.benchGraph) var graph
  return graph.makeViewModel()
}

@inline(never)
func dependenciesAppState() -> AppState {
  @Dependency(\.benchAppState) var appState
  return appState
}

@inline(never)
func dependenciesOverridable() -> any Service {
  @Dependency(\.benchOverridable) var service
  return service
}

func dependenciesBenchmarks() -> [Benchmark] {
  // Create the cached live values first, so S3/S5 read an existing singleton.
  blackHole(dependenciesAppState())
  blackHole(dependenciesMakeViewModel())
  let fake: any Service = FakeService()

  func run(_ scenario: String, ops: Int = 1, _ body: @escaping (Int) -> UInt64) -> Benchmark {
    Benchmark(
      scenario: scenario, contender: .swiftDependencies, workload: .measure(operationsPerIteration: ops, body))
  }
  let noFailure =
    "no failure path: every key has a default value (an unimplemented test value reports an issue, it does not throw)"
  return [
    run("S1") { n in timeLoop(n) { blackHoleRetained(dependenciesMakeService()) } },
    run("S2") { n in timeLoop(n) { blackHoleRetained(dependenciesMakeViewModel()) } },
    run("S3") { n in timeLoop(n) { blackHoleRetained(dependenciesAppState()) } },
    run("S4/1000") { n in timeLoop(n) { blackHole(dependenciesStartUp(count: 1000)) } },
    run("S4/10000") { n in timeLoop(n) { blackHole(dependenciesStartUp(count: 10_000)) } },
    run("S5/1-thread") { n in
      timeThreads(1, n) { n in for _ in 0..<n { blackHoleRetained(dependenciesAppState()) } }
    },
    run("S5/2-threads", ops: 2) { n in
      timeThreads(2, n) { n in for _ in 0..<n { blackHoleRetained(dependenciesAppState()) } }
    },
    run("S6") { n in
      withDependencies {
        $0.benchOverridable = fake
      } operation: {
        timeLoop(n) { blackHoleRetained(dependenciesOverridable()) }
      }
    },
    Benchmark(scenario: "S7", contender: .swiftDependencies, workload: .notApplicable(noFailure)),
    Benchmark(scenario: "S7/10000", contender: .swiftDependencies, workload: .notApplicable(noFailure)),
    Benchmark(
      scenario: "S8", contender: .swiftDependencies,
      workload: .notApplicable("no named registrations: a 100-deep chain needs 100 declared keys")),
  ]
}

/// S4: new dependency values with `count` services set, one read under them.
@inline(never)
func dependenciesStartUp(count: Int) -> any Sendable {
  withDependencies {
    setGeneratedServices(on: &$0, count: count)
  } operation: {
    readGeneratedService(count: count)
  }
}

/// Heap bytes that dependency values with 10,000 services set hold, per service.
func dependenciesBytesPerRegistration() -> Double {
  let before = heapBytesInUse()
  var values = DependencyValues._current
  setGeneratedServices(on: &values, count: 10_000)
  let after = heapBytesInUse()
  withExtendedLifetime(values) {}
  return Double(after - before) / 10_000
}
