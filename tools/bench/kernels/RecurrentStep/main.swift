// One batched LSTM time step, split into its two parts, on the kernel level
// named on the command line: h·U for a chunk of examples (the matrix
// product, as a fraction of the level's peak) and the cell that follows it
// (the step's time minus the product's). These are the engine's own kernels,
// compiled by the package with each level's flags; the default shape is the
// seed model's (50 units, a 16-example chunk, KerasModel.chunkSize).
//
// Built by the package with the engine's kernel modules (target
// bench-recurrent-step; the level must be one the CPU runs: `headsup model
// inspect` names the automatic choice):
//
//     swift build -c release --product bench-recurrent-step
//     for level in baseline avx2 avx512-zen; do taskset -c 1 .build/release/bench-recurrent-step $level; done
//
// Arguments: level [examples [units]]. docs/notes/2026-11-26-baseline-sse.md
// has what it printed there.
import Glibc
import HeadsUpKernels
import HeadsUpKernelsAVX2
import HeadsUpKernelsAVX512
import HeadsUpKernelsAVX512Zen
import HeadsUpKernelsBaseline
import HeadsUpKernelsNEON

let arguments = CommandLine.arguments
guard arguments.count > 1, let level = KernelLevel(rawValue: arguments[1]) else {
    print("usage: bench-recurrent-step LEVEL [EXAMPLES [UNITS]], LEVEL one of avx512-zen, avx512, avx2, neon, baseline")
    exit(2)
}
let examples = arguments.count > 2 ? Int(arguments[2])! : 16
let units = arguments.count > 3 ? Int(arguments[3])! : 50

let table: KernelTable
switch level {
case .baseline: table = baselineKernels()
#if arch(x86_64)
    case .avx512Zen: table = avx512ZenKernels()
    case .avx512: table = avx512Kernels()
    case .avx2: table = avx2Kernels()
#elseif arch(arm64)
    case .neon: table = neonKernels()
#endif
default:
    print("the \(level.rawValue) kernels are not compiled for this architecture")
    exit(2)
}

let layout = LSTMGateLayout(units: units)
let hiddenStride = PackedMatrix.paddedWidth(units)
let recurrent = PackedMatrix(
    rows: units, columns: layout.columns, rowMajor: (0..<(units * layout.columns)).map { Float($0 % 5) * 0.001 })
let core = RecurrentCore(
    cell: .lstm, units: units, steps: 50, returnSequences: false, goBackwards: false, activation: .tanh, recurrentActivation: .sigmoid,
    projectedStride: layout.columns, recurrent: recurrent, candidateRecurrent: nil, recurrentBias: AlignedFloats(zeros: 16),
    lstmLayout: layout)

func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
    let p = UnsafeMutablePointer<Float>.allocate(capacity: count + 64)
    p.initialize(repeating: 0.01, count: count + 64)
    return p
}
let hidden = buffer(examples * hiddenStride)
let gates = buffer(examples * layout.columns)
let buffers = RecurrentBuffers(
    hiddenStride: hiddenStride, hidden: hidden, cell: buffer(examples * hiddenStride), recurrentOut: buffer(16), gated: buffer(16),
    candidate: buffer(16))

func seconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

/// Best of 7 rounds of 2000 calls, µs a call.
func microseconds(_ body: () -> Void) -> Double {
    var best = Double.infinity
    for _ in 0..<7 {
        let start = seconds()
        for _ in 0..<2000 { body() }
        best = min(best, (seconds() - start) / 2000)
    }
    return best * 1e6
}

let peakStart = seconds()
let peakMultiplyAdds = Double(table.peak(iterations: 20_000_000).multiplyAdds)
let peak = peakMultiplyAdds / (seconds() - peakStart) / 1e9
let product = microseconds {
    table.multiply(
        hidden, lda: hiddenStride, rows: examples, recurrent.values.pointer, wRows: units, wStride: layout.columns, into: gates,
        ldc: layout.columns, start: .accumulate)
}
let step = microseconds { table.advance(core, gates, rowStride: layout.columns, batch: examples, buffers) }
let productRate = Double(examples * units * layout.columns) / product / 1e3

func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }
print(
    "\(level.rawValue): peak \(rounded(peak)) G multiply-adds/s; h·U \(examples)×\(units)×\(layout.columns) \(rounded(product)) µs",
    "(\(Int((100 * productRate / peak).rounded())) % of peak); cell \(rounded(step - product)) µs",
    "(\(Int((100 * (step - product) / step).rounded())) % of the step)")
