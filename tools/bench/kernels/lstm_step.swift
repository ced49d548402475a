// One LSTM layer's time loop for a single window (50 steps, 50 units, the
// seed model's shape), built from the engine's own cell (VectorMath.lstmCell),
// in variants that show what a step costs and why:
//
//   full cell        h·U (13 vectors of 16 gate columns, Keras's gate
//                    order), then the cell on 4 vectors of 16 units; h feeds
//                    the next step (the engine before LSTMGateLayout)
//   three vectors    the same without the 4th cell vector (units 48-49 left
//                    out, wrong results): what the 2 leftover units cost
//   leftover block   LSTMGateLayout's order (the engine): units 0-47 as in
//                    full, the gates of units 48-49 in one vector, activated
//                    in one exp-based pass, then the cell on 4 lanes
//   cell off path    the full cell, but its h is not fed back: the next h·U
//                    does not wait for it, so only the cell's share of the
//                    vector pipes costs time, not its latency
//   trivial cell     h·U, then two multiply-adds in place of the cell
//
// "cell off path" as slow as "full cell" means the cell is bound by the
// core's vector throughput (its ~64 multiply-adds per 16 units compete with
// h·U's 650), not by its dependency chain. Each variant is its own
// specialization of one generic loop, so the cell is inlined as in the
// engine (compile with -wmo: without it the cell is an out-of-line call and
// the variants with the cell are ~15 ns a step slower, which is what this
// file's first version measured). The figures in
// docs/notes/2026-11-22-engine-speed.md come from the sources as they were
// before the kernels moved to Sources/HeadsUpKernels and became generic over
// the multiply-add (check out the parent of the commit that added that
// folder, `git log --diff-filter=A -- Sources/HeadsUpKernels`), with:
//
//     mkdir -p tools/bench/out && swiftc -O -wmo -parse-as-library -target-cpu native tools/bench/kernels/lstm_step.swift \
//         Sources/HeadsUpModel/Kernels/VectorMath.swift Sources/HeadsUpModel/Kernels/Activation.swift \
//         Sources/HeadsUpModel/Layers/LSTMGateLayout.swift -o tools/bench/out/lstm_step && taskset -c 0 tools/bench/out/lstm_step
import Glibc

typealias V = SIMD16<Float>
let units = 50, steps = 50, width = 208  // 4 × 50 gate columns padded to 13 vectors

@inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
@inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
@inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }

/// gates += h·U, one pass over k with 13 accumulators (the engine's single-row kernel).
@inline(__always)
func product(_ h: UnsafePointer<Float>, _ u: UnsafePointer<Float>, _ gates: UnsafeMutablePointer<Float>) {
    var acc = InlineArray<13, V>(repeating: V())
    for v in 0..<13 { acc[v] = load(gates + 16 &* v) }
    var row = u
    for i in 0..<units {
        let x = V(repeating: h[i])
        for v in 0..<13 { acc[v].addProduct(x, load(row + 16 &* v)) }
        row += width
    }
    for v in 0..<13 { store(acc[v], gates + 16 &* v) }
}

/// One step's cell update from the gate row `g` (Keras order i, f, c, o).
protocol CellVariant {
    static var name: String { get }
    static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>)
}

@inline(__always)
func cells(upTo end: Int, _ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
    var j = 0
    while j < end {
        let (cell, hidden) = VectorMath.lstmCell(
            input: load(g + j), forget: load(g + units + j), candidate: load(g + 2 * units + j),
            output: load(g + 3 * units + j), cell: load(c + j))
        store(cell, c + j)
        store(hidden, h + j)
        j += 16
    }
}

enum FullCell: CellVariant {
    static let name = "full cell"
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        cells(upTo: units, g, h, c)
    }
}

enum ThreeVectors: CellVariant {
    static let name = "three vectors"
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        cells(upTo: 48, g, h, c)
    }
}

enum LeftoverBlock: CellVariant {
    static let name = "leftover block"
    static let layout = LSTMGateLayout(units: units)
    static let activations = layout.leftoverActivations()
    @inline(__always) static func group(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        var j = 0
        while j < 48 {
            let (cell, hidden) = VectorMath.lstmCell(
                input: load(g + j), forget: load(g + 48 + j), candidate: load(g + 96 + j),
                output: load(g + 144 + j), cell: load(c + j))
            store(cell, c + j)
            store(hidden, h + j)
            j += 16
        }
        // [i i - - f f - - c c - - o o - -]: one exp-based pass, then units 48-51 as a group of 4.
        store(activations[0](load(g + 192)), g + 192)
        let cell = (group(g + 196) * group(c + 48)).addingProduct(group(g + 192), group(g + 200))
        let tanh = VectorMath.rationalTanh(V(lowHalf: SIMD8(lowHalf: cell, highHalf: .zero), highHalf: .zero)).lowHalf.lowHalf
        UnsafeMutableRawPointer(c + 48).storeBytes(of: cell, as: SIMD4<Float>.self)
        UnsafeMutableRawPointer(h + 48).storeBytes(of: group(g + 204) * tanh, as: SIMD4<Float>.self)
    }
}

enum CellOffPath: CellVariant {
    static let name = "cell off path"
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        cells(upTo: units, g, sink, c)
    }
}

enum TrivialCell: CellVariant {
    static let name = "trivial cell"
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        var j = 0
        while j < units {
            store(load(g + j) * 0.001 + load(c + j), c + j)
            store(load(g + 3 * units + j) * 0.001, h + j)
            j += 16
        }
    }
}

@inline(never)
func run<Cell: CellVariant>(
    _ cell: Cell.Type, _ u: UnsafePointer<Float>, _ projected: UnsafeMutablePointer<Float>,
    _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ sink: UnsafeMutablePointer<Float>
) {
    for step in 0..<steps {
        let g = projected + step * width
        product(h, u, g)
        Cell.update(g, h, c, sink: sink)
    }
}

func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

/// Cache-line aligned zeros with a vector of slack.
func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
    let pointer = UnsafeMutableRawPointer.allocate(byteCount: (count + 64) * 4, alignment: 64)
        .bindMemory(to: Float.self, capacity: count + 64)
    pointer.initialize(repeating: 0, count: count + 64)
    return pointer
}

@main
enum LSTMStepBenchmark {
    static func main() {
        let u = buffer(units * width), projected = buffer(steps * width)
        let h = buffer(64), c = buffer(64), sink = buffer(64)
        for i in 0..<(units * width) { u[i] = Float(i % 7) * 0.01 - 0.03 }

        /// Nanoseconds per step over 3,000 windows after a warm-up.
        func time<Cell: CellVariant>(_ cell: Cell.Type) -> Double {
            for _ in 0..<100 { run(cell, u, projected, h, c, sink) }
            let calls = 3_000
            var elapsed: UInt64 = 0
            for _ in 0..<calls {
                projected.update(repeating: 0.1, count: steps * width)
                let start = nanoseconds()
                run(cell, u, projected, h, c, sink)
                elapsed += nanoseconds() - start
            }
            return Double(elapsed) / Double(calls * steps)
        }

        // Short rounds, the variants alternating, best round each: this VM
        // runs a process in fast and slow periods, and alternating puts
        // every variant in the same ones.
        let variants: [(String, () -> Double)] = [
            (FullCell.name, { time(FullCell.self) }), (ThreeVectors.name, { time(ThreeVectors.self) }),
            (LeftoverBlock.name, { time(LeftoverBlock.self) }), (CellOffPath.name, { time(CellOffPath.self) }),
            (TrivialCell.name, { time(TrivialCell.self) }),
        ]
        var best = [Double](repeating: .infinity, count: variants.count)
        for _ in 0..<30 {
            for (index, variant) in variants.enumerated() { best[index] = min(best[index], variant.1()) }
        }
        let figures = zip(variants, best).map { ($0.0, $1) }
        for (name, figure) in figures {
            print("\(name): \((figure * 10).rounded() / 10) ns per step (best of 30 rounds)")
        }
    }
}
