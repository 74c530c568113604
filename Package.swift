// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Knapsack",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Knapsack", targets: ["Knapsack"]),
    .library(name: "KnapsackTesting", targets: ["KnapsackTesting"]),
  ],
  targets: [
    .target(name: "CKnapsack"),
    .target(name: "Knapsack", dependencies: ["CKnapsack"]),
    .target(name: "KnapsackTesting", dependencies: ["Knapsack"]),
    .testTarget(name: "KnapsackTests", dependencies: ["Knapsack", "KnapsackTesting"]),
  ]
)

for target in package.targets where target.name != "CKnapsack" {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  target.swiftSettings = settings
}
