/// Helpers for writing HTML by hand.
public enum HTML {
  /// `text` with the five HTML-special characters replaced by entities, safe in element
  /// content and in quoted attribute values. A control character other than HTML's whitespace
  /// (tab, line feed, form feed, carriage return), and a noncharacter (U+FDD0, U+FFFE, …), which
  /// HTML forbids as text (a refused title echoed back would make the page invalid), is shown as
  /// U+FFFD, the replacement character.
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
      case "\t", "\n", "\u{0C}", "\r": escaped.unicodeScalars.append(character)
      case _ where character.properties.generalCategory == .control || character.properties.isNoncharacterCodePoint:
        escaped += "\u{FFFD}"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }
}
