import HeadsUpData
import HeadsUpTestSupport
import Testing

/// The one way a recording reaches the grid, and what it reports left out.
@Suite("Session stream")
struct SessionStreamTests {
    @Test func aFileAndTheSameSamplesInMemoryGiveTheSameGrid() throws {
        let directory = try TemporaryDirectory()
        let rows = (0..<60).map { row(time: 100 + Double($0) * 0.01) }
        let path = try directory.write("session.csv", ([SessionCSVFormat.header] + rows).joined(separator: "\n"))
        var file = try SessionStream(path: path)
        var fromFile: [ResampledEvent] = []
        while try file.advance(emit: { fromFile.append($0) }) {}
        #expect(file.origin == 100)
        #expect(file.leftOut == .init(path: path, skippedRows: 0, droppedSamples: 0))
        #expect(file.leftOut.notes.isEmpty)

        var memory = SessionStream(samples: try SessionCSVReader(path: path).readAll())
        var fromMemory: [ResampledEvent] = []
        while try memory.advance(emit: { fromMemory.append($0) }) {}
        #expect(fromMemory == fromFile)
        #expect(fromFile.count >= 30)
    }

    @Test func skippedRowsAndDroppedSamplesAreCountedAndNamed() throws {
        let directory = try TemporaryDirectory()
        let rows = [row(time: 1), row(time: 1.01), "1,oops", row(time: 1.02), row(time: 0.5), row(time: 1.03)]
        let path = try directory.write("session.csv", ([SessionCSVFormat.header] + rows).joined(separator: "\n"))
        var stream = try SessionStream(path: path, csv: .init(lenient: true))
        while try stream.advance(emit: { _ in }) {}
        #expect(stream.leftOut.skippedRows == 1)
        #expect(stream.leftOut.droppedSamples == 1)
        #expect(stream.leftOut.notes.count == 2)
        #expect(stream.leftOut.notes[1].contains("headsup dataset stats \(path)"))
    }
}
