import Foundation
import PackagePlugin

/// `swift package knapsack-check [--target NAME ...]`: checks the Knapsack graph of every
/// executable target of the package (or of the named targets) and prints the report.
@main
struct KnapsackCheckCommand: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    var extractor = ArgumentExtractor(arguments)
    let named = extractor.extractOption(named: "target")
    // Anything else (a misspelled `--targte App`) would be dropped, and every executable target
    // checked instead of the one meant: refuse it.
    guard extractor.remainingArguments.isEmpty else {
      throw KnapsackCheckUsage(
        message:
          "unknown argument\(extractor.remainingArguments.count == 1 ? "" : "s") \(extractor.remainingArguments.map { "'\($0)'" }.joined(separator: ", ")); usage: swift package knapsack-check [--target NAME ...]"
      )
    }
    let tool = try context.tool(named: "knapsack-check")
    // Only Swift targets can declare, register or resolve a key (a C target has no Swift source).
    let candidates = context.package.targets.compactMap { $0 as? SwiftSourceModuleTarget }
    let targets =
      named.isEmpty
      ? candidates.filter { $0.kind == .executable }
      : candidates.filter { named.contains($0.name) }
    // A misspelled name, or a package whose app is a library (an iOS app's package), would
    // otherwise check nothing and pass.
    let unknown = named.filter { name in !candidates.contains { $0.name == name } }
    guard unknown.isEmpty else {
      throw KnapsackCheckUsage(
        message:
          "no Swift target named \(unknown.map { "'\($0)'" }.joined(separator: ", ")) in package '\(context.package.displayName)'; its Swift targets: \(candidates.map(\.name).sorted().joined(separator: ", "))"
      )
    }
    guard !targets.isEmpty else {
      throw KnapsackCheckUsage(
        message:
          "package '\(context.package.displayName)' has no executable target to check; name the target whose module graph holds the registrations: swift package knapsack-check --target NAME"
      )
    }
    var failed: [String] = []
    for target in targets {
      var arguments = [
        "--app", target.name, "--cache",
        context.pluginWorkDirectoryURL.appending(path: "cache").path(percentEncoded: false),
      ]
      // Only modules that can see Knapsack can declare, register or resolve a key: skip the
      // rest (third-party packages such as SwiftNIO).
      let modules: [any SourceModuleTarget] =
        [target] + target.recursiveTargetDependencies.compactMap { $0 as? SourceModuleTarget }
      for module in modules where module.recursiveTargetDependencies.contains(where: { $0.name == "Knapsack" }) {
        let files = module.sourceFiles(withSuffix: "swift").map { $0.url.path(percentEncoded: false) }
        guard !files.isEmpty else { continue }
        arguments += ["--module", module.name] + files
      }
      let process = Process()
      process.executableURL = tool.url
      process.arguments = arguments
      try process.run()
      process.waitUntilExit()
      if process.terminationStatus != 0 { failed.append(target.name) }
    }
    if !failed.isEmpty { throw KnapsackCheckFailure(targets: failed) }
  }
}

/// The check found at least one error in these targets.
struct KnapsackCheckFailure: Error, CustomStringConvertible {
  let targets: [String]

  var description: String { "knapsack-check found errors in: \(targets.joined(separator: ", "))" }
}

/// The command was given nothing it can check.
struct KnapsackCheckUsage: Error, CustomStringConvertible {
  let message: String

  var description: String { "knapsack-check: \(message)" }
}
