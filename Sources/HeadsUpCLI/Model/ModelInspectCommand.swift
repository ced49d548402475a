import ArgumentParser
import Foundation
import HeadsUpEvaluation
import HeadsUpModel

/// `headsup model inspect`: what a model file holds, like Keras's summary.
struct ModelInspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a model's format, Keras version, input, layers and parameters, and its card's training data and figures.")

    @Argument(help: "A .h5, .keras or .weights.h5 file.", completion: .file())
    var path: String

    @OptionGroup var model: ModelFileOptions

    func run() throws {
        let loaded = try model.load(path)
        print(Self.summary(of: loaded))
        // The card beside the model (model.h5 → model.json): what it was trained
        // on, the credit its data's licence asks for, and its per-position figures.
        let cardPath = ModelCard.siblingPath(of: path)
        guard FileManager.default.fileExists(atPath: cardPath) else { return }
        let card = try ModelCard.load(path: cardPath)
        try card.checkDigest(ofModelAt: path)
        print("")
        print(Self.cardLines(card).joined(separator: "\n"))
    }

    static func cardLines(_ card: ModelCard) -> [String] {
        var lines = ["Card: \(card.path)", "Threshold: \(card.threshold)"]
        if let license = card.license { lines.append("Licence of the weights: \(license)") }
        if !card.decisionSettings.isEmpty {
            lines.append("Decision: " + card.decisionSettings.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if !card.zeroFedSensors.isEmpty {
            lines.append("Fed as 0 (input.feed; live, replay and evaluate): " + card.zeroFedSensors.joined(separator: ", "))
        }
        if let provenance = card.provenance {
            lines.append("Trained on:")
            lines += provenance.summaryLines.map { "  " + $0 }
        }
        return lines
    }

    static func summary(of model: KerasModel) -> String {
        func shape(_ dims: [Int]) -> String { "(None, " + dims.map(String.init).joined(separator: ", ") + ")" }
        let info = model.info
        var lines = [
            "Model: \"\(info.modelName)\" (\(info.modelClass))",
            "File: \(info.file)",
            "Format: \(info.format.rawValue), Keras \(info.kerasVersion)" + (info.backend.map { ", backend \($0)" } ?? ""),
            "Input: \(shape(model.inputShape))   Output: \(shape(model.outputShape))",
            "",
        ]
        var table = TextTable(header: ["Layer (type)", "Output Shape", "Param #", "Details"], rightAligned: [2])
        for layer in model.layers {
            table.rows.append(["\(layer.name) (\(layer.className))", shape(layer.outputShape), grouped(layer.parameterCount), layer.details])
        }
        lines.append(table.renderedForTerminal())
        lines.append("")
        lines.append("Total params: \(grouped(model.parameterCount))")
        lines.append("Kernels: \(model.kernelLevel.map(\.description) ?? "none (the plain reference layers)") (HEADSUP_KERNELS forces a lower level)")
        return lines.joined(separator: "\n")
    }

    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }
}
