// Writes the S4 start-up sources at build time (run by the S4Sources build-tool plugin): 10,000
// distinct service types and, for each contender, the code that registers all of them.
//
//   S4Generator services|swinject|dependencies|knapsack OUTPUT-FILE [COUNT]
//
// Registrations are split into functions of `chunk` lines so that no single function is huge
// (compile time). The 1,000-registration run calls the first 1,000 / `chunk` chunks, the 10,000
// run calls all of them.
import Foundation

let chunk = 250
let header = "// Generated at build time by the S4Sources plugin (Benchmarks/Sources/S4Generator). Do not edit.\n"

func name(_ index: Int) -> String {
  let digits = String(index)
  return "Svc" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
}

func chunked(_ count: Int, _ prefix: String, _ signature: String, _ body: (String) -> String) -> String {
  var out = ""
  for c in 0..<((count + chunk - 1) / chunk) {
    out += "\nfunc \(prefix)\(c)(\(signature)) {\n"
    for i in (c * chunk)..<min(count, (c + 1) * chunk) { out += "  " + body(name(i)) + "\n" }
    out += "}\n"
  }
  return out
}

/// Body lines calling every chunk, returning early after the first 1,000 when asked to.
func caller(_ count: Int, _ prefix: String, _ argument: String) -> String {
  var out = ""
  for c in 0..<((count + chunk - 1) / chunk) {
    if c * chunk == 1000 { out += "  guard count > 1000 else { return }\n" }
    out += "  \(prefix)\(c)(\(argument))\n"
  }
  return out
}

func resolverSwitch(
  _ count: Int, _ container: String, throwing: Bool = false, _ expression: (String) -> String
)
  -> String
{
  """

  /// Resolves the last of the first `count` generated services (1,000 or \(count)).
  public func resolveGeneratedService(from container: \(container), count: Int)\(throwing ? " throws" : "") -> any Sendable {
    count == 1000 ? \(expression(name(999))) : \(expression(name(count - 1)))
  }

  """
}

func registrar(_ count: Int, _ prefix: String, _ argument: String) -> String {
  """

  /// Registers the first `count` generated services (1,000 or all of them; \(chunk) per chunk).
  public func registerGeneratedServices(into container: Container, count: Int) {
  \(caller(count, prefix, argument))}

  """
}

func services(_ count: Int) -> String {
  var out = header + "public import Dependencies\n\n"
  out += "// Each service is also its own swift-dependencies key, so every contender registers the\n"
  out += "// same \(count) distinct types.\n"
  for i in 0..<count {
    let n = name(i)
    out +=
      "public struct \(n): DependencyKey, Sendable { public init() {}; public static var liveValue: \(n) { \(n)() } }\n"
  }
  return out
}

func swinject(_ count: Int) -> String {
  header + "import S4Services\npublic import Swinject\n" + registrar(count, "swinjectChunk", "container")
    + resolverSwitch(count, "Container") { "container.resolve(\($0).self)!" }
    + chunked(count, "swinjectChunk", "_ container: Container") { "container.register(\($0).self) { _ in \($0)() }" }
}

func dependencies(_ count: Int) -> String {
  header + "public import Dependencies\nimport S4Services\n"
    + """

    /// Sets the first `count` generated services (1,000 or all of them; \(chunk) per chunk) on `values`.
    public func setGeneratedServices(on values: inout DependencyValues, count: Int) {
    \(caller(count, "dependenciesChunk", "&values"))}

    /// Reads the last of the first `count` generated services through `@Dependency`.
    public func readGeneratedService(count: Int) -> any Sendable {
      switch count {
      case 1000:
        @Dependency(\(name(999)).self) var service
        return service
      default:
        @Dependency(\(name(count - 1)).self) var service
        return service
      }
    }

    """
    + chunked(count, "dependenciesChunk", "_ values: inout DependencyValues") { "values[\($0).self] = \($0)()" }
}

func knapsack(_ count: Int) -> String {
  header + "public import Knapsack\nimport S4Services\n" + registrar(count, "knapsackChunk", "container")
    + resolverSwitch(count, "Container", throwing: true) { "try container.resolve(type: \($0).self)" }
    + chunked(count, "knapsackChunk", "_ container: Container") { "container.register(type: \($0).self) { \($0)() }" }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  FileHandle.standardError.write(
    Data("usage: S4Generator services|swinject|dependencies|knapsack OUTPUT [COUNT]\n".utf8))
  exit(2)
}
let count = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
guard count >= 1000, count % chunk == 0 else {
  FileHandle.standardError.write(Data("S4Generator: COUNT must be a multiple of \(chunk), at least 1000\n".utf8))
  exit(2)
}
let text: String
switch arguments[1] {
case "services": text = services(count)
case "swinject": text = swinject(count)
case "dependencies": text = dependencies(count)
case "knapsack": text = knapsack(count)
default:
  FileHandle.standardError.write(Data("S4Generator: unknown kind \(arguments[1])\n".utf8))
  exit(2)
}
do {
  try text.write(toFile: arguments[2], atomically: true, encoding: .utf8)
} catch {
  FileHandle.standardError.write(Data("S4Generator: cannot write \(arguments[2]): \(error)\n".utf8))
  exit(1)
}
