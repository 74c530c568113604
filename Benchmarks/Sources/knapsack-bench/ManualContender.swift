import BenchSupport
import S4Services

// Manual construction: `init` calls and stored properties, the floor in every scenario. The
// accessors are `@inline(never)` so each operation is a real call returning a strong reference,
// as a resolve call is.

/// Hand-written "composition root": what an app without a container keeps.
final class ManualRoot: Sendable {
  let appState = AppState()
  let override: any Service = FakeService()

  @inline(never)
  func makeService() -> any Service { LiveService() }

  @inline(never)
  func makeViewModel() -> ViewModel {
    let logger = Logger()
    return ViewModel(
      repository: Repository(network: NetworkClient(logger: logger), cache: Cache(logger: logger)))
  }

  @inline(never)
  func sharedAppState() -> AppState { appState }

  @inline(never)
  func overriddenService() -> any Service { override }
}

struct ManualMissing: Error {}

@inline(never)
func manualFailingLookup() throws -> Unregistered {
  throw ManualMissing()
}

@inline(never)
func manualStartUp(count: Int) -> any Sendable {
  count == 1000 ? Svc00999() : Svc09999()
}

/// S8: a chain of `depth` calls, each calling the next, as a 100-deep chain of factories is.
@inline(never)
func manualChain(_ depth: Int) -> Int {
  depth == 0 ? 0 : manualChain(depth - 1) + 1
}

func manualBenchmarks() -> [Benchmark] {
  let root = ManualRoot()
  func run(_ scenario: String, _ body: @escaping (Int) -> UInt64) -> Benchmark {
    Benchmark(scenario: scenario, contender: .manual, workload: .measure(operationsPerIteration: 1, body))
  }
  return [
    run("S1") { n in timeLoop(n) { blackHoleRetained(root.makeService()) } },
    run("S2") { n in timeLoop(n) { blackHoleRetained(root.makeViewModel()) } },
    run("S3") { n in timeLoop(n) { blackHoleRetained(root.sharedAppState()) } },
    run("S4/1000") { n in timeLoop(n) { blackHole(manualStartUp(count: 1000)) } },
    run("S4/10000") { n in timeLoop(n) { blackHole(manualStartUp(count: 10_000)) } },
    run("S5/1-thread") { n in
      timeThreads(1, n) { n in for _ in 0..<n { blackHoleRetained(root.sharedAppState()) } }
    },
    Benchmark(
      scenario: "S5/2-threads", contender: .manual,
      workload: .measure(operationsPerIteration: 2) { n in
        timeThreads(2, n) { n in for _ in 0..<n { blackHoleRetained(root.sharedAppState()) } }
      }),
    run("S6") { n in timeLoop(n) { blackHoleRetained(root.overriddenService()) } },
    run("S7") { n in
      timeLoop(n) {
        do { blackHole(try manualFailingLookup()) } catch { blackHole(error) }
      }
    },
    run("S7/10000") { n in
      timeLoop(n) {
        do { blackHole(try manualFailingLookup()) } catch { blackHole(error) }
      }
    },
    run("S8") { n in timeLoop(n) { blackHole(manualChain(99)) } },
  ]
}
