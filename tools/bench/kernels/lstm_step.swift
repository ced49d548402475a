// One LSTM layer's time loop for a single window (50 steps, 50 units, the
// seed model's shape), built from the engine's own cell (VectorMath.lstmCell),
// in three variants that show what a step costs and why:
//
//   full cell        h·U, then the cell; h feeds the next step (the engine)
//   trivial cell     h·U, then two multiply-adds in place of the cell
//   cell off path    the full cell, but its h is not fed back: the next h·U
//                    does not wait for it, so only the cell's share of the
//                    FMA pipes costs time, not its latency
//
// If "cell off path" is as slow as "full cell", the cell is bound by the
// core's vector throughput (its ~80 multiply-adds, clamps and divisions per
// 16 units compete with h·U's 650), not by its dependency chain. The figures
// in tools/bench/README.md ("Where a window's time goes") come from:
//
//     swiftc -O -parse-as-library -target-cpu native tools/bench/kernels/lstm_step.swift \
//         Sources/HeadsUpModel/Kernels/VectorMath.swift Sources/HeadsUpModel/Kernels/Activation.swift \
//         -o /tmp/lstm_step && /tmp/lstm_step
import Glibc

@main
enum LSTMStepBenchmark {
    typealias V = SIMD16<Float>
    static let units = 50, steps = 50, width = 208  // 4 × 50 gate columns padded to 13 vectors

    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    @inline(__always) static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }

    /// gates += h·U, one pass over k with 13 accumulators (the engine's single-row kernel).
    @inline(__always)
    static func product(_ h: UnsafePointer<Float>, _ u: UnsafePointer<Float>, _ gates: UnsafeMutablePointer<Float>) {
        var acc = InlineArray<13, V>(repeating: V())
        for v in 0..<13 { acc[v] = load(gates + 16 * v) }
        var row = u
        for i in 0..<units {
            let x = V(repeating: h[i])
            for v in 0..<13 { acc[v].addProduct(x, load(row + 16 * v)) }
            row += width
        }
        for v in 0..<13 { store(acc[v], gates + 16 * v) }
    }

    @inline(never)
    static func run(
        _ variant: Int, _ u: UnsafePointer<Float>, _ projected: UnsafeMutablePointer<Float>,
        _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ sink: UnsafeMutablePointer<Float>
    ) {
        for step in 0..<steps {
            let g = projected + step * width
            product(h, u, g)
            var j = 0
            while j < units {
                if variant == 1 {
                    store(load(g + j) * 0.001 + load(c + j), c + j)
                    store(load(g + 3 * units + j) * 0.001, h + j)
                } else {
                    let (cell, hidden) = VectorMath.lstmCell(
                        input: load(g + j), forget: load(g + units + j), candidate: load(g + 2 * units + j),
                        output: load(g + 3 * units + j), cell: load(c + j))
                    store(cell, c + j)
                    store(hidden, (variant == 0 ? h : sink) + j)
                }
                j += 16
            }
        }
    }

    static func nanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Cache-line aligned zeros with a vector of slack.
    static func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: (count + 64) * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: count + 64)
        pointer.initialize(repeating: 0, count: count + 64)
        return pointer
    }

    static func main() {
        let u = buffer(units * width), projected = buffer(steps * width)
        let h = buffer(64), c = buffer(64), sink = buffer(64)
        for i in 0..<(units * width) { u[i] = Float(i % 7) * 0.01 - 0.03 }
        let names = ["full cell", "trivial cell", "cell off path"]
        var best = [Double](repeating: .infinity, count: names.count)
        for _ in 0..<5 {
            for variant in names.indices {
                let calls = 20_000
                for _ in 0..<200 { run(variant, u, projected, h, c, sink) }
                var elapsed: UInt64 = 0
                for _ in 0..<calls {
                    projected.update(repeating: 0.1, count: steps * width)
                    let start = nanoseconds()
                    run(variant, u, projected, h, c, sink)
                    elapsed += nanoseconds() - start
                }
                best[variant] = min(best[variant], Double(elapsed) / Double(calls * steps))
            }
        }
        for (name, figure) in zip(names, best) {
            print("\(name): \((figure * 10).rounded() / 10) ns per step (best of 5 rounds)")
        }
    }
}
