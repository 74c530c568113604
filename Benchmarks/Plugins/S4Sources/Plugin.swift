import PackagePlugin

/// Generates a target's S4 start-up sources at build time with the S4Generator tool: the 10,000
/// service types for `S4Services`, and the registrations for each contender's target.
@main
struct S4Sources: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let kinds = [
      "S4Services": "services", "S4Swinject": "swinject", "S4Dependencies": "dependencies", "S4Knapsack": "knapsack",
    ]
    guard let kind = kinds[target.name] else { return [] }
    let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name)+Generated.swift")
    return [
      .buildCommand(
        displayName: "Generating the S4 sources of \(target.name)",
        executable: try context.tool(named: "S4Generator").url,
        arguments: [kind, output.path(percentEncoded: false), "10000"],
        inputFiles: [],
        outputFiles: [output]
      )
    ]
  }
}
