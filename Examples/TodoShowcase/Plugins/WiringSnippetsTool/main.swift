// showcase-wiring-snippets: reads Swift sources and writes a Swift file with every region marked
//
//     // showcase:begin CAPTION
//     ...code...
//     // showcase:end
//
// as a `WiringSnippet` constant (module, path, first line, caption, code with the common
// indentation removed). Run by WiringSnippetsPlugin at build time; a malformed region is reported
// as `path:line:column: error: message` and fails the build.
//
//     showcase-wiring-snippets --root DIR --output FILE [--module NAME FILE...]...
import Foundation

struct Snippet {
  var module: String
  var path: String
  var line: Int
  var caption: String
  var code: String
}

struct MarkerError: Error {
  var path: String
  var line: Int
  var column: Int
  var message: String
}

/// The markers. Static, so they are initialized on first use: a top-level `let` in main.swift is
/// only set when the top-level code runs, which a test importing this module never does.
enum Marker {
  static let begin = "// showcase:begin"
  static let end = "// showcase:end"
}

/// The marked regions of one file, in line order.
func snippets(module: String, file: String, relativePath: String, text: String) throws -> [Snippet] {
  var found: [Snippet] = []
  var open: (line: Int, caption: String, lines: [String])?
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  for (index, line) in lines.enumerated() {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    let column = line.prefix { $0 == " " || $0 == "\t" }.count + 1
    if trimmed.hasPrefix(Marker.begin) {
      if let open {
        throw MarkerError(
          path: file, line: index + 1, column: column,
          message: "a showcase region begins inside the one begun on line \(open.line - 1)")
      }
      let caption = trimmed.dropFirst(Marker.begin.count).trimmingCharacters(in: .whitespaces)
      guard !caption.isEmpty else {
        throw MarkerError(
          path: file, line: index + 1, column: column,
          message: "a showcase region needs a caption: // showcase:begin CAPTION")
      }
      open = (index + 2, caption, [])
    } else if trimmed.hasPrefix(Marker.end) {
      guard let region = open else {
        throw MarkerError(
          path: file, line: index + 1, column: column, message: "// showcase:end without a // showcase:begin")
      }
      found.append(
        Snippet(
          module: module, path: relativePath, line: region.line, caption: region.caption,
          code: dedented(region.lines)))
      open = nil
    } else if open != nil {
      open?.lines.append(line)
    }
  }
  if let open {
    throw MarkerError(
      path: file, line: open.line - 1, column: 1, message: "this showcase region has no // showcase:end")
  }
  return found
}

/// The lines without their common leading spaces, joined, without trailing blank lines.
func dedented(_ lines: [String]) -> String {
  let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { $0.prefix { $0 == " " }.count }
  let indent = indents.min() ?? 0
  var result = lines.map { $0.count >= indent ? String($0.dropFirst(indent)) : "" }
  while let last = result.last, last.trimmingCharacters(in: .whitespaces).isEmpty { result.removeLast() }
  return result.joined(separator: "\n")
}

/// A Swift string literal holding `text` exactly.
func literal(_ text: String) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": result += "\\\\"
    case "\"": result += "\\\""
    case "\n": result += "\\n"
    case "\r": result += "\\r"
    case "\t": result += "\\t"
    default:
      if scalar.value < 0x20 || scalar.value == 0x7F {
        result += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
  }
  return result + "\""
}

func run() -> Int32 {
  var arguments = Array(CommandLine.arguments.dropFirst())
  var root = ""
  var output = ""
  var files: [(module: String, path: String)] = []
  var module: String?
  while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--root": root = arguments.isEmpty ? "" : arguments.removeFirst()
    case "--output": output = arguments.isEmpty ? "" : arguments.removeFirst()
    case "--module": module = arguments.isEmpty ? nil : arguments.removeFirst()
    default:
      guard let module else {
        FileHandle.standardError.write(Data("error: \(argument) comes before any --module\n".utf8))
        return 2
      }
      files.append((module, argument))
    }
  }
  guard !root.isEmpty, !output.isEmpty else {
    FileHandle.standardError.write(
      Data("usage: showcase-wiring-snippets --root DIR --output FILE [--module NAME FILE...]...\n".utf8))
    return 2
  }
  let rootPrefix = root.hasSuffix("/") ? root : root + "/"
  var all: [Snippet] = []
  do {
    for (module, path) in files {
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let relative = path.hasPrefix(rootPrefix) ? String(path.dropFirst(rootPrefix.count)) : path
      all += try snippets(module: module, file: path, relativePath: relative, text: text)
    }
  } catch let error as MarkerError {
    FileHandle.standardError.write(Data("\(error.path):\(error.line):\(error.column): error: \(error.message)\n".utf8))
    return 1
  } catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    return 1
  }
  all.sort { ($0.module, $0.path, $0.line) < ($1.module, $1.path, $1.line) }
  var swift = """
    // Generated at build time by showcase-wiring-snippets (WiringSnippetsPlugin) from the
    // `// showcase:begin` regions of the sources. Not committed; do not edit.

    extension WiringSnippet {
      /// Every marked region of the package's modules, by module, path and line.
      public static let all: [WiringSnippet] = [

    """
  for snippet in all {
    swift += """
          WiringSnippet(
            module: \(literal(snippet.module)),
            path: \(literal(snippet.path)),
            line: \(snippet.line),
            caption: \(literal(snippet.caption)),
            code: \(literal(snippet.code))
          ),

      """
  }
  swift += "  ]\n}\n"
  do {
    // Rewrite only on change, so an unchanged result does not recompile the module.
    if (try? String(contentsOfFile: output, encoding: .utf8)) != swift {
      try swift.write(toFile: output, atomically: true, encoding: .utf8)
    }
  } catch {
    FileHandle.standardError.write(Data("error: cannot write \(output): \(error)\n".utf8))
    return 1
  }
  return 0
}

exit(run())
