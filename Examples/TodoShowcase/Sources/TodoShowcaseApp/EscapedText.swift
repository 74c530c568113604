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
}
