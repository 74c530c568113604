// swift-tools-version: 6.1
import PackageDescription

// Fixture packages of the build-time graph check (scripts/test-plugin.sh builds this package).
//
// - Common, KnapsackToDoList, ShowcaseApp: the shape of Examples/TodoShowcase; ShowcaseApp applies
//   the plugin, so deleting the storage registration fails `swift build`.
// - <Case>Keys + <Case>App: one case of the agreement test each; `agreement-runtime` prints what
//   `validate()` reports for every case, and the script compares it with what the plugin's tool reports.
// - ToolCases/<Case> (not part of this package): one folder per module, the app named App; the
//   script runs the tool alone on each and compares its report with the case's expected.txt.
let cases = ["Missing", "Cycle", "Captive", "Valid", "Dynamic", "Injected"]

let package = Package(
  name: "PluginFixtures",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Knapsack", path: "../..")],
  targets: [
    .target(name: "Common"),
    .target(name: "KnapsackToDoList", dependencies: ["Common", .product(name: "Knapsack", package: "Knapsack")]),
    .executableTarget(
      name: "ShowcaseApp",
      dependencies: ["KnapsackToDoList"],
      plugins: [.plugin(name: "KnapsackCheckPlugin", package: "Knapsack")]
    ),
    .executableTarget(name: "agreement-runtime", dependencies: cases.map { .target(name: "\($0)App") }),
  ]
    + cases.flatMap { name -> [Target] in
      [
        .target(name: "\(name)Keys", dependencies: [.product(name: "Knapsack", package: "Knapsack")]),
        .target(name: "\(name)App", dependencies: [.target(name: "\(name)Keys")]),
      ]
    }
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  target.swiftSettings = settings
}
