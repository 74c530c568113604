import Foundation

/// Renders results as a grouped horizontal bar chart of each contender's time as a multiple of
/// manual construction's in the same scenario, on a logarithmic axis, with the goal (3× manual)
/// drawn as a line.
public enum SVGChart {
  /// Contenders in drawing order, with their bar colours.
  public static let palette: [(contender: String, color: String)] = [
    ("manual", "#7f7f7f"),
    ("knapsack", "#2b7bb9"),
    ("swinject", "#e08a2e"),
    ("swift-dependencies", "#4a9e5c"),
  ]

  /// The goal for Knapsack: within this multiple of manual construction.
  public static let goal = 3.0

  /// An SVG document showing every result's median (bar) and min–max (whisker), each divided
  /// by manual construction's median in the same scenario (a scenario without a manual result
  /// is drawn as n/a).
  ///
  /// - Parameters:
  ///   - results: The rows to draw; scenarios keep their first-seen order.
  ///   - date: When the run happened, shown under the title.
  ///   - machine: What the run happened on, shown under the title.
  public static func render(results: [BenchResult], date: String, machine: String) -> String {
    let scenarios = results.map(\.scenario).uniqued()
    let contenders =
      palette.map(\.contender).filter { name in results.contains { $0.contender == name } }
      + results.map(\.contender).uniqued().filter { name in !palette.contains { $0.contender == name } }
    var manual: [String: Double] = [:]
    for result in results where result.contender == "manual" && result.nanoseconds.median > 0 {
      manual[result.scenario] = result.nanoseconds.median
    }
    /// `result`'s figures as multiples of manual's median, if the scenario has one.
    func ratios(_ result: BenchResult) -> Summary? {
      guard let base = manual[result.scenario] else { return nil }
      let figures = result.nanoseconds
      return Summary(median: figures.median / base, min: figures.min / base, max: figures.max / base)
    }
    let positive = (results.compactMap(ratios).flatMap { [$0.min, $0.max, $0.median] } + [1, goal])
      .filter { $0.isFinite && $0 > 0 }
    let lowDecade = min(floor(log10(positive.min() ?? 1)), 0)
    let highDecade = max(ceil(log10(positive.max() ?? 10)), lowDecade + 1)

    let width = 980.0
    let left = 130.0
    let right = 110.0
    let top = 96.0
    let barHeight = 11.0
    let groupGap = 12.0
    let groupHeight = Double(max(contenders.count, 1)) * barHeight + groupGap
    let plotWidth = width - left - right
    let plotHeight = Double(scenarios.count) * groupHeight
    let height = top + plotHeight + 44

    func x(_ ratio: Double) -> Double {
      let clamped = min(max(ratio, pow(10, lowDecade)), pow(10, highDecade))
      return left + (log10(clamped) - lowDecade) / (highDecade - lowDecade) * plotWidth
    }

    var svg: [String] = []
    svg.append(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(format(width))\" height=\"\(format(height))\" "
        + "viewBox=\"0 0 \(format(width)) \(format(height))\" font-family=\"Helvetica, Arial, sans-serif\" "
        + "font-size=\"11\">")
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
    svg.append(
      "<text x=\"\(format(left))\" y=\"22\" font-size=\"15\" font-weight=\"bold\">"
        + "Knapsack benchmarks: time per operation ÷ manual construction (median, min–max), log scale</text>")
    svg.append(
      "<text x=\"\(format(left))\" y=\"40\" fill=\"#444444\">"
        + escape("Run \(date) on \(machine)") + "</text>")

    // Legend.
    var legendX = left
    for name in contenders {
      svg.append(
        "<rect x=\"\(format(legendX))\" y=\"52\" width=\"12\" height=\"12\" fill=\"\(color(of: name))\"/>")
      svg.append("<text x=\"\(format(legendX + 16))\" y=\"62\">\(escape(name))</text>")
      legendX += 28 + Double(name.count) * 6.5
    }

    // Decade grid lines and labels.
    var decade = lowDecade
    while decade <= highDecade {
      let gx = x(pow(10, decade))
      svg.append(
        "<line x1=\"\(format(gx))\" y1=\"\(format(top - 6))\" x2=\"\(format(gx))\" "
          + "y2=\"\(format(top + plotHeight))\" stroke=\"#dddddd\"/>")
      svg.append(
        "<text x=\"\(format(gx))\" y=\"\(format(top + plotHeight + 16))\" text-anchor=\"middle\" "
          + "fill=\"#444444\">\(escape(ratioLabel(pow(10, decade))))</text>")
      decade += 1
    }
    let goalX = x(goal)
    svg.append(
      "<line x1=\"\(format(goalX))\" y1=\"\(format(top - 10))\" x2=\"\(format(goalX))\" "
        + "y2=\"\(format(top + plotHeight))\" stroke=\"#c0392b\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>")
    svg.append(
      "<text x=\"\(format(goalX + 4))\" y=\"\(format(top - 12))\" fill=\"#c0392b\">"
        + "goal: \(escape(ratioLabel(goal))) manual</text>")
    svg.append(
      "<text x=\"\(format(left + plotWidth / 2))\" y=\"\(format(top + plotHeight + 34))\" "
        + "text-anchor=\"middle\" fill=\"#444444\">"
        + "time per operation ÷ manual construction's (log scale; shorter is faster)</text>")

    for (row, scenario) in scenarios.enumerated() {
      let groupTop = top + Double(row) * groupHeight
      svg.append(
        "<text x=\"\(format(left - 8))\" y=\"\(format(groupTop + groupHeight / 2))\" "
          + "text-anchor=\"end\" font-weight=\"bold\">\(escape(scenario))</text>")
      for (slot, name) in contenders.enumerated() {
        let barTop = groupTop + Double(slot) * barHeight
        let middle = barTop + (barHeight - 2) / 2
        guard let result = results.first(where: { $0.scenario == scenario && $0.contender == name }) else {
          svg.append(
            "<text x=\"\(format(left + 4))\" y=\"\(format(middle + 3.5))\" fill=\"#999999\" "
              + "font-size=\"9\">\(escape(name)): n/a</text>")
          continue
        }
        guard let summary = ratios(result) else {
          svg.append(
            "<text x=\"\(format(left + 4))\" y=\"\(format(middle + 3.5))\" fill=\"#999999\" "
              + "font-size=\"9\">\(escape(name)): n/a (no manual figure)</text>")
          continue
        }
        let barEnd = x(summary.median)
        let tooltip =
          "\(scenario) \(name): \(ratioLabel(summary.median)) manual, \(durationLabel(result.nanoseconds.median))"
        svg.append(
          "<rect x=\"\(format(left))\" y=\"\(format(barTop))\" width=\"\(format(max(barEnd - left, 1)))\" "
            + "height=\"\(format(barHeight - 2))\" fill=\"\(color(of: name))\">"
            + "<title>" + escape(tooltip) + "</title></rect>")
        svg.append(
          "<line x1=\"\(format(x(summary.min)))\" y1=\"\(format(middle))\" x2=\"\(format(x(summary.max)))\" "
            + "y2=\"\(format(middle))\" stroke=\"#222222\" stroke-width=\"1\"/>")
        svg.append(
          "<text x=\"\(format(max(barEnd, x(summary.max)) + 4))\" y=\"\(format(middle + 3.5))\" "
            + "font-size=\"9\" fill=\"#222222\">\(escape(ratioLabel(summary.median)))</text>")
      }
    }
    svg.append("</svg>")
    return svg.joined(separator: "\n") + "\n"
  }

  /// A short multiple label: `0.5×`, `3×`, `12×`, `1,200×`.
  public static func ratioLabel(_ ratio: Double) -> String {
    if ratio >= 100 { return String(format: "%.0f×", ratio) }
    if ratio >= 10 || ratio == ratio.rounded() { return String(format: "%.0f×", ratio) }
    return String(format: "%.1f×", ratio)
  }

  /// A short duration label: `850 ps`, `12.3 ns`, `4.5 µs`, `1.2 ms`, `3.4 s`.
  public static func durationLabel(_ nanoseconds: Double) -> String {
    let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1, "ns"), (1e-3, "ps")]
    for (scale, unit) in units where nanoseconds >= scale || scale == 1e-3 {
      let value = nanoseconds / scale
      let digits = value >= 100 ? 0 : (value >= 10 ? 1 : 2)
      return String(format: "%.\(digits)f", value) + " " + unit
    }
    return "\(nanoseconds) ns"
  }

  static func color(of contender: String) -> String {
    palette.first { $0.contender == contender }?.color ?? "#9467bd"
  }

  static func format(_ value: Double) -> String {
    String(format: "%.1f", value)
  }

  static func escape(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(character)
      }
    }
    return out
  }
}

extension Array where Element: Hashable {
  func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
