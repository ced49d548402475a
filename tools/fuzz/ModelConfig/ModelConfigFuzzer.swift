// What HeadsUp reads from a model besides HDF5 itself under fuzzing (target
// fuzz-model-config): the Keras model config (JSON), the model card, and the
// mapping of stored weight arrays onto layers, over in-memory arrays whose
// count and shapes come from the input. `swift build` makes it a replayer of
// its corpus; `make fuzz` a fuzzer.
//
// Input: config JSON, then a 0x00 byte, then bytes that shape the weights
// (per layer: a count, then per array a rank and its dimensions).
import Foundation
import FuzzReplay
import HeadsUpModel

/// Weight arrays made up from the input's tail, as many as it says.
struct FuzzedWeights: WeightSource {
    let bytes: [UInt8]
    final class Cursor: @unchecked Sendable { var position = 0 }
    let cursor = Cursor()

    func next() -> Int {
        guard cursor.position < bytes.count else { return 0 }
        defer { cursor.position += 1 }
        return Int(bytes[cursor.position])
    }

    func weights(for layer: KerasLayerConfig) throws(ModelLoadError) -> [NamedWeight] {
        (0..<(next() % 5)).map { index in
            let shape = (0..<(next() % 4)).map { _ in next() % 70 }
            return NamedWeight(name: "\(layer.name)/w\(index)", shape: shape, values: [Float](repeating: 0.01, count: shape.reduce(1, *)))
        }
    }
}

func fuzzModelConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let split = input.firstIndex(of: 0) ?? input.endIndex
    let text = String(decoding: input[..<split], as: UTF8.self)
    let tail = Array(input[min(split + 1, input.endIndex)...])
    _ = try? ModelCard.parse(text, path: "card.json")
    guard let config = try? KerasModelConfig.parse(text, versionHint: nil, file: "fuzz.h5") else { return 0 }
    let info = KerasModelLoader.info("fuzz.h5", .legacyFullModel, nil, nil, config)
    for engine in KerasModelLoader.Engine.allCases {
        guard let model = try? KerasModelLoader.assemble(config, weights: FuzzedWeights(bytes: tail), info: info, file: "fuzz.h5", engine: engine)
        else { continue }
        // A model the loader accepts must run: its shapes are consistent.
        if model.inputCount > 0, model.inputCount <= 4096, model.parameterCount <= 200_000 {
            let output = model.predict([Float](repeating: 0.5, count: model.inputCount))
            if output.count != model.outputCount { fatalError("\(output.count) outputs, the model says \(model.outputCount)") }
        }
    }
    return 0
}

@main enum Fuzzer {
    static func main() { FuzzReplay.main(target: "model-config", fuzzModelConfig) }
}
