import Common
import Foundation

/// Any JSON value, so that a file store can keep each entry as readable JSON inside one document.
enum JSONValue: Codable, Equatable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}

/// The encoders every store uses, so that all stores write the same JSON for a value.
///
/// Dates are ISO 8601 in UTC with microseconds (`2026-11-23T08:50:25.123456Z`), so that items made
/// within one second keep their order (the list is ordered by creation time); dates without a
/// fraction, as earlier versions wrote them, still read.
enum StoreCoding {
  static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(text(of: date))
    }
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return encoder
  }

  static func decoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = date(from: text) else {
        throw DecodingError.dataCorruptedError(
          in: container, debugDescription: "Expected an ISO 8601 date, found \(text)")
      }
      return date
    }
    return decoder
  }

  static func text(of date: Date) -> String {
    let microseconds = TodoCursor.microseconds(date)
    let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
    let (wholeSeconds, micros) = fraction < 0 ? (seconds - 1, fraction + 1_000_000) : (seconds, fraction)
    let whole = Date(timeIntervalSince1970: TimeInterval(wholeSeconds)).formatted(.iso8601)
    let digits = String(micros)
    return whole.dropLast() + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
  }

  static func date(from text: String) -> Date? {
    guard text.hasSuffix("Z") else { return nil }
    let parts = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = try? Date.ISO8601FormatStyle().parse(parts[0] + "Z") else { return nil }
    guard parts.count == 2 else { return whole }
    let fraction = parts[1]
    guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCII), let value = Int(fraction) else {
      return nil
    }
    let scale = (0..<fraction.count).reduce(1) { result, _ in result * 10 }
    return Date(
      timeIntervalSince1970: whole.timeIntervalSince1970 + TimeInterval(value) / TimeInterval(scale))
  }
}
