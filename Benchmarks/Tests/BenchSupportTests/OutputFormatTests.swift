import BenchSupport
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

// Format checks only: no timing is measured or asserted here.

let sample = [
  BenchResult(scenario: "S1", contender: "manual", nanoseconds: Summary(median: 12.5, min: 12, max: 14.25)),
  BenchResult(
    scenario: "S1", contender: "knapsack", nanoseconds: Summary(median: 20, min: 19.5, max: 31),
    allocationsPerOperation: 1),
  BenchResult(scenario: "S1", contender: "swinject", nanoseconds: Summary(median: 1800, min: 1700, max: 2500)),
  BenchResult(
    scenario: "S4/10000", contender: "swinject", nanoseconds: Summary(median: 1.6e7, min: 1.5e7, max: 1.7e7),
    bytesPerRegistration: 320.3, allocationsPerOperation: 61_234.25, peakResidentBytes: 52_428_800),
  BenchResult(
    scenario: "S5/2-threads", contender: "manual", nanoseconds: Summary(median: 27.8, min: 26.9, max: 39.4),
    operationsPerSecond: 35_976_211, allocationsPerOperation: 0.25),
  BenchResult(
    scenario: "S8", contender: "knapsack", nanoseconds: Summary(median: 3000, min: 2900, max: 3100),
    allocationsPerOperation: 100, stackBytesPerLevelRelease: 320, stackBytesPerLevelDebug: 1184),
]

@Suite struct ResultsJSONTests {
  @Test func writesAnArrayOfObjectsWithTheDocumentedKeys() throws {
    let text = ResultsJSON.encode(sample)
    let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    #expect(parsed.count == sample.count)
    for object in parsed {
      #expect(object["scenario"] is String)
      #expect(object["contender"] is String)
      for key in ["median_ns", "min_ns", "max_ns"] {
        #expect(object[key] is NSNumber, "missing \(key)")
      }
    }
    #expect(parsed[0]["scenario"] as? String == "S1")
    #expect(parsed[0]["contender"] as? String == "manual")
    #expect((parsed[0]["median_ns"] as? NSNumber)?.doubleValue == 12.5)
    #expect((parsed[4]["ops_per_s"] as? NSNumber)?.doubleValue == 35_976_211)
    #expect(parsed[0]["ops_per_s"] == nil)
    #expect((parsed[3]["bytes_per_registration"] as? NSNumber)?.doubleValue == 320.3)
    #expect((parsed[3]["peak_rss_bytes"] as? NSNumber)?.doubleValue == 52_428_800)
    #expect((parsed[1]["allocations_per_op"] as? NSNumber)?.doubleValue == 1)
    #expect(parsed[0]["allocations_per_op"] == nil)
    #expect((parsed[4]["allocations_per_op"] as? NSNumber)?.doubleValue == 0.25)
    #expect((parsed[5]["stack_bytes_per_level_release"] as? NSNumber)?.doubleValue == 320)
    #expect((parsed[5]["stack_bytes_per_level_debug"] as? NSNumber)?.doubleValue == 1184)
    #expect(parsed[1]["stack_bytes_per_level_release"] == nil)
  }

  @Test func roundTrips() throws {
    let decoded = try ResultsJSON.decode(Data(ResultsJSON.encode(sample).utf8))
    #expect(decoded == sample)
  }

  @Test func emptyResultsAreAnEmptyArray() throws {
    let parsed = try JSONSerialization.jsonObject(with: Data(ResultsJSON.encode([]).utf8)) as? [Any]
    #expect(parsed?.isEmpty == true)
  }

  @Test func escapesStringsAndWritesNonFiniteNumbersAsNull() throws {
    let odd = BenchResult(
      scenario: "S\"1\\\n\u{1}", contender: "ünïcode", nanoseconds: Summary(median: .nan, min: -.infinity, max: 3))
    let text = ResultsJSON.encode([odd])
    let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    #expect(parsed[0]["scenario"] as? String == "S\"1\\\n\u{1}")
    #expect(parsed[0]["contender"] as? String == "ünïcode")
    #expect(parsed[0]["median_ns"] is NSNull)
    #expect(parsed[0]["min_ns"] is NSNull)
  }

  @Test func rejectsAFileOfTheWrongShape() {
    #expect(throws: ResultsJSON.FormatError.self) { try ResultsJSON.decode(Data("{\"a\": 1}".utf8)) }
    #expect(throws: ResultsJSON.FormatError.self) { try ResultsJSON.decode(Data("[{\"scenario\": \"S1\"}]".utf8)) }
  }
}

/// Collects element names and text while checking that a document parses.
final class XMLCollector: NSObject, XMLParserDelegate {
  var elements: [String] = []
  var text = ""

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    elements.append(elementName)
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    text += string
  }
}

@Suite struct SVGChartTests {
  func parse(_ svg: String) -> (ok: Bool, collector: XMLCollector) {
    let parser = XMLParser(data: Data(svg.utf8))
    let collector = XMLCollector()
    parser.delegate = collector
    return (parser.parse(), collector)
  }

  @Test func rendersWellFormedSVGWithDateMachineAndOneBarPerResult() {
    let svg = SVGChart.render(results: sample, date: "2026-11-22 06:00 UTC", machine: "AMD EPYC, 2 cores")
    let (ok, collector) = parse(svg)
    #expect(ok)
    #expect(collector.elements.first == "svg")
    #expect(svg.contains("xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(collector.text.contains("2026-11-22 06:00 UTC"))
    #expect(collector.text.contains("AMD EPYC, 2 cores"))
    #expect(collector.text.contains("log scale"))
    // One bar (rect with a tooltip title) per result whose scenario has a manual figure to divide
    // by; the others are marked n/a. The goal line is labelled.
    let withManual = sample.filter { result in
      sample.contains { $0.scenario == result.scenario && $0.contender == "manual" }
    }
    #expect(collector.elements.filter { $0 == "title" }.count == withManual.count)
    #expect(collector.text.contains("swinject: n/a (no manual figure)"))
    #expect(collector.text.contains("goal: 3× manual"))
    #expect(collector.text.contains("144×"), "S1 swinject is 1,800 ns ÷ 12.5 ns")
    for scenario in ["S1", "S4/10000", "S5/2-threads"] {
      #expect(collector.text.contains(scenario))
    }
  }

  @Test func marksMissingContendersAndEscapesMarkup() {
    let results = [
      BenchResult(scenario: "S<6>", contender: "manual", nanoseconds: Summary(median: 5, min: 4, max: 6)),
      BenchResult(scenario: "S7", contender: "swift-dependencies", nanoseconds: Summary(median: 5, min: 4, max: 6)),
    ]
    let svg = SVGChart.render(results: results, date: "today & <now>", machine: "\"quoted\" 'machine'")
    let (ok, collector) = parse(svg)
    #expect(ok)
    #expect(collector.text.contains("today & <now>"))
    #expect(collector.text.contains("manual: n/a"))
  }

  @Test func ratioLabels() {
    #expect(SVGChart.ratioLabel(1) == "1×")
    #expect(SVGChart.ratioLabel(2.54) == "2.5×")
    #expect(SVGChart.ratioLabel(12.4) == "12×")
    #expect(SVGChart.ratioLabel(1234) == "1234×")
  }

  @Test func rendersEmptyResults() {
    #expect(parse(SVGChart.render(results: [], date: "d", machine: "m")).ok)
  }

  @Test func labelsDurations() {
    #expect(SVGChart.durationLabel(12.345) == "12.3 ns")
    #expect(SVGChart.durationLabel(4500) == "4.50 µs")
    #expect(SVGChart.durationLabel(1.6e7) == "16.0 ms")
    #expect(SVGChart.durationLabel(0.5) == "500 ps")
  }
}

@Suite struct TableTests {
  @Test func medianOfOddAndEvenCounts() {
    #expect(Summary(samples: [3, 1, 2]).median == 2)
    #expect(Summary(samples: [4, 1, 3, 2]) == Summary(median: 2.5, min: 1, max: 4))
  }

  @Test func tablesShowRatiosAndNotApplicableRows() {
    let scenarios = [ScenarioInfo(id: "S1", title: "transient"), ScenarioInfo(id: "S6", title: "override")]
    let missing = [NotApplicable(scenario: "S6", contender: "swinject", reason: "no scoped override")]
    let text = ResultsTable.text(results: sample, scenarios: scenarios, notApplicable: missing)
    #expect(text.contains("S1  transient"))
    #expect(text.contains("1.60"))  // knapsack ÷ manual = 20 / 12.5
    #expect(text.contains("no scoped override"))
    let markdown = ResultsTable.markdown(results: sample, scenarios: scenarios, notApplicable: missing)
    let rows = markdown.split(separator: "\n")
    #expect(rows.count == 2 + 7)  // header, rule, 3 × S1, S4, S5, S6 n/a, S8
    #expect(rows.allSatisfy { $0.hasPrefix("|") && $0.hasSuffix("|") })
  }

  @Test func tablesShowAllocationsPeakMemoryAndStack() throws {
    let markdown = ResultsTable.markdown(results: sample, scenarios: [], notApplicable: [])
    let rows = markdown.split(separator: "\n").map(String.init)
    func cells(_ row: String) -> [String] {
      row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }
    func row(_ prefix: String) throws -> [String] { cells(try #require(rows.first { $0.hasPrefix(prefix) })) }
    let column = try #require(cells(rows[0]).firstIndex(of: "allocs/op"))
    #expect(try row("| S1 | knapsack |")[column] == "1")
    #expect(try row("| S1 | manual |")[column] == "")  // not counted: the cell stays empty
    #expect(try row("| S5/2-threads |")[column] == "0.25")
    #expect(try row("| S4/10000 |")[column] == "61234")
    #expect(try row("| S4/10000 |").last { !$0.isEmpty } == "320 B/registration, peak RSS 50.0 MiB")
    #expect(markdown.contains("stack 320 B/level (release), 1184 B/level (debug)"))
  }
}
