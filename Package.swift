// swift-tools-version: 6.1
import PackageDescription

// HeadsUp: warn a pedestrian who looks at their phone while stepping into a
// road crossing. One module per concern; the C libraries sit behind thin
// system-library targets so the Swift modules above them stay testable.
let package = Package(
    name: "HeadsUp",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "headsup", targets: ["headsup"]),
        .library(name: "HeadsUpData", targets: ["HeadsUpData"]),
        .library(name: "HeadsUpModel", targets: ["HeadsUpModel"]),
        .library(name: "HeadsUpBeacons", targets: ["HeadsUpBeacons"]),
        .library(name: "HeadsUpSensors", targets: ["HeadsUpSensors"]),
        .library(name: "HeadsUpNotify", targets: ["HeadsUpNotify"]),
        .library(name: "HeadsUpPipeline", targets: ["HeadsUpPipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // MARK: C libraries (thin wrappers; shims expose macros Swift cannot import)
        .systemLibrary(
            name: "CHDF5", pkgConfig: "hdf5",
            providers: [.apt(["libhdf5-dev"])]),
        .systemLibrary(
            name: "CIIO", pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]),
        .systemLibrary(
            name: "CSDBus", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),

        // MARK: Pure logic and data
        .target(name: "HeadsUpData"),
        .target(name: "HeadsUpModel", dependencies: ["CHDF5"]),
        .target(name: "HeadsUpDBus", dependencies: ["CSDBus"]),
        .target(name: "HeadsUpSensors", dependencies: ["HeadsUpData", "CIIO"]),
        .target(name: "HeadsUpNotify", dependencies: ["HeadsUpDBus"]),
        .target(name: "HeadsUpEvaluation", dependencies: ["HeadsUpData", "HeadsUpPipeline"]),
        .target(name: "HeadsUpPipeline", dependencies: ["HeadsUpData", "HeadsUpModel", "HeadsUpBeacons"]),
        .target(name: "HeadsUpBeacons", dependencies: ["HeadsUpDBus"]),

        // MARK: Command line
        .target(
            name: "HeadsUpCLI",
            dependencies: [
                "HeadsUpData", "HeadsUpModel", "HeadsUpBeacons", "HeadsUpDBus", "HeadsUpSensors", "HeadsUpNotify",
                "HeadsUpPipeline", "HeadsUpEvaluation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "headsup", dependencies: ["HeadsUpCLI", .product(name: "Logging", package: "swift-log")]),

        // MARK: Tests
        .target(name: "HeadsUpTestSupport", path: "Tests/HeadsUpTestSupport"),
        .testTarget(name: "HeadsUpDataTests", dependencies: ["HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(
            name: "HeadsUpCLITests",
            dependencies: ["HeadsUpCLI", "HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpModelTests", dependencies: ["HeadsUpModel", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpSensorsTests", dependencies: ["HeadsUpSensors", "HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpPipelineTests", dependencies: ["HeadsUpPipeline", "HeadsUpBeacons", "HeadsUpData"]),
        .testTarget(name: "HeadsUpNotifyTests", dependencies: ["HeadsUpNotify", "HeadsUpDBus", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpEvaluationTests", dependencies: ["HeadsUpEvaluation", "HeadsUpPipeline", "HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpBeaconsTests", dependencies: ["HeadsUpBeacons", "HeadsUpTestSupport"]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["CHDF5", "CIIO", "CSDBus"]),
    ]
)
