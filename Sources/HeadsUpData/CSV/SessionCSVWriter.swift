import Glibc
import HeadsUpSystem

/// Writes samples in the session format (`%.6f` numbers, no header).
///
/// Rows are buffered in memory until ``flush()`` writes them and fsyncs the
/// file; a row counts as *acknowledged* only once a flush has returned, and
/// an acknowledged row survives a crash or power cut. A failed flush keeps
/// every unacknowledged byte so a later flush can still deliver it.
public final class SessionCSVWriter {
    private let sink: any DurableSink
    private var pending: [UInt8] = []
    private var pendingRows = 0
    public private(set) var acknowledgedRowCount = 0
    public var pendingRowCount: Int { pendingRows }

    public init(sink: any DurableSink) {
        self.sink = sink
        pending.reserveCapacity(16 * 1024)
    }

    /// Creates a new session file at `path`; an existing file is never overwritten.
    public convenience init(creatingNewFileAt path: String) throws(SystemCallError) {
        self.init(sink: try NewFileSink(creating: path))
    }

    /// Buffers one row; cheap enough to call for every sample.
    public func append(_ sample: MotionSample, label: ActivityLabel) {
        pending.append(label == .hands ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        Self.appendField(sample.time, to: &pending)
        for channel in SensorChannel.allCases { Self.appendField(sample[channel], to: &pending) }
        pending.append(UInt8(ascii: "\n"))
        pendingRows += 1
    }

    /// Writes every buffered row and waits for the disk. When this returns,
    /// ``acknowledgedRowCount`` rows are durable.
    public func flush() throws(SystemCallError) {
        while !pending.isEmpty {
            let written: Int
            do {
                written = try pending.withUnsafeBytes { try sink.write($0) }
            } catch let error as SystemCallError {
                throw error
            } catch {
                fatalError("DurableSink.write throws only SystemCallError")
            }
            pending.removeFirst(written)
        }
        try sink.sync()
        acknowledgedRowCount += pendingRows
        pendingRows = 0
    }

    /// Flushes and closes; the writer cannot be used afterwards.
    public func close() throws(SystemCallError) {
        try flush()
        try sink.close()
    }

    /// The text of one row, exactly as ``append(_:label:)`` writes it.
    public static func row(for sample: MotionSample, label: ActivityLabel) -> String {
        var bytes: [UInt8] = [label == .hands ? UInt8(ascii: "1") : UInt8(ascii: "0")]
        appendField(sample.time, to: &bytes)
        for channel in SensorChannel.allCases { appendField(sample[channel], to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendField(_ value: Double, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
            let length = withVaList([value]) { vsnprintf(buffer.baseAddress!, 352, "%.6f", $0) }
            buffer.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0.prefix(Int(length))) }
        }
    }
}
