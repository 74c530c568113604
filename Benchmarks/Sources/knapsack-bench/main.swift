import BenchSupport
import DeepChain
import Foundation

let usage = """
  usage: knapsack-bench [--quick] [--json PATH] [--svg PATH] [--markdown PATH] [--only S1,S2,...]
                        [--debug-stack-bytes N]
         knapsack-bench --scenario NAME --contender NAME --iterations N
         knapsack-bench render --json PATH [--svg PATH] [--markdown PATH] [--date TEXT] [--machine TEXT]
         knapsack-bench deep-chain
         knapsack-bench peak-memory CONTENDER

    --quick        10 ms samples instead of 200 ms (still the median of 7); for CI
    --json PATH    write the results as a JSON array
    --svg PATH     render the results as an SVG bar chart (log scale)
    --markdown     write the results table as Markdown
    --only         run only these scenarios (comma-separated ids)
    --debug-stack-bytes N
                   the debug build's stack bytes per level (printed by the debug-built
                   stack-per-level executable), recorded on Knapsack's S8 row with the release figure
    --scenario, --contender, --iterations
                   run one benchmark exactly N times with no timing output: for instruction
                   counts under callgrind (see scripts/instructions.sh)
    render         redraw the chart and table from a JSON file of an earlier run
    deep-chain     10,000-deep chains (types and an argument key on a 512 KiB thread,
                   asynchronous keys) must throw or succeed; prints the stack one level of
                   resolution takes
    peak-memory    one 10,000-registration start-up of CONTENDER in this fresh process; prints
                   the resident-set high-water mark (VmHWM) in bytes

  """

struct Options {
  var quick = false
  var json: String?
  var svg: String?
  var markdown: String?
  var only: Set<String>?
  var scenario: String?
  var contender: String?
  var iterations: Int?
  var render = false
  var date: String?
  var machine: String?
  var debugStackBytes: Double?
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("knapsack-bench: \(message)\n\n\(usage)".utf8))
  exit(2)
}

func parseOptions(_ arguments: [String]) -> Options {
  var options = Options()
  var rest = arguments[...]
  if rest.first == "render" {
    options.render = true
    rest = rest.dropFirst()
  }
  func value(_ flag: String) -> String {
    guard let next = rest.popFirst() else { fail("\(flag) needs a value") }
    return next
  }
  while let argument = rest.popFirst() {
    switch argument {
    case "--quick": options.quick = true
    case "--json": options.json = value(argument)
    case "--svg": options.svg = value(argument)
    case "--markdown": options.markdown = value(argument)
    case "--only": options.only = Set(value(argument).split(separator: ",").map(String.init))
    case "--scenario": options.scenario = value(argument)
    case "--contender": options.contender = value(argument)
    case "--iterations":
      guard let count = Int(value(argument)), count > 0 else { fail("--iterations needs a positive number") }
      options.iterations = count
    case "--date": options.date = value(argument)
    case "--machine": options.machine = value(argument)
    case "--debug-stack-bytes":
      guard let bytes = Double(value(argument)), bytes > 0 else { fail("--debug-stack-bytes needs a positive number") }
      options.debugStackBytes = bytes
    case "-h", "--help":
      print(usage)
      exit(0)
    default: fail("unknown argument \(argument)")
    }
  }
  return options
}

func write(_ text: String, to path: String) {
  do {
    try text.write(toFile: path, atomically: true, encoding: .utf8)
  } catch {
    fail("cannot write \(path): \(error)")
  }
}

func writeOutputs(
  _ results: [BenchResult], notApplicable: [NotApplicable], options: Options, date: String, machine: String
) {
  if let path = options.json {
    write(ResultsJSON.encode(results), to: path)
    print("wrote \(path)")
  }
  if let path = options.svg {
    write(SVGChart.render(results: results, date: date, machine: machine), to: path)
    print("wrote \(path)")
  }
  if let path = options.markdown {
    let table = ResultsTable.markdown(results: results, scenarios: scenarioInfos, notApplicable: notApplicable)
    write("Run \(date) on \(machine).\n\n" + table, to: path)
    print("wrote \(path)")
  }
}

/// Runs one benchmark exactly `iterations` times: the instruction-count mode.
func runOnce(scenario: String, contender: String, iterations: Int) throws {
  guard let which = Contender(rawValue: contender) else { fail("unknown contender \(contender)") }
  guard let benchmark = allBenchmarks(of: [which]).first(where: { $0.scenario == scenario })
  else { fail("no benchmark \(scenario) for \(contender)") }
  guard case .measure(_, let run) = benchmark.workload else {
    print("\(scenario) \(contender): n/a")
    return
  }
  _ = try run(iterations)
  print("\(scenario) \(contender): ran \(iterations) iterations")
}

if CommandLine.arguments.dropFirst().first == "deep-chain" { runDeepChain() }
if CommandLine.arguments.dropFirst().first == "peak-memory" {
  guard CommandLine.arguments.count == 3, let contender = Contender(rawValue: CommandLine.arguments[2]) else {
    fail("peak-memory needs one contender: \(Contender.allCases.map(\.rawValue).joined(separator: ", "))")
  }
  runPeakMemory(contender)
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))

if options.render {
  guard let input = options.json else { fail("render needs --json PATH") }
  guard let data = FileManager.default.contents(atPath: input) else { fail("cannot read \(input)") }
  let results: [BenchResult]
  do { results = try ResultsJSON.decode(data) } catch { fail("\(input): \(error)") }
  let modified = (try? FileManager.default.attributesOfItem(atPath: input)[.modificationDate] as? Date) ?? Date()
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.timeZone = TimeZone(identifier: "UTC")
  formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
  let date = options.date ?? formatter.string(from: modified)
  let machine = options.machine ?? Machine.describe()
  let notApplicable = allBenchmarks().compactMap { benchmark -> NotApplicable? in
    guard case .notApplicable(let reason) = benchmark.workload else { return nil }
    return NotApplicable(scenario: benchmark.scenario, contender: benchmark.contender.rawValue, reason: reason)
  }
  print(ResultsTable.text(results: results, scenarios: scenarioInfos, notApplicable: notApplicable))
  writeOutputs(
    results, notApplicable: notApplicable, options: Options(svg: options.svg, markdown: options.markdown), date: date,
    machine: machine)
  exit(0)
}

if let scenario = options.scenario {
  guard let contender = options.contender, let iterations = options.iterations else {
    fail("--scenario needs --contender and --iterations")
  }
  try runOnce(scenario: scenario, contender: contender, iterations: iterations)
  exit(0)
}

let date = Machine.timestamp()
let machine = Machine.describe()
let plan = options.quick ? SamplingPlan.quick : SamplingPlan.full
print(
  "knapsack-bench: \(options.quick ? "quick" : "full") run, \(plan.samples) samples of ≥ \(plan.sampleNanoseconds / 1_000_000) ms each"
)
print("\(date), \(machine)")
#if DEBUG
print("warning: this is a debug build; run with -c release for meaningful numbers")
#endif

let benchmarks = allBenchmarks().filter { options.only?.contains($0.scenario) ?? true }
let notApplicable = benchmarks.compactMap { benchmark -> NotApplicable? in
  guard case .notApplicable(let reason) = benchmark.workload else { return nil }
  return NotApplicable(scenario: benchmark.scenario, contender: benchmark.contender.rawValue, reason: reason)
}
let firstRuns = options.only.map { $0.contains("S4/10000") } ?? true ? firstStartUps() : []
var results = try measure(benchmarks, plan: plan) { print($0) }

if options.only?.contains("S4/10000") ?? true {
  let bytes = bytesPerRegistration()
  for index in results.indices where results[index].scenario == "S4/10000" {
    if let contender = Contender(rawValue: results[index].contender), let value = bytes[contender], value.isFinite {
      results[index].bytesPerRegistration = value
    }
  }
}

if options.only?.contains("S4/10000") ?? true {
  for index in results.indices where results[index].scenario == "S4/10000" {
    if let contender = Contender(rawValue: results[index].contender) {
      results[index].peakResidentBytes = peakResidentBytes(of: contender)
    }
  }
}

if let index = results.firstIndex(where: { $0.scenario == "S8" && $0.contender == Contender.knapsack.rawValue }) {
  results[index].stackBytesPerLevelRelease = stackBytesPerLevel().map(Double.init)
  results[index].stackBytesPerLevelDebug = options.debugStackBytes
}

print(ResultsTable.text(results: results, scenarios: scenarioInfos, notApplicable: notApplicable))
if !firstRuns.isEmpty {
  print("First 10,000-registration start-up in this process (one sample each, incl. one-time work):")
  print("  " + firstRuns.map { "\($0.0.rawValue) \(SVGChart.durationLabel(Double($0.1)))" }.joined(separator: ", "))
}
print("Ratios: the row's median ÷ the column contender's median (2.0 = twice as slow; 0.1 = ten times faster).")
writeOutputs(results, notApplicable: notApplicable, options: options, date: date, machine: machine)
