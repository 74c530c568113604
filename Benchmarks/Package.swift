// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "KnapsackBenchmarks",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [
    .package(name: "Knapsack", path: ".."),
    .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
  ],
  targets: [
    .target(name: "CBlackHole"),
    .target(name: "BenchSupport", dependencies: ["CBlackHole"]),
    // Counts heap allocations by wrapping malloc and friends: linked into knapsack-bench only.
    .target(name: "CMallocCounter"),
    // The 100-deep chain of the stack-per-level figure, shared by knapsack-bench (release) and
    // stack-per-level (built in debug by the scripts).
    .target(name: "DeepChain", dependencies: [.product(name: "Knapsack", package: "Knapsack")]),
    .executableTarget(name: "stack-per-level", dependencies: ["DeepChain"]),
    // S4 start-up: sources generated at build time by the S4Sources plugin (running S4Generator),
    // one module per contender so they compile in parallel.
    .executableTarget(name: "S4Generator"),
    .plugin(name: "S4Sources", capability: .buildTool(), dependencies: ["S4Generator"]),
    .target(
      name: "S4Services", dependencies: [.product(name: "Dependencies", package: "swift-dependencies")],
      plugins: ["S4Sources"]
    ),
    .target(
      name: "S4Swinject", dependencies: ["S4Services", .product(name: "Swinject", package: "Swinject")],
      plugins: ["S4Sources"]
    ),
    .target(
      name: "S4Dependencies",
      dependencies: ["S4Services", .product(name: "Dependencies", package: "swift-dependencies")],
      plugins: ["S4Sources"]
    ),
    .target(
      name: "S4Knapsack", dependencies: ["S4Services", .product(name: "Knapsack", package: "Knapsack")],
      plugins: ["S4Sources"]
    ),
    .executableTarget(
      name: "knapsack-bench",
      dependencies: [
        "BenchSupport",
        "CMallocCounter",
        "DeepChain",
        "S4Services",
        "S4Swinject",
        "S4Dependencies",
        "S4Knapsack",
        .product(name: "Knapsack", package: "Knapsack"),
        .product(name: "Swinject", package: "Swinject"),
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    .testTarget(name: "BenchSupportTests", dependencies: ["BenchSupport"]),
  ]
)

for target in package.targets where target.type != .system && target.type != .plugin {
  guard target.name != "CBlackHole", target.name != "CMallocCounter" else { continue }
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  target.swiftSettings = settings
}
