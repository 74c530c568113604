import Foundation

// knapsack-check --app NAME [--output FILE] [--cache DIR] [--timing] --module NAME FILE... [--module NAME FILE...]
//
// Prints findings as `file:line:column: severity: message` and exits 1 if there is an error.
// Writes the report to --output when there is none, so the build step is up to date: as comments,
// since the plugin declares it as a Swift source (SwiftPM would bundle any other file as a resource).

struct Options {
  var app = "app"
  var output: String?
  var cache: String?
  var timing = false
  var modules: [(name: String, files: [String])] = []
}

func parseOptions(_ arguments: [String]) -> Options {
  var options = Options()
  var index = 0
  func next() -> String {
    index += 1
    return index < arguments.count ? arguments[index] : ""
  }
  while index < arguments.count {
    switch arguments[index] {
    case "--app": options.app = next()
    case "--output": options.output = next()
    case "--cache": options.cache = next()
    case "--timing": options.timing = true
    case "--module": options.modules.append((next(), []))
    default:
      if !options.modules.isEmpty { options.modules[options.modules.count - 1].files.append(arguments[index]) }
    }
    index += 1
  }
  return options
}

/// Facts of files, reused while a file's contents stay the same. Told by a hash of the bytes, not
/// by size and modification date: a copy that keeps the date (`cp -p`, `rsync -a`, an archive)
/// can replace a file with another of the same size.
struct FactsCache: Codable {
  struct Entry: Codable {
    var hash: UInt64
    var facts: FileFacts
    /// Whether the facts are a parse's, or only the imports and types of a skipped file.
    var isParsed: Bool
  }
  static let version = 14
  var version = FactsCache.version
  var entries: [String: Entry] = [:]
}

/// FNV-1a, 64 bits, of a file's bytes: tells whether the file changed since its facts were cached.
func contentHash(_ data: Data) -> UInt64 {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in data {
    hash ^= UInt64(byte)
    hash &*= 0x100_0000_01b3
  }
  return hash
}

/// Whether `source` names `word` as a whole identifier, as a call of a function of that name would.
func names(_ source: String, _ word: String) -> Bool {
  func isIdentifier(_ character: Character?) -> Bool { character?.isIdentifierPart ?? false }
  var searched = source[...]
  while let range = searched.range(of: word) {
    let before = range.lowerBound == source.startIndex ? nil : source[source.index(before: range.lowerBound)]
    let after = range.upperBound == source.endIndex ? nil : source[range.upperBound]
    if !isIdentifier(before), !isIdentifier(after) { return true }
    searched = source[range.upperBound...]
  }
  return false
}

let start = Date()
let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
let cacheURL = options.cache.map { URL(fileURLWithPath: $0).appendingPathComponent("facts.json") }
var cache = FactsCache()
if let cacheURL, let data = try? Data(contentsOf: cacheURL),
  let decoded = try? JSONDecoder().decode(FactsCache.self, from: data), decoded.version == FactsCache.version
{
  cache = decoded
}
var parsed = 0
var skipped = 0
var fresh = FactsCache()

/// One file's facts: the cached ones if the file is unchanged and they are what is needed (a
/// parse's, when `parse` is set), else parsed or, for a file that needs no parse, its imports and
/// top-level types.
@MainActor func facts(of path: String, module: String, source: String, hash: UInt64, parse: Bool) -> FileFacts {
  if let entry = cache.entries[path], entry.hash == hash, entry.isParsed || !parse {
    fresh.entries[path] = entry
    return entry.facts
  }
  let facts: FileFacts
  if parse {
    facts = extractFacts(path: path, module: module, source: source)
    parsed += 1
  } else {
    // Its imports still count (a key is visible through a module that only imports another), and
    // so do its top-level types (a singleton may keep a struct; two keys' types may be alike).
    let types = topLevelTypes(source)
    facts = FileFacts(
      imports: importedModules(source), valueTypes: types.valueTypes, declaredTypes: types.declared,
      typeAliases: types.typeAliases)
    skipped += 1
  }
  fresh.entries[path] = FactsCache.Entry(hash: hash, facts: facts, isParsed: parse)
  return facts
}

// A file that names none of these cannot declare, register or resolve a key through Knapsack's
// own API: it is parsed only if it names a registration helper (a function of the app's that
// registers the key path its caller passes, declared in a file that is parsed), and otherwise
// skipped (most files of third-party packages in the graph). `Injected` finds a type with an
// `@Injected` or `@LazyInjected` property, which a factory elsewhere may make.
let words = ["Knapsack", "Dependencies", "register", "resolve", "contribute", "Injected"]
var files: [[FileFacts?]] = []
var unparsed: [(module: Int, file: Int, path: String, source: String, hash: UInt64)] = []
for (moduleIndex, module) in options.modules.enumerated() {
  files.append([])
  for path in module.files {
    guard let data = FileManager.default.contents(atPath: path), let source = String(data: data, encoding: .utf8)
    else {
      FileHandle.standardError.write(Data("\(path):1:1: error: knapsack-check cannot read this file\n".utf8))
      exit(1)
    }
    let hash = contentHash(data)
    if words.contains(where: { source.contains($0) }) {
      files[moduleIndex].append(facts(of: path, module: module.name, source: source, hash: hash, parse: true))
    } else {
      unparsed.append((moduleIndex, files[moduleIndex].count, path, source, hash))
      files[moduleIndex].append(nil)
    }
  }
}
let helpers = Set(files.joined().compactMap { $0 }.flatMap { $0.registeringFunctions.map(\.name) })
for file in unparsed {
  let callsHelper = helpers.contains { names(file.source, $0) }
  files[file.module][file.file] = facts(
    of: file.path, module: options.modules[file.module].name, source: file.source, hash: file.hash, parse: callsHelper)
}
let modules = zip(options.modules, files).map { module, facts in
  ModuleFacts(name: module.name, files: facts.compactMap { $0 })
}
if let cacheURL {
  try? FileManager.default.createDirectory(at: cacheURL.deletingLastPathComponent(), withIntermediateDirectories: true)
  if let data = try? JSONEncoder().encode(fresh) { try? data.write(to: cacheURL) }
}

let findings = analyze(app: options.app, modules: modules)
let report = findings.map { $0.line }.joined(separator: "\n")
if !report.isEmpty { print(report) }
let errors = findings.filter { $0.severity == .error }.count
if options.timing {
  let files = options.modules.reduce(0) { $0 + $1.files.count }
  let elapsed = Date().timeIntervalSince(start) * 1000
  FileHandle.standardError.write(
    Data(
      "knapsack-check: \(files) files (\(parsed) parsed, \(skipped) skipped, \(files - parsed - skipped) cached) in \(String(format: "%.1f", elapsed)) ms\n"
        .utf8))
}
if let output = options.output {
  if errors > 0 {
    try? FileManager.default.removeItem(atPath: output)
  } else {
    let lines =
      ["knapsack-check report for \(options.app)"] + (findings.isEmpty ? ["no findings"] : findings.map(\.line))
    let text = lines.map { "// \($0)\n" }.joined()
    // Written only when it changes: the target compiles the report, so rewriting the same text
    // would recompile it after any edit anywhere in the graph.
    if (try? String(contentsOfFile: output, encoding: .utf8)) != text {
      try? Data(text.utf8).write(to: URL(fileURLWithPath: output))
    }
  }
}
exit(errors > 0 ? 1 : 0)
