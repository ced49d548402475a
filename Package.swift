// swift-tools-version: 6.2
import PackageDescription

// HeadsUp: warn a pedestrian who looks at their phone while stepping into a
// road crossing. One module per concern; the C libraries sit behind thin
// system-library targets so the Swift modules above them stay testable.
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

// The kernels' CPU levels: the same Swift code (HeadsUpKernels) compiled
// in one small module per level; the model picks one at run time (by cpuid
// on x86-64). Only these modules get a -target-cpu; everything else builds
// for the architecture's baseline, so a plain `swift build -c release` is
// portable. The level modules are optimized in debug builds too:
// unoptimized, the generic kernels would run through protocol witnesses
// lane by lane, and the debug build's tests and tools would take hours.
// Each level's source is compiled only for its architecture (`#if arch`).
//
// `#if arch` in this manifest sees the machine that builds, not the one the
// package is built for: a cross build (tools/cross/) names its target in
// HEADSUP_TARGET_ARCH (x86_64 or aarch64), or x86 flags would reach aarch64.
let targetArchitecture: String = {
    switch Context.environment["HEADSUP_TARGET_ARCH"] {
    case "x86_64", "amd64": return "x86_64"
    case "aarch64", "arm64": return "aarch64"
    default:
        #if arch(x86_64)
            return "x86_64"
        #elseif arch(arm64)
            return "aarch64"
        #else
            return "other"
        #endif
    }
}()
func levelFlags(x86TargetCPU: String) -> [SwiftSetting] {
    targetArchitecture == "x86_64" ? [.unsafeFlags(["-O", "-target-cpu", x86TargetCPU])] : [.unsafeFlags(["-O"])]
}
let avx512Flags = levelFlags(x86TargetCPU: "skylake-avx512")
// The same instructions scheduled for AMD Zen 4/5 (AVX512ZenKernels.swift says why).
let avx512ZenFlags = levelFlags(x86TargetCPU: "znver4")
let avx2Flags = levelFlags(x86TargetCPU: "haswell")
// Every AArch64 core has NEON with FMA; generic tuning, as for the other modules.
let neonFlags: [SwiftSetting] = [.unsafeFlags(["-O"])]
// Swift's SIMD arithmetic reaches LLVM lane by lane, and LLVM's SLP
// vectorizer puts it back into vector instructions. With SSE's 4-float
// registers, looking further ahead than one step, it packs lanes of
// unrelated values together and shuffles them apart again: 131 shuffles in
// the baseline's LSTM cell. At depth 1 it keeps each value's lanes
// together: the cell runs about 20 % faster, the seed model's batch 6-8 %
// (docs/notes/2026-11-26-baseline-sse.md). The other levels' code is the
// same either way, so only this level takes the flag.
let baselineFlags: [SwiftSetting] = [.unsafeFlags(["-O", "-Xllvm", "-slp-max-look-ahead-depth=1"])]

let package = Package(
    name: "HeadsUp",
    platforms: [.macOS(.v14)],
    // What another package would use: the command, the engine (Keras
    // weights in, Keras's numbers out) and the runtime (settings, replay, the
    // live session as a library type). The other modules are parts of these.
    products: [
        .executable(name: "headsup", targets: ["headsup"]),
        .library(name: "HeadsUpModel", targets: ["HeadsUpModel"]),
        .library(name: "HeadsUpRuntime", targets: ["HeadsUpRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // MARK: C libraries (thin wrappers; shims expose macros Swift cannot import)
        // Loaded with dlopen by the process that reads a model file (shim.h says why): no pkgConfig, so nothing links it.
        .systemLibrary(
            name: "CHDF5",
            providers: [.apt(["libhdf5-dev"])]),
        .systemLibrary(
            name: "CIIO", pkgConfig: "libiio",
            providers: [.apt(["libiio-dev"])]),
        .systemLibrary(
            name: "CSDBus", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // Loaded with dlopen when MQTT or a webhook is configured (their shim.h say why): no pkgConfig, so nothing links them.
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),

        // MARK: The system seam: clocks, files, the readiness pipe, through Glibc in one place
        .target(name: "HeadsUpSystem"),

        // MARK: Pure logic: no C library, no clock, no I/O beyond files they are handed
        // sensors → windows (Data) → scores and decisions (Pipeline) ← regions (Beacons, Crossings); Evaluation on top.
        .target(name: "HeadsUpData", dependencies: ["HeadsUpSystem"]),
        .target(name: "HeadsUpBeacons", dependencies: ["HeadsUpData"]),
        .target(name: "HeadsUpCrossings", dependencies: ["HeadsUpBeacons"]),
        .target(name: "HeadsUpPipeline", dependencies: ["HeadsUpData", "HeadsUpBeacons", "HeadsUpCrossings"]),
        .target(name: "HeadsUpEvaluation", dependencies: ["HeadsUpData", "HeadsUpPipeline"]),

        // MARK: The engine's kernels: written once, compiled per CPU level
        .target(name: "CCPUFeatures"),
        .target(name: "HeadsUpKernels"),
        .target(name: "HeadsUpKernelsAVX512", dependencies: ["HeadsUpKernels"], swiftSettings: avx512Flags),
        .target(name: "HeadsUpKernelsAVX512Zen", dependencies: ["HeadsUpKernels"], swiftSettings: avx512ZenFlags),
        .target(name: "HeadsUpKernelsAVX2", dependencies: ["HeadsUpKernels"], swiftSettings: avx2Flags),
        .target(name: "HeadsUpKernelsNEON", dependencies: ["HeadsUpKernels"], swiftSettings: neonFlags),
        .target(name: "HeadsUpKernelsBaseline", dependencies: ["HeadsUpKernels"], swiftSettings: baselineFlags),

        // MARK: Parts that talk to the system (each over one C library)
        .target(
            name: "HeadsUpModel",
            dependencies: [
                "CHDF5", "CCPUFeatures", "HeadsUpSystem", "HeadsUpKernels", "HeadsUpKernelsAVX512", "HeadsUpKernelsAVX512Zen", "HeadsUpKernelsAVX2",
                "HeadsUpKernelsNEON", "HeadsUpKernelsBaseline",
            ]),
        .target(name: "HeadsUpSensors", dependencies: ["HeadsUpData", "HeadsUpSystem", "CIIO", logging]),
        .target(name: "HeadsUpDBus", dependencies: ["CSDBus"]),
        .target(name: "HeadsUpBlueZ", dependencies: ["HeadsUpBeacons", "HeadsUpData", "HeadsUpDBus", "HeadsUpSystem", logging]),
        .target(name: "HeadsUpNotify", dependencies: ["HeadsUpDBus", "HeadsUpSystem", "CMosquitto", "CCurl", logging]),
        .target(name: "HeadsUpScreen", dependencies: ["HeadsUpDBus", "HeadsUpPipeline", logging]),
        .target(name: "HeadsUpLocation", dependencies: ["HeadsUpCrossings", "HeadsUpDBus", "HeadsUpSystem", logging]),

        // MARK: The runtime: settings, the model-to-pipeline adapter, the live session
        .target(
            name: "HeadsUpRuntime",
            dependencies: [
                "HeadsUpData", "HeadsUpKernels", "HeadsUpModel", "HeadsUpBeacons", "HeadsUpBlueZ", "HeadsUpDBus", "HeadsUpSensors",
                "HeadsUpNotify", "HeadsUpPipeline", "HeadsUpScreen", "HeadsUpSystem", "HeadsUpCrossings", "HeadsUpLocation", logging,
                .product(name: "Yams", package: "Yams"),
            ]),

        // MARK: Command line (a thin shell over the runtime)
        .target(
            name: "HeadsUpCLI",
            dependencies: [
                "HeadsUpData", "HeadsUpKernels", "HeadsUpModel", "HeadsUpBeacons", "HeadsUpBlueZ", "HeadsUpDBus", "HeadsUpSensors",
                "HeadsUpNotify", "HeadsUpPipeline", "HeadsUpEvaluation", "HeadsUpRuntime", "HeadsUpSystem", "HeadsUpCrossings",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
            ]),
        .executableTarget(name: "headsup", dependencies: ["HeadsUpCLI", logging]),

        // MARK: Fuzzers and microbenchmarks (tools/fuzz, tools/bench/kernels)
        // A plain build makes each fuzzer a replayer of its corpus and crash
        // files (make test-unit runs them); `make fuzz` builds the same
        // targets with -sanitize=fuzzer,address -D FUZZING, where the same main
        // hands the command line to libFuzzer's driver.
        .target(name: "CLibFuzzer", path: "tools/fuzz/CLibFuzzer"),
        .target(name: "FuzzReplay", dependencies: ["CLibFuzzer"], path: "tools/fuzz/FuzzReplay"),
        .executableTarget(name: "fuzz-beacon-frames", dependencies: ["FuzzReplay", "HeadsUpBeacons"], path: "tools/fuzz/BeaconFrames"),
        .executableTarget(name: "fuzz-session-csv", dependencies: ["FuzzReplay", "HeadsUpData"], path: "tools/fuzz/SessionCSV"),
        .executableTarget(name: "fuzz-model-config", dependencies: ["FuzzReplay", "HeadsUpModel"], path: "tools/fuzz/ModelConfig"),
        .executableTarget(name: "fuzz-dbus-values", dependencies: ["FuzzReplay", "HeadsUpDBus", "CSDBus"], path: "tools/fuzz/DBusValues"),
        .executableTarget(
            name: "bench-recurrent-step",
            dependencies: [
                "HeadsUpKernels", "HeadsUpKernelsAVX512", "HeadsUpKernelsAVX512Zen", "HeadsUpKernelsAVX2", "HeadsUpKernelsNEON",
                "HeadsUpKernelsBaseline",
            ],
            path: "tools/bench/kernels/RecurrentStep"),
        .executableTarget(name: "bench-matvec-cache", path: "tools/bench/kernels/MatvecCache"),

        // MARK: Tests
        .target(name: "HeadsUpTestSupport", dependencies: ["HeadsUpDBus"], path: "Tests/HeadsUpTestSupport"),
        .testTarget(name: "HeadsUpSystemTests", dependencies: ["HeadsUpSystem"]),
        .testTarget(name: "HeadsUpDataTests", dependencies: ["HeadsUpData", "HeadsUpSystem", "HeadsUpTestSupport"]),
        // Runs the built `headsup` (which `swift build --build-tests` builds with every target).
        .testTarget(name: "HeadsUpCLITests", dependencies: ["HeadsUpDBus", "HeadsUpSystem", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpModelTests", dependencies: ["HeadsUpModel", "HeadsUpKernels", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpSensorsTests", dependencies: ["HeadsUpSensors", "HeadsUpData", "HeadsUpSystem"]),
        .testTarget(
            name: "HeadsUpPipelineTests",
            dependencies: ["HeadsUpPipeline", "HeadsUpBeacons", "HeadsUpCrossings", "HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpNotifyTests", dependencies: ["HeadsUpNotify", "HeadsUpDBus", "HeadsUpTestSupport", logging]),
        .testTarget(name: "HeadsUpEvaluationTests", dependencies: ["HeadsUpEvaluation", "HeadsUpPipeline", "HeadsUpData", "HeadsUpTestSupport"]),
        .testTarget(name: "HeadsUpScreenTests", dependencies: ["HeadsUpScreen", "HeadsUpPipeline", "HeadsUpDBus", "HeadsUpTestSupport", logging]),
        .testTarget(name: "HeadsUpCrossingsTests", dependencies: ["HeadsUpCrossings", "HeadsUpBeacons"]),
        .testTarget(
            name: "HeadsUpLocationTests",
            dependencies: ["HeadsUpLocation", "HeadsUpCrossings", "HeadsUpDBus", "HeadsUpSystem", "HeadsUpTestSupport", logging]),
        .testTarget(name: "HeadsUpBeaconsTests", dependencies: ["HeadsUpBeacons", "HeadsUpBlueZ", "HeadsUpDBus"]),
        .testTarget(
            name: "HeadsUpRuntimeTests",
            dependencies: [
                "HeadsUpRuntime", "HeadsUpPipeline", "HeadsUpBeacons", "HeadsUpCrossings", "HeadsUpData", "HeadsUpModel", "HeadsUpSensors",
                "HeadsUpNotify",
                "HeadsUpSystem", "HeadsUpTestSupport", logging, .product(name: "Yams", package: "Yams"),
            ]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["CHDF5", "CIIO", "CSDBus", "CMosquitto", "CCurl", "HeadsUpSystem"]),
    ]
)
