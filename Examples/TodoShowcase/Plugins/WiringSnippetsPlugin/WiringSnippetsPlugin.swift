import Foundation
import PackagePlugin

/// Generates `WiringSnippets.swift` for the target it is applied to: the regions marked
/// `// showcase:begin CAPTION` … `// showcase:end` in the sources of this package's modules that
/// the target depends on, as string constants. The tabs show them, so what a tab says about its
/// wiring is the code it runs, read at build time, never a copy that can drift.
@main
struct WiringSnippetsPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    guard let sourceTarget = target as? SourceModuleTarget else { return [] }
    let tool = try context.tool(named: "showcase-wiring-snippets")
    let output = context.pluginWorkDirectoryURL.appending(path: "WiringSnippets.swift")
    let packageRoot = context.package.directoryURL
    var arguments = ["--root", packageRoot.path(), "--output", output.path()]
    var inputs: [URL] = []
    // Only this package's own modules: the feature modules and what they share.
    let localNames = Set(context.package.targets.map(\.name))
    let modules = sourceTarget.recursiveTargetDependencies
      .compactMap { $0 as? SourceModuleTarget }
      .filter { localNames.contains($0.name) }
    for module in modules {
      let files = module.sourceFiles(withSuffix: "swift").map(\.url)
      guard !files.isEmpty else { continue }
      arguments += ["--module", module.name] + files.map { $0.path() }
      inputs += files
    }
    return [
      .buildCommand(
        displayName: "Extracting the wiring snippets for \(target.name)",
        executable: tool.url,
        arguments: arguments,
        inputFiles: inputs,
        outputFiles: [output]
      )
    ]
  }
}
