import ArgumentParser
import Foundation
import HeadsUpKernels
import HeadsUpModel

/// `headsup model bench`: how fast the engine scores this model here.
struct ModelBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time model loading, single-window latency and batch throughput.",
        discussion: """
            Inputs are deterministic pseudo-random windows (standard normal). Single-window \
            latency is measured per call after a warm-up; throughput scores batches on one \
            thread and on all cores. Also measures the core's peak multiply-add rate with the \
            engine's SIMD type, and the engine's fraction of it.
            """)

    @Option(help: "The model file.", completion: .file())
    var model: String

    @OptionGroup var modelFile: ModelFileOptions

    @Option(help: "Timed single-window calls.")
    var iterations = 2000

    @Option(help: "Windows per batch for the throughput figures.")
    var batch = 256

    @Option(help: "Inputs to time, one flattened example per line (as for predict); default: seeded random normal windows.", completion: .file())
    var windows: String?

    @Option(help: "Multiply-adds per example (default: counted from the layers).")
    var multiplyAdds: Int?

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    func validate() throws {
        guard (1...10_000_000).contains(iterations) else { throw ValidationError("--iterations takes 1 to 10,000,000 calls") }
        guard (1...65_536).contains(batch) else { throw ValidationError("--batch takes 1 to 65,536 windows") }
        if let multiplyAdds, multiplyAdds < 1 { throw ValidationError("--multiply-adds takes a positive count") }
    }

    func run() throws {
        let clock = ContinuousClock()
        let loadStart = clock.now
        let loaded = try modelFile.load(model)
        let loadTime = seconds(loadStart.duration(to: clock.now))

        let windows = try benchmarkInputs(for: loaded)
        let single = Array(windows[0..<loaded.inputCount])

        for _ in 0..<min(200, iterations) { _ = loaded.predict(single) }
        var latencies: [Double] = []
        latencies.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            _ = loaded.predict(single)
            latencies.append(seconds(start.duration(to: clock.now)))
        }
        latencies.sort()
        let median = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let oneThread = throughput { _ = loaded.predict(batch: windows, count: batch) }
        let allCores = throughput { _ = loaded.predict(batch: windows, count: batch, threads: cores) }

        let peakStart = clock.now
        let level = loaded.kernelLevel ?? KernelTable.best.level
        let peak = KernelTable.compiled(for: level).peak(iterations: 20_000_000)
        let peakRate = Double(peak.multiplyAdds) / seconds(peakStart.duration(to: clock.now))
        let work = Double(multiplyAdds ?? ModelCost.multiplyAdds(of: loaded))
        let figures: [String: Double] = [
            "load_ms": loadTime * 1e3,
            "single_median_us": median * 1e6,
            "single_p99_us": p99 * 1e6,
            "batch_windows_per_s_1_thread": oneThread,
            "batch_windows_per_s_all_cores": allCores,
            "cores": Double(cores),
            "batch": Double(batch),
            "multiply_adds_per_window": work,
            "peak_multiply_adds_per_s": peakRate,
            "single_fraction_of_peak": work / median / peakRate,
            "batch_fraction_of_peak": work * oneThread / peakRate,
            "peak_checksum": Double(peak.checksum.isFinite ? 1 : 0),
        ]
        let described: [String: String] = ["kernel_level": level.rawValue, "cpu": CPUDescription.current()]
        if json {
            let object = figures.mapValues { $0 as Any }.merging(described.mapValues { $0 as Any }) { first, _ in first }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print(
            """
            cpu: \(described["cpu"]!); kernels: \(level)
            model: \(model) (\(ModelInspectCommand.grouped(loaded.parameterCount)) parameters, \
            \(ModelInspectCommand.grouped(Int(work))) multiply-adds per window)
            load:                    \(String(format: "%.2f", loadTime * 1e3)) ms
            single window, 1 thread: median \(String(format: "%.1f", median * 1e6)) µs, p99 \(String(format: "%.1f", p99 * 1e6)) µs
            batch of \(batch), 1 thread:  \(String(format: "%.0f", oneThread)) windows/s
            batch of \(batch), \(cores) cores:  \(String(format: "%.0f", allCores)) windows/s (\(String(format: "%.2f", allCores / oneThread))× one thread)
            peak multiply-adds (\(level.hasFusedMultiplyAdd ? "fused" : "multiply + add")): \(String(format: "%.1f", peakRate / 1e9)) G/s per core; engine reaches \
            \(String(format: "%.0f", 100 * work / median / peakRate)) % single, \(String(format: "%.0f", 100 * work * oneThread / peakRate)) % batched
            """)
    }

    /// `batch` examples: from `--windows` (repeated to fill the batch) or seeded random.
    private func benchmarkInputs(for model: KerasModel) throws -> [Float] {
        guard let windows else {
            var generator = SplitMix64(seed: 42)
            return (0..<(batch * model.inputCount)).map { _ in generator.nextNormal() }
        }
        var rows: [[Float]] = []
        try InputLines.read(windows, width: model.inputCount) { values in rows.append(values) }
        guard !rows.isEmpty else { throw CommandError("\(windows): no inputs") }
        return (0..<batch).flatMap { rows[$0 % rows.count] }
    }

    /// Windows per second over at least half a second of repeated batches.
    private func throughput(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        body()
        var runs = 0
        let start = clock.now
        var elapsed = 0.0
        repeat {
            body()
            runs += 1
            elapsed = seconds(start.duration(to: clock.now))
        } while elapsed < 0.5
        return Double(runs * batch) / elapsed
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
