// One LSTM layer's time loop for a single window (50 steps, 50 units, the
// seed model's shape), built from the engine's own cell (VectorMath.lstmCell),
// in variants that show what a step costs and why:
//
//   full cell        h·U (13 vectors of 16 gate columns), then the cell on
//                    4 vectors of 16 units; h feeds the next step (the engine)
//   three vectors    the same without the 4th cell vector (units 48-49 left
//                    out, wrong results): what the 2 leftover units cost
//   packed leftover  units 0-47 as in full; the 8 gate values of units 48-49
//                    packed into one vector (one tanh and one exp for all)
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
// file's first version measured). The figures in tools/bench/README.md
// ("Where a window's time goes") come from:
//
//     swiftc -O -wmo -parse-as-library -target-cpu native tools/bench/kernels/lstm_step.swift \
//         Sources/HeadsUpModel/Kernels/VectorMath.swift Sources/HeadsUpModel/Kernels/Activation.swift \
//         -o /tmp/lstm_step && taskset -c 0 /tmp/lstm_step
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

enum PackedLeftover: CellVariant {
    static let name = "packed leftover"
    /// Lanes 2k, 2k+1 of `v` in every pair of lanes.
    @inline(__always) static func pair(_ v: V, _ k: Int) -> V {
        unsafeBitCast(SIMD8<Double>(repeating: unsafeBitCast(v, to: SIMD8<Double>.self)[k]), to: V.self)
    }
    @inline(__always) static func twoFloats(_ p: UnsafeMutablePointer<Float>) -> Double {
        UnsafeRawPointer(p).loadUnaligned(as: Double.self)
    }
    @inline(__always) static func update(_ g: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, sink: UnsafeMutablePointer<Float>) {
        cells(upTo: 48, g, h, c)
        // [i i f f c c o o]; σ(x) = (1 + tanh(x/2)) / 2 for i and o (an engine would halve their weights).
        let packed = unsafeBitCast(
            SIMD8<Double>(twoFloats(g + 48), twoFloats(g + 98), twoFloats(g + 148), twoFloats(g + 198), 0, 0, 0, 0), to: V.self)
        let (p, q) = VectorMath.rationalTanhTerms(packed * V(0.5, 0.5, 1, 1, 1, 1, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1))
        let e = VectorMath.exp(-packed, lowest: -28, highest: 28)
        let pi = pair(p, 0), pc = pair(p, 2), po = pair(p, 3), qi = pair(q, 0), qc = pair(q, 2), qo = pair(q, 3)
        let b = pair(e, 1) + 1
        let d = qi * qc
        let cell = ((d + d) * load(c + 48)).addingProduct((qi + pi) * pc, b) / ((d + d) * b)
        let (tanhP, tanhQ) = VectorMath.rationalTanhTerms(cell)
        store(cell, c + 48)
        store(((qo + po) * tanhP) / ((qo + qo) * tanhQ), h + 48)
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

        /// Nanoseconds per step, best of 5 rounds of 20,000 windows.
        func time<Cell: CellVariant>(_ cell: Cell.Type) -> Double {
            var best = Double.infinity
            for _ in 0..<5 {
                for _ in 0..<200 { run(cell, u, projected, h, c, sink) }
                let calls = 20_000
                var elapsed: UInt64 = 0
                for _ in 0..<calls {
                    projected.update(repeating: 0.1, count: steps * width)
                    let start = nanoseconds()
                    run(cell, u, projected, h, c, sink)
                    elapsed += nanoseconds() - start
                }
                best = min(best, Double(elapsed) / Double(calls * steps))
            }
            return best
        }

        let figures = [
            (FullCell.name, time(FullCell.self)), (ThreeVectors.name, time(ThreeVectors.self)),
            (PackedLeftover.name, time(PackedLeftover.self)), (CellOffPath.name, time(CellOffPath.self)),
            (TrivialCell.name, time(TrivialCell.self)),
        ]
        for (name, figure) in figures {
            print("\(name): \((figure * 10).rounded() / 10) ns per step (best of 5 rounds)")
        }
    }
}
