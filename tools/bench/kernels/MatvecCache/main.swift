// One LSTM step's recurrent product (h·U, 50 × 208 floats, 13 vectors of
// 16 lanes) timed with U cache-line aligned or not, and with 1 to 8
// different U matrices in turn (40 KB fits the 48 KB L1; two or more stream
// from L2). The figures behind docs/notes/2026-11-22-engine-speed.md were
// taken with the CPU's own instructions (target bench-matvec-cache in
// Package.swift; from the repository root):
//
//     swift build -c release --product bench-matvec-cache -Xswiftc -target-cpu -Xswiftc native
//     .build/release/bench-matvec-cache            # aligned
//     .build/release/bench-matvec-cache misaligned # U offset by 16 bytes, as a Swift array may be
import Glibc

typealias V = SIMD16<Float>
@inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
@inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }

@inline(never)
func product(_ h: UnsafePointer<Float>, _ u: UnsafePointer<Float>, k: Int, _ out: UnsafeMutablePointer<Float>) {
    var acc = InlineArray<13, V>(repeating: V())
    var row = u
    for i in 0..<k {
        let x = V(repeating: h[i])
        for v in 0..<13 { acc[v].addProduct(x, load(row + 16 * v)) }
        row += 208
    }
    for v in 0..<13 { store(acc[v], out + 16 * v) }
}

func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}

let misaligned = CommandLine.arguments.dropFirst().first == "misaligned"
let h = UnsafeMutablePointer<Float>.allocate(capacity: 64)
h.initialize(repeating: 0.001, count: 64)
let out = UnsafeMutablePointer<Float>.allocate(capacity: 208)
for matrices in [1, 2, 4, 8] {
    let floats = 50 * 208 * matrices
    var raw: UnsafeMutableRawPointer? = nil
    posix_memalign(&raw, 64, floats * 4 + 64)
    let u = (raw! + (misaligned ? 16 : 0)).bindMemory(to: Float.self, capacity: floats)
    for i in 0..<floats { u[i] = Float(i % 7) * 0.01 }
    let calls = 200_000
    for _ in 0..<1000 { product(h, u, k: 50, out) }
    let start = nanoseconds()
    // Each product feeds the next, as the steps of a recurrence do.
    for call in 0..<calls {
        product(h, u + (call % matrices) * 50 * 208, k: 50, out)
        h[0] = out[0] * 1e-9
    }
    let elapsed = Double(nanoseconds() - start) / Double(calls)
    print("\(matrices) matrix/matrices (\(matrices * 41_600 / 1024) KB), \(misaligned ? "misaligned" : "aligned"): \(elapsed) ns per product")
    free(raw)
}
