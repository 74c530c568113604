// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "TodoShowcase",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "todo-showcase", targets: ["todo-showcase"])
  ],
  dependencies: [
    .package(name: "Knapsack", path: "../.."),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
  ],
  targets: [
    .target(name: "Common"),
    .target(
      name: "Storage",
      dependencies: [
        "Common",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .target(name: "ManualDIToDoList", dependencies: ["Common"]),
    .target(
      name: "DependencyProviderToDoList",
      dependencies: ["Common", .product(name: "Knapsack", package: "Knapsack")]
    ),
    .target(
      name: "KnapsackToDoList",
      dependencies: ["Common", .product(name: "Knapsack", package: "Knapsack")]
    ),
    .target(
      name: "ThirdPartyDIToDoList",
      dependencies: ["Common", .product(name: "Swinject", package: "Swinject")]
    ),
    .target(
      name: "DIShowcase",
      dependencies: [
        "Common",
        "Storage",
        "ManualDIToDoList",
        "DependencyProviderToDoList",
        "KnapsackToDoList",
        "ThirdPartyDIToDoList",
      ],
      plugins: ["WiringSnippetsPlugin"]
    ),
    // Build time: the `// showcase:begin` regions of the feature modules become string constants
    // that the tabs show (see Plugins/WiringSnippetsTool).
    .executableTarget(name: "showcase-wiring-snippets", path: "Plugins/WiringSnippetsTool"),
    .plugin(
      name: "WiringSnippetsPlugin", capability: .buildTool(), dependencies: ["showcase-wiring-snippets"],
      path: "Plugins/WiringSnippetsPlugin"
    ),
    .target(
      name: "TodoShowcaseApp",
      dependencies: [
        "DIShowcase",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
      ]
    ),
    .executableTarget(
      name: "todo-showcase", dependencies: ["TodoShowcaseApp"],
      plugins: [.plugin(name: "KnapsackCheckPlugin", package: "Knapsack")]),

    .target(name: "ShowcaseTestSupport", dependencies: ["Common"], path: "Tests/ShowcaseTestSupport"),
    .testTarget(name: "CommonTests", dependencies: ["Common", "ShowcaseTestSupport"]),
    .testTarget(
      name: "StorageTests", dependencies: ["Common", "Storage", .product(name: "GRDB", package: "GRDB.swift")]),
    .testTarget(
      name: "TodoShowcaseAppTests",
      dependencies: [
        "TodoShowcaseApp",
        "ShowcaseTestSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]
    ),
    .testTarget(
      name: "ManualDIToDoListTests",
      dependencies: [
        "ManualDIToDoList",
        "ShowcaseTestSupport",
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(
      name: "DependencyProviderToDoListTests",
      dependencies: [
        "DependencyProviderToDoList",
        "ShowcaseTestSupport",
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(
      name: "KnapsackToDoListTests",
      dependencies: [
        "KnapsackToDoList",
        "ShowcaseTestSupport",
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
        .product(name: "KnapsackTesting", package: "Knapsack"),
      ],
      exclude: ["__Snapshots__"]
    ),
    .testTarget(name: "WiringSnippetsToolTests", dependencies: ["showcase-wiring-snippets"]),
    .testTarget(
      name: "ThirdPartyDIToDoListTests",
      dependencies: [
        "ThirdPartyDIToDoList",
        "ShowcaseTestSupport",
        .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
      ],
      exclude: ["__Snapshots__"]
    ),
  ]
)

for target in package.targets where target.type != .plugin {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  target.swiftSettings = settings
}
