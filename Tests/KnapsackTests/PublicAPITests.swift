import Foundation
import Testing

// The public API of Knapsack and KnapsackTesting, one declaration per line, is checked in as
// api/Knapsack.txt and api/KnapsackTesting.txt, so that every API change shows in a diff. This
// test lists the API of the modules it was built with (their symbol graphs, extracted from the
// build's own module files) and fails when a checked-in list differs.
// `KNAPSACK_UPDATE_API=1 swift test --filter PublicAPI` (or `bash scripts/api.sh`) rewrites them.

@Suite("Public API list")
struct PublicAPITests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  @Test("api/*.txt lists every public declaration", arguments: ["Knapsack", "KnapsackTesting"])
  func listIsCurrent(module: String) throws {
    let build = try #require(Self.buildDirectory(), "no built Knapsack.swiftmodule above the test executable")
    let listed = try Self.publicDeclarations(of: module, builtIn: build)
    let file = Self.root.appendingPathComponent("api/\(module).txt")
    let text = listed.map { $0 + "\n" }.joined()
    if ProcessInfo.processInfo.environment["KNAPSACK_UPDATE_API"] == "1" {
      try text.write(to: file, atomically: true, encoding: .utf8)
      return
    }
    let committed = try String(contentsOf: file, encoding: .utf8)
    let committedLines = Set(committed.split(separator: "\n").map(String.init))
    let added = listed.filter { !committedLines.contains($0) }
    let removed = committedLines.subtracting(listed).sorted()
    #expect(
      added.isEmpty && removed.isEmpty,
      """
      api/\(module).txt is out of date (\(listed.count) public declarations now); run \
      `bash scripts/api.sh` and commit the change.
      added:
      \(added.map { "+ " + $0 }.joined(separator: "\n"))
      removed:
      \(removed.map { "- " + $0 }.joined(separator: "\n"))
      """)
  }

  /// The directory the running test executable was built in: the one above it that holds
  /// `Modules/Knapsack.swiftmodule` (for `.build`, `.build-tsan` or any other scratch path).
  static func buildDirectory() -> URL? {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    while directory.path != "/" {
      let modules = directory.appendingPathComponent("Modules/Knapsack.swiftmodule")
      if FileManager.default.fileExists(atPath: modules.path) { return directory }
      directory.deleteLastPathComponent()
    }
    return nil
  }

  /// One line per public or open declaration of `module`: `Owner.Path: declaration`, sorted.
  static func publicDeclarations(of module: String, builtIn build: URL) throws -> [String] {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("knapsack-api-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: output) }
    try extractSymbolGraphs(of: module, builtIn: build, into: output)

    var lines = Set<String>()
    let graphs = try FileManager.default.contentsOfDirectory(atPath: output.path)
      .filter { $0 == "\(module).symbols.json" || $0.hasPrefix("\(module)@") }
    for name in graphs {
      let data = try Data(contentsOf: output.appendingPathComponent(name))
      let graph = try JSONDecoder().decode(SymbolGraph.self, from: data)
      for symbol in graph.symbols where symbol.accessLevel == "public" || symbol.accessLevel == "open" {
        // Copies of protocol-extension members on each conforming type: listed once, on the protocol.
        if symbol.identifier.precise.contains("::SYNTHESIZED::") { continue }
        let declaration = (symbol.declarationFragments ?? []).map(\.spelling).joined()
          .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let owner = symbol.pathComponents.dropLast().joined(separator: ".")
        lines.insert(owner.isEmpty ? declaration : "\(owner): \(declaration)")
      }
    }
    lines.formUnion(try underscoredDeclarations(of: module))
    return lines.sorted()
  }

  /// Runs the toolchain's `swift-symbolgraph-extract` on the module files of `build`.
  static func extractSymbolGraphs(of module: String, builtIn build: URL, into output: URL) throws {
    // The platform directory is named by the target triple: .build/x86_64-unknown-linux-gnu/debug.
    let triple = build.deletingLastPathComponent().lastPathComponent
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "swift-symbolgraph-extract", "-module-name", module, "-minimum-access-level", "public",
      "-I", build.appendingPathComponent("Modules").path,
      "-Xcc", "-fmodule-map-file=" + build.appendingPathComponent("CKnapsack.build/module.modulemap").path,
      "-target", triple, "-output-dir", output.path,
    ]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw ExtractionFailed(description: "swift-symbolgraph-extract failed for \(module):\n\(message)")
    }
  }

  /// Public declarations whose names start with "_": the compiler leaves them out of its symbol
  /// graphs, so they are found in the sources, and adding one shows in the diff too.
  static func underscoredDeclarations(of module: String) throws -> [String] {
    let pattern = try Regex(
      #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:[a-z]+\s+)*?"#
        + #"(?:func|var|let|class|struct|enum|protocol|typealias|actor)\s+(_\w*)"#)
    let sources = root.appendingPathComponent("Sources/\(module)")
    var found: [String] = []
    let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n", omittingEmptySubsequences: false)
      where line.prefixMatch(of: pattern) != nil {
        let head = line.split(separator: "{", maxSplits: 1, omittingEmptySubsequences: false)[0]
        found.append(
          "(underscored, not in the symbol graph) "
            + head.split(whereSeparator: \.isWhitespace).joined(separator: " "))
      }
    }
    return found
  }

  struct ExtractionFailed: Error, CustomStringConvertible {
    let description: String
  }

  /// The parts of a symbol graph file the list is made of.
  struct SymbolGraph: Decodable {
    struct Symbol: Decodable {
      struct Identifier: Decodable { let precise: String }
      struct Fragment: Decodable { let spelling: String }
      let identifier: Identifier
      let accessLevel: String
      let pathComponents: [String]
      let declarationFragments: [Fragment]?
    }
    let symbols: [Symbol]
  }
}
