/// Text from outside (a stored title, a request's path) made safe to print on a terminal or in a
/// log line: the one escaping that the command line's output and the access log share.
enum EscapedText {
  /// `text` with each scalar that `escapes` picks written as `\u{1B}`, and, past `maximumScalars`
  /// scalars, cut with its full length in bytes after an ellipsis, `…(81920 bytes)`.
  static func escaping(
    _ text: String, maximumScalars: Int = .max, where escapes: (Unicode.Scalar) -> Bool
  ) -> String {
    var result = ""
    var scalars = 0
    for scalar in text.unicodeScalars {
      if scalars >= maximumScalars { return result + "…(\(text.utf8.count) bytes)" }
      if escapes(scalar) {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
      scalars += 1
    }
    return result
  }

  /// Whether `scalar` is a control character (category Cc: ESC, DEL, the C1 CSI U+009B, a tab),
  /// an invisible format character (Cf: U+202E, which reverses the rest of the line) or a line or
  /// paragraph separator (Zl, Zp): what a log line or a page that shows a client's text writes
  /// as `\u{202E}`, so that the text cannot reorder or break what is around it.
  static func isControlOrInvisible(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator: true
    default: false
    }
  }

  /// The most Unicode scalars of a client's text (a path, a query value, a header) that a
  /// response shows back, in a message that says what was not found or refused.
  static var maximumEchoedLength: Int { 200 }

  /// A client's `text` as a response's message may show it (escaped again for HTML or JSON where
  /// it is written): control and invisible characters as `\u{202E}`, and cut after
  /// ``maximumEchoedLength`` scalars with its full length in bytes, so that a crafted link
  /// cannot put a message of its own, or megabytes of text, in the app's page.
  static func echoed(_ text: String) -> String {
    escaping(text, maximumScalars: maximumEchoedLength, where: isControlOrInvisible)
  }
}
