import Foundation

/// A scenario's identifier and one-line description, for table headings.
public struct ScenarioInfo: Sendable {
  public var id: String
  public var title: String

  public init(id: String, title: String) {
    self.id = id
    self.title = title
  }
}

/// A contender that cannot run a scenario, and why.
public struct NotApplicable: Sendable {
  public var scenario: String
  public var contender: String
  public var reason: String

  public init(scenario: String, contender: String, reason: String) {
    self.scenario = scenario
    self.contender = contender
    self.reason = reason
  }
}

/// Formats results as a text table (terminal) or a Markdown table (README).
///
/// Each ratio cell is the row's median divided by the column contender's median in the same
/// scenario: `4.0` in the `manual` column means four times as slow as manual construction; `0.05`
/// in the `swinject` column means twenty times faster than Swinject.
public enum ResultsTable {
  public static let contenders = ["manual", "knapsack", "swinject", "swift-dependencies"]

  public static func text(
    results: [BenchResult], scenarios: [ScenarioInfo], notApplicable: [NotApplicable]
  ) -> String {
    let header = ["contender", "median ns/op", "min–max ns/op", "allocs/op"] + contenders.map { "÷ \($0)" } + ["extra"]
    var out = ""
    for scenario in orderedScenarios(results: results, scenarios: scenarios, notApplicable: notApplicable) {
      out += "\n\(scenario.id)  \(scenario.title)\n"
      var rows = [header]
      rows += tableRows(scenario: scenario.id, results: results, notApplicable: notApplicable)
      let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
      for row in rows {
        let cells = row.enumerated().map { column, cell in
          column == 0 || column == row.count - 1
            ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            : String(repeating: " ", count: widths[column] - cell.count) + cell
        }
        out += "  " + cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
      }
    }
    return out
  }

  public static func markdown(
    results: [BenchResult], scenarios: [ScenarioInfo], notApplicable: [NotApplicable]
  ) -> String {
    let header =
      ["scenario", "contender", "median ns/op", "min–max ns/op", "allocs/op"] + contenders.map { "÷ \($0)" } + ["extra"]
    var out = "| " + header.joined(separator: " | ") + " |\n"
    out +=
      "|" + header.enumerated().map { $0.offset < 2 || $0.offset == header.count - 1 ? "---|" : "---:|" }.joined()
      + "\n"
    for scenario in orderedScenarios(results: results, scenarios: scenarios, notApplicable: notApplicable) {
      for row in tableRows(scenario: scenario.id, results: results, notApplicable: notApplicable) {
        out +=
          "| \(scenario.id) | " + row.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ")
          + " |\n"
      }
    }
    return out
  }

  static func orderedScenarios(
    results: [BenchResult], scenarios: [ScenarioInfo], notApplicable: [NotApplicable]
  ) -> [ScenarioInfo] {
    let present = Set(results.map(\.scenario) + notApplicable.map(\.scenario))
    var ordered = scenarios.filter { present.contains($0.id) }
    for id in (results.map(\.scenario) + notApplicable.map(\.scenario)).uniqued()
    where !ordered.contains(where: { $0.id == id }) {
      ordered.append(ScenarioInfo(id: id, title: ""))
    }
    return ordered
  }

  static func tableRows(scenario: String, results: [BenchResult], notApplicable: [NotApplicable]) -> [[String]] {
    let rows = results.filter { $0.scenario == scenario }
    func median(of contender: String) -> Double? {
      rows.first { $0.contender == contender }?.nanoseconds.median
    }
    var lines: [[String]] = []
    for contender in contenders + rows.map(\.contender).uniqued().filter({ !contenders.contains($0) }) {
      if let row = rows.first(where: { $0.contender == contender }) {
        let ratios = contenders.map { other -> String in
          guard other != contender, let base = median(of: other), base > 0 else { return "" }
          return ratio(row.nanoseconds.median / base)
        }
        var extra: [String] = []
        if let ops = row.operationsPerSecond { extra.append("\(grouped(ops)) ops/s") }
        if let bytes = row.bytesPerRegistration { extra.append("\(fixed(bytes, 0)) B/registration") }
        if let peak = row.peakResidentBytes { extra.append("peak RSS \(fixed(peak / 1_048_576, 1)) MiB") }
        if let release = row.stackBytesPerLevelRelease {
          var stack = "stack \(fixed(release, 0)) B/level (release)"
          if let debug = row.stackBytesPerLevelDebug { stack += ", \(fixed(debug, 0)) B/level (debug)" }
          extra.append(stack)
        }
        lines.append(
          [
            contender, fixed(row.nanoseconds.median), "\(fixed(row.nanoseconds.min))–\(fixed(row.nanoseconds.max))",
            row.allocationsPerOperation.map { allocations($0) } ?? "",
          ]
            + ratios + [extra.joined(separator: ", ")])
      } else if let missing = notApplicable.first(where: { $0.scenario == scenario && $0.contender == contender }) {
        lines.append([contender, "n/a", "", ""] + contenders.map { _ in "" } + [missing.reason])
      }
    }
    return lines
  }

  static func fixed(_ value: Double, _ digits: Int? = nil) -> String {
    let places = digits ?? (value >= 1000 ? 0 : value >= 100 ? 1 : 2)
    return String(format: "%.\(places)f", value)
  }

  /// Allocations per operation: whole numbers as they are, fractions (set-up spread over many
  /// operations, or a cache growing now and then) with two decimals.
  static func allocations(_ value: Double) -> String {
    value >= 1000 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.2f", value)
  }

  static func ratio(_ value: Double) -> String {
    value >= 10
      ? String(format: "%.0f", value) : value >= 0.1 ? String(format: "%.2f", value) : String(format: "%.3f", value)
  }

  static func grouped(_ value: Double) -> String {
    let digits = String(Int64(value.rounded()))
    var out = ""
    for (index, character) in digits.reversed().enumerated() {
      if index > 0, index % 3 == 0 { out.append(",") }
      out.append(character)
    }
    return String(out.reversed())
  }
}

extension String {
  func trimmingTrailingSpaces() -> String {
    var copy = self
    while copy.last == " " { copy.removeLast() }
    return copy
  }
}
