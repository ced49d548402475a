/// Floats on 64-byte (cache-line) boundaries. A 16-lane vector load that
/// straddles two lines costs two L1 accesses, which halves the speed of the
/// weight-streaming kernels; Swift arrays only promise 16-byte alignment.
///
/// Owns its memory; treat it as a value (weights never change after
/// packing; scratch buffers belong to one call).
public final class AlignedFloats: @unchecked Sendable {
    public static let alignment = 64
    public let count: Int
    @usableFromInline let base: UnsafeMutablePointer<Float>

    /// `count` zeros.
    public init(zeros count: Int) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: Self.alignment)
        base = raw.initializeMemory(as: Float.self, repeating: 0, count: max(count, 1))
    }

    /// A copy of `values`.
    public convenience init(_ values: [Float]) {
        self.init(zeros: values.count)
        values.withUnsafeBufferPointer { base.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { base.deallocate() }

    @inlinable public var pointer: UnsafeMutablePointer<Float> { base }

    public func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Float>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    public func withUnsafeMutableBufferPointer<Result>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    public subscript(index: Int) -> Float {
        get {
            precondition(index >= 0 && index < count, "index \(index) out of 0..<\(count)")
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count, "index \(index) out of 0..<\(count)")
            base[index] = newValue
        }
    }
}
