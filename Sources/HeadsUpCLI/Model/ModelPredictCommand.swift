import ArgumentParser
import Foundation
import HeadsUpModel

/// `headsup model predict`: one flattened input per line in, the model's
/// outputs per line out (`%.9g`): how anyone checks HeadsUp against Keras.
struct ModelPredictCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict",
        abstract: "Run a model on inputs read one per line (comma-separated floats).",
        discussion: """
            Each input line holds one example flattened in C order (the model's input shape \
            without the batch dimension). Each output line holds that example's outputs. \
            Blank lines are skipped; a malformed line stops with its line number.
            """)

    @Option(help: "The model file.", completion: .file())
    var model: String

    @Argument(help: "Input file, or - for standard input.", completion: .file())
    var input: String = "-"

    @OptionGroup var modelFile: ModelFileOptions

    func run() throws {
        let loaded = try modelFile.load(model)
        let handle: FileHandle
        if input == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: input) else { throw CommandFailure("\(input): cannot be opened") }
            handle = file
        }
        var batch: [Float] = []
        var count = 0
        var lineNumber = 0
        func flush() {
            guard count > 0 else { return }
            let outputs = loaded.predict(batch: batch, count: count)
            var text = ""
            for row in 0..<count {
                let values = outputs[(row * loaded.outputCount)..<((row + 1) * loaded.outputCount)]
                text += values.map { String(format: "%.9g", Double($0)) }.joined(separator: ",") + "\n"
            }
            FileHandle.standardOutput.write(Data(text.utf8))
            batch.removeAll(keepingCapacity: true)
            count = 0
        }
        for line in LineSequence(handle) {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == loaded.inputCount else {
                throw CommandFailure("\(input):\(lineNumber): expected \(loaded.inputCount) values (input shape \(loaded.inputShape)), found \(fields.count)")
            }
            for (column, field) in fields.enumerated() {
                guard let value = Float(field.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                    throw CommandFailure("\(input):\(lineNumber):\(column + 1): '\(field)' is not a finite number")
                }
                batch.append(value)
            }
            count += 1
            if count == 256 { flush() }
        }
        flush()
    }
}

/// Lines of a file handle, read in blocks.
struct LineSequence: Sequence, IteratorProtocol {
    let handle: FileHandle
    private var buffer = Data()
    private var finished = false

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                var text = String(decoding: line, as: UTF8.self)
                if text.hasSuffix("\r") { text.removeLast() }
                return text
            }
            if finished {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            let chunk = handle.readData(ofLength: 1 << 16)
            if chunk.isEmpty { finished = true } else { buffer.append(chunk) }
        }
    }
}
