import Foundation

/// One model written by real Keras, with inputs and Keras's outputs: an
/// entry of a fixture folder's `cases.json` (Tests/Fixtures/keras, made by
/// tools/keras_fixtures/make_fixtures.py).
package struct KerasFixtureCase: Decodable, Sendable {
    package var name: String
    package var model: String
    package var config: String?
    package var format: String
    package var writer: String
    package var inputShape: [Int]
    package var outputShape: [Int]
    package var inputs: String
    package var outputs: String
    package var covers: [String]

    enum CodingKeys: String, CodingKey {
        case name, model, config, format, writer, inputs, outputs, covers
        case inputShape = "input_shape"
        case outputShape = "output_shape"
    }

    /// Every case of the folder `root`.
    package static func all(in root: String) throws(SelfCheckError) -> [KerasFixtureCase] {
        let file = "\(root)/cases.json"
        guard let data = FileManager.default.contents(atPath: file) else { throw .unreadable(file, "no such file, or it cannot be read") }
        do { return try JSONDecoder().decode([KerasFixtureCase].self, from: data) } catch {
            throw .unreadable(file, "not a fixture list: \(error)")
        }
    }

    /// A CSV of rows of numbers (`inputs` or `outputs`) under `root`.
    package static func rows(_ relative: String, in root: String) throws(SelfCheckError) -> [[Float]] {
        let file = "\(root)/\(relative)"
        guard let data = FileManager.default.contents(atPath: file) else { throw .unreadable(file, "no such file, or it cannot be read") }
        var rows: [[Float]] = []
        for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            let values = line.split(separator: ",").map { Float(String($0)) }
            guard !values.contains(nil) else { throw .unreadable(file, "line \(index + 1) is not a row of numbers") }
            rows.append(values.map { $0! })
        }
        return rows
    }

    /// Keras's own tolerance: 1e-5 absolute, relative for values larger than 1.
    package static func agrees(_ ours: Float, _ keras: Float) -> Bool {
        abs(ours - keras) <= 1e-5 * max(1, abs(keras))
    }
}
