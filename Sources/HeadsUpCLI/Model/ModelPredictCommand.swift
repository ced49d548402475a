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

    @Flag(help: "Run the plain reference layers (Sources/HeadsUpModel/Reference) instead of the fast ones.")
    var reference = false

    func run() throws {
        let loaded = try modelFile.load(model, engine: reference ? .reference : .fast)
        var batch: [Float] = []
        var count = 0
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
        try InputLines.read(input, width: loaded.inputCount, shape: loaded.inputShape) { values in
            batch += values
            count += 1
            if count == 256 { flush() }
        }
        flush()
    }
}
