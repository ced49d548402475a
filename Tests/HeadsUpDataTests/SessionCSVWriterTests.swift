import Glibc
import HeadsUpData
import HeadsUpSystem
import HeadsUpTestSupport
import Testing

/// A sink that can be told to fail, recording what reached "the disk".
final class FlakySink: DurableSink {
    var written: [UInt8] = []
    var synced = 0
    var failWrites = false
    var failSync = false
    /// At most this many bytes per write call (short writes).
    var maximumWrite = Int.max

    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        if failWrites { throw SystemCallError(call: "write", path: "flaky", errno: ENOSPC) }
        let count = min(bytes.count, maximumWrite)
        written.append(contentsOf: bytes.prefix(count))
        return count
    }

    func sync() throws(SystemCallError) {
        if failSync { throw SystemCallError(call: "fsync", path: "flaky", errno: EIO) }
        synced = written.count
    }

    func close() throws(SystemCallError) {}

    var text: String { String(decoding: written, as: UTF8.self) }
}

@Suite("Session CSV writer")
struct SessionCSVWriterTests {
    let example = MotionSample(
        time: 1_559_703_377.924432, acceleration: SIMD3(-0.194107, 0.085098, -0.754913),
        rotationRate: SIMD3(0.489112, -3.838366, 1.977952), magneticField: SIMD3(39.774979, -91.80603, 10.664703))

    @Test func writesTheSeedFormatWithSixDecimals() {
        #expect(
            SessionCSVWriter.row(for: example, label: .pocket)
                == "0,1559703377.924432,-0.194107,0.085098,-0.754913,0.489112,-3.838366,1.977952,39.774979,-91.806030,10.664703")
    }

    @Test func roundTripsThroughTheReader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("recorded.csv")
        let writer = try SessionCSVWriter(creatingNewFileAt: path)
        var samples: [MotionSample] = []
        for step in 0..<500 {
            var s = example
            s.time += Double(step) / 50
            s.acceleration.x += Double(step) * 1e-3
            s.label = step < 250 ? .pocket : .hands
            samples.append(s)
            writer.append(s, label: s.label!)
        }
        try writer.close()
        #expect(writer.acknowledgedRowCount == 500)
        let read = try SessionCSVReader(path: path).readAll()
        #expect(read.count == 500)
        for (original, copy) in zip(samples, read) {
            #expect(abs(original.time - copy.time) < 5e-7)
            #expect(abs(original.acceleration.x - copy.acceleration.x) < 5e-7)
            #expect(original.label == copy.label)
        }
    }

    @Test func neverOverwritesAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("precious.csv", "1,1,0,0,0,0,0,0,0,0,0\n")
        do {
            _ = try SessionCSVWriter(creatingNewFileAt: path)
            Issue.record("an existing file must not be opened for writing")
        } catch {
            #expect(error.errno == EEXIST)
            #expect(error.description.contains("already exists"))
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "1,1,0,0,0,0,0,0,0,0,0\n")
    }

    @Test func onlyFlushedRowsAreAcknowledged() throws {
        let sink = FlakySink()
        let writer = SessionCSVWriter(sink: sink)
        writer.append(example, label: .hands)
        #expect(writer.acknowledgedRowCount == 0)
        #expect(sink.written.isEmpty)
        try writer.flush()
        #expect(writer.acknowledgedRowCount == 1)
        #expect(sink.synced == sink.written.count)
    }

    @Test func aFailedFlushKeepsEveryUnacknowledgedRow() throws {
        let sink = FlakySink()
        sink.maximumWrite = 37  // short writes split rows
        let writer = SessionCSVWriter(sink: sink)
        writer.append(example, label: .hands)
        try writer.flush()
        sink.failWrites = true
        for _ in 0..<3 { writer.append(example, label: .pocket) }
        #expect(throws: SystemCallError.self) { try writer.flush() }
        #expect(writer.acknowledgedRowCount == 1)
        #expect(writer.pendingRowCount == 3)
        sink.failWrites = false
        sink.failSync = true
        #expect(throws: SystemCallError.self) { try writer.flush() }
        #expect(writer.acknowledgedRowCount == 1)
        sink.failSync = false
        try writer.flush()
        #expect(writer.acknowledgedRowCount == 4)
        let lines = sink.text.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("0,1559703377.924432,") })
    }
}
