// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Knapsack",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Knapsack", targets: ["Knapsack"]),
    .library(name: "KnapsackTesting", targets: ["KnapsackTesting"]),
    .plugin(name: "KnapsackCheckPlugin", targets: ["KnapsackCheckPlugin"]),
    .plugin(name: "KnapsackCheckCommand", targets: ["KnapsackCheckCommand"]),
  ],
  dependencies: [
    .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1")
  ],
  targets: [
    .target(name: "CKnapsack"),
    .target(name: "Knapsack", dependencies: ["CKnapsack"]),
    .target(name: "KnapsackTesting", dependencies: ["Knapsack"]),
    .testTarget(name: "KnapsackTests", dependencies: ["Knapsack", "KnapsackTesting"]),
    .executableTarget(
      name: "knapsack-check",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftParser", package: "swift-syntax"),
      ],
      path: "Plugins/KnapsackCheckTool"
    ),
    .plugin(
      name: "KnapsackCheckPlugin", capability: .buildTool(), dependencies: ["knapsack-check"],
      path: "Plugins/KnapsackCheckPlugin"
    ),
    .plugin(
      name: "KnapsackCheckCommand",
      capability: .command(
        intent: .custom(verb: "knapsack-check", description: "Checks every target's Knapsack graph statically")
      ),
      dependencies: ["knapsack-check"],
      path: "Plugins/KnapsackCheckCommand"
    ),
  ]
)

for target in package.targets where target.name != "CKnapsack" && target.type != .plugin {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  target.swiftSettings = settings
}
