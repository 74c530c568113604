/// Helpers for writing HTML by hand.
public enum HTML {
  /// `text` with the five HTML-special characters replaced by entities, safe in element
  /// content and in quoted attribute values.
  public static func escape(_ text: some StringProtocol) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text.unicodeScalars {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }
}
