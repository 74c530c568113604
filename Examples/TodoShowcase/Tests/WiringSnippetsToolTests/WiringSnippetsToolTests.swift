import Testing

@testable import showcase_wiring_snippets

@Suite("The wiring-snippet extractor")
struct WiringSnippetsToolTests {
  @Test("A region becomes a snippet: caption, first code line, code without its common indentation")
  func region() throws {
    let text = """
      struct A {
        // showcase:begin The root
        func make() -> Int {
          1
        }

        // showcase:end
      }
      """
    let found = try snippets(module: "M", file: "/p/Sources/M/A.swift", relativePath: "Sources/M/A.swift", text: text)
    #expect(found.count == 1)
    #expect(found.first?.caption == "The root")
    #expect(found.first?.line == 3)
    #expect(found.first?.code == "func make() -> Int {\n  1\n}")
  }

  @Test(
    "A malformed region is an error at its line",
    arguments: [
      ("// showcase:end\n", 1, "without a // showcase:begin"),
      ("// showcase:begin A\n// showcase:begin B\n// showcase:end\n", 2, "begins inside"),
      ("x\n// showcase:begin A\nlet a = 1\n", 2, "has no // showcase:end"),
      ("// showcase:begin\n// showcase:end\n", 1, "needs a caption"),
    ])
  func malformed(text: String, line: Int, message: String) {
    #expect {
      _ = try snippets(module: "M", file: "/p/A.swift", relativePath: "A.swift", text: text)
    } throws: { error in
      guard let error = error as? MarkerError else { return false }
      return error.line == line && error.message.contains(message)
    }
  }

  @Test("A literal keeps quotes, backslashes, interpolation-like text and newlines as text")
  func literalEscaping() {
    #expect(literal(#"a "b" \(c)"# + "\n\t") == #""a \"b\" \\(c)\n\t""#)
  }
}
