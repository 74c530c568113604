import Foundation
import PackagePlugin

/// Checks the Knapsack dependency graph of the target it is applied to, at build time.
///
/// It reads the Swift sources of the target and of every target it depends on, and fails the
/// build when a required key has no registration, when keys form a cycle, or reports a captive
/// singleton as a warning. Add it to an app target:
///
/// ```swift
/// .executableTarget(name: "App", dependencies: [...], plugins: [.plugin(name: "KnapsackCheckPlugin", package: "Knapsack")])
/// ```
@main
struct KnapsackCheckPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    guard let sourceTarget = target as? SourceModuleTarget else { return [] }
    let tool = try context.tool(named: "knapsack-check")
    // The report, declared as the command's output so that SwiftPM reruns the check only when a
    // source changed. A Swift file of comments: SwiftPM compiles it to nothing, where it would
    // copy a file of any other kind into a resources bundle of the target.
    let output = context.pluginWorkDirectoryURL.appending(path: "knapsack-check-\(target.name).swift")
    var arguments = [
      "--app", target.name, "--output", output.path(percentEncoded: false),
      "--cache", context.pluginWorkDirectoryURL.appending(path: "cache").path(percentEncoded: false),
    ]
    var inputs: [URL] = []
    // Only modules that can see Knapsack can declare, register or resolve a key: skip the
    // rest (third-party packages such as SwiftNIO).
    let modules = [sourceTarget] + sourceTarget.recursiveTargetDependencies.compactMap { $0 as? SourceModuleTarget }
    for module in modules where module.recursiveTargetDependencies.contains(where: { $0.name == "Knapsack" }) {
      let files = module.sourceFiles(withSuffix: "swift").map(\.url)
      guard !files.isEmpty else { continue }
      arguments += ["--module", module.name] + files.map { $0.path(percentEncoded: false) }
      inputs += files
    }
    return [
      .buildCommand(
        displayName: "Checking the Knapsack graph of \(target.name)",
        executable: tool.url,
        arguments: arguments,
        inputFiles: inputs,
        outputFiles: [output]
      )
    ]
  }
}
