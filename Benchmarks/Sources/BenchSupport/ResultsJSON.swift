import Foundation

/// Reads and writes the results file: a JSON array of
/// `{"scenario": "S1", "contender": "knapsack", "median_ns": 1.2, "min_ns": 1.1, "max_ns": 1.4}`,
/// with `"allocations_per_op"` on every row that was counted, `"ops_per_s"` on S5 rows,
/// `"bytes_per_registration"` and `"peak_rss_bytes"` on the 10,000-registration rows, and
/// `"stack_bytes_per_level_release"` / `"stack_bytes_per_level_debug"` on Knapsack's S8 row.
public enum ResultsJSON {
  /// The results as a pretty-printed JSON array, one object per line, keys in a fixed order.
  public static func encode(_ results: [BenchResult]) -> String {
    var lines: [String] = []
    for result in results {
      var fields = [
        "\"scenario\": \(quoted(result.scenario))",
        "\"contender\": \(quoted(result.contender))",
        "\"median_ns\": \(number(result.nanoseconds.median))",
        "\"min_ns\": \(number(result.nanoseconds.min))",
        "\"max_ns\": \(number(result.nanoseconds.max))",
      ]
      let optional: [(String, Double?)] = [
        ("allocations_per_op", result.allocationsPerOperation),
        ("ops_per_s", result.operationsPerSecond?.rounded()),
        ("bytes_per_registration", result.bytesPerRegistration),
        ("peak_rss_bytes", result.peakResidentBytes),
        ("stack_bytes_per_level_release", result.stackBytesPerLevelRelease),
        ("stack_bytes_per_level_debug", result.stackBytesPerLevelDebug),
      ]
      for (key, value) in optional {
        if let value { fields.append("\"\(key)\": \(number(value))") }
      }
      lines.append("  {" + fields.joined(separator: ", ") + "}")
    }
    return lines.isEmpty ? "[]\n" : "[\n" + lines.joined(separator: ",\n") + "\n]\n"
  }

  /// Parses a results file written by ``encode(_:)``.
  public static func decode(_ data: Data) throws -> [BenchResult] {
    guard let array = try JSONSerialization.jsonObject(with: data) as? [Any] else {
      throw FormatError("the top level is not an array")
    }
    return try array.enumerated().map { index, element in
      guard let object = element as? [String: Any] else {
        throw FormatError("element \(index) is not an object")
      }
      func string(_ key: String) throws -> String {
        guard let value = object[key] as? String else {
          throw FormatError("element \(index) has no string \"\(key)\"")
        }
        return value
      }
      func double(_ key: String) throws -> Double {
        guard let value = object[key] as? NSNumber else {
          throw FormatError("element \(index) has no number \"\(key)\"")
        }
        return value.doubleValue
      }
      return BenchResult(
        scenario: try string("scenario"),
        contender: try string("contender"),
        nanoseconds: Summary(
          median: try double("median_ns"), min: try double("min_ns"), max: try double("max_ns")),
        operationsPerSecond: (object["ops_per_s"] as? NSNumber)?.doubleValue,
        bytesPerRegistration: (object["bytes_per_registration"] as? NSNumber)?.doubleValue,
        allocationsPerOperation: (object["allocations_per_op"] as? NSNumber)?.doubleValue,
        peakResidentBytes: (object["peak_rss_bytes"] as? NSNumber)?.doubleValue,
        stackBytesPerLevelRelease: (object["stack_bytes_per_level_release"] as? NSNumber)?.doubleValue,
        stackBytesPerLevelDebug: (object["stack_bytes_per_level_debug"] as? NSNumber)?.doubleValue
      )
    }
  }

  /// A results file that does not have the expected shape.
  public struct FormatError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
  }

  static func quoted(_ string: String) -> String {
    var out = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// A JSON number with at most three decimals; NaN and infinities (not JSON) become `null`.
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded(), abs(rounded) < 1e15 {
      return String(Int64(rounded))
    }
    return "\(rounded)"
  }
}
