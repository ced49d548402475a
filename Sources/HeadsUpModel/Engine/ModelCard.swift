import Foundation

/// The model card written next to trained weights (`weights/model.json`):
/// the input contract the weights alone do not state — layout, rate,
/// window, channels, axis convention — and the decision threshold chosen on
/// validation data. Read when present and checked against the model.
public struct ModelCard: Sendable {
    /// "time-major" or "channel-major".
    public var layout: String
    public var inputShape: [Int]
    public var rate: Double
    public var window: Int
    public var hop: Int?
    public var channels: [String]
    /// "coremotion" or "android".
    public var convention: String
    public var threshold: Double
    /// Decision values tuned with the model on validation folds (hop,
    /// smoothing, minimum duration, exit threshold), as configuration keys
    /// and values: they join the settings just above the built-in defaults.
    public var decisionSettings: [(key: String, value: Double)]
    /// Sensors the runtime feeds as 0 whatever the device measures (the
    /// card's `input.feed`, "zero"): "gyroscope", "magnetometer". A model
    /// trained without a sensor (the magnetometer, whose raw hard-iron offset
    /// differs on every phone) must be fed exactly what it was trained on,
    /// in live, replay and evaluate alike. Empty for a card without `feed`.
    public var zeroFedSensors: [String] = []
    /// The model file the card describes (`model.file`) and its SHA-256
    /// (`model.sha256`), when the card records them.
    public var modelFile: String? = nil
    public var modelSHA256: String? = nil
    /// The licence of the weights (`model.license`), when the card states one;
    /// the data they were trained on keeps its own (``provenance``).
    public var license: String? = nil
    /// What the model was trained on and its per-position figures, when the
    /// card says (``ModelProvenance``).
    public var provenance: ModelProvenance? = nil
    public var path: String

    /// The card beside a model file: `model.h5` → `model.json`.
    public static func siblingPath(of modelPath: String) -> String {
        let url = URL(fileURLWithPath: modelPath)
        return url.deletingPathExtension().appendingPathExtension("json").path
    }

    public static func load(path: String) throws(ModelCardError) -> ModelCard {
        guard let data = FileManager.default.contents(atPath: path) else { throw ModelCardError(path: path, message: "cannot be read") }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    /// A card's text; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(ModelCardError) -> ModelCard {
        guard let json = JSONValue.parse(text) else { throw ModelCardError(path: path, message: "not valid JSON") }
        guard json["format"]?.string == "headsup-model-card" else {
            throw ModelCardError(path: path, message: "not a HeadsUp model card (no \"format\": \"headsup-model-card\")")
        }
        let input = json["input"]
        guard let layout = input?["layout"]?.string, ["time-major", "channel-major"].contains(layout) else {
            throw ModelCardError(path: path, message: "input.layout must be time-major or channel-major")
        }
        guard let shape = input?["shape"]?.ints else { throw ModelCardError(path: path, message: "input.shape is missing") }
        guard let threshold = json["decision"]?["threshold"]?.number, threshold > 0, threshold < 1 else {
            throw ModelCardError(path: path, message: "decision.threshold must be a number between 0 and 1")
        }
        // Optional tuned decision values, named as the configuration keys they set.
        let tunable = [
            ("hop", "windowing.hop"), ("time_constant", "distraction.time_constant"), ("minimum_duration", "distraction.minimum_duration"),
            ("exit_threshold", "distraction.exit_threshold"),
        ]
        var decisionSettings: [(key: String, value: Double)] = []
        for (field, key) in tunable {
            guard let value = json["decision"]?[field], !value.isNull else { continue }
            guard let number = value.number, number.isFinite, number >= 0 else {
                throw ModelCardError(path: path, message: "decision.\(field) must be a number ≥ 0")
            }
            decisionSettings.append((key, number))
        }
        // A description that starts with the convention's name (tools/training writes
        // "CoreMotion (iPhone) device axes …"); none means CoreMotion's, the training data's.
        let conventionText = (input?["convention"]?.string ?? input?["axis_convention"]?.string ?? "coremotion").lowercased()
        guard let convention = ["android", "coremotion"].first(where: { conventionText.hasPrefix($0) }) else {
            throw ModelCardError(
                path: path, message: "input.axis_convention must start with CoreMotion or Android (the axes the model was trained in)")
        }
        let zeroFed = try zeroFedSensors(input?["feed"], path: path)
        let digest = json["model"]?["sha256"]?.string
        if let digest, digest.count != 64 || !digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
            throw ModelCardError(path: path, message: "model.sha256 must be 64 lower-case hexadecimal digits")
        }
        return ModelCard(
            layout: layout, inputShape: shape, rate: input?["rate_hz"]?.number ?? 50, window: input?["window"]?.int ?? 50,
            hop: input?["hop"]?.int, channels: input?["channels"]?.array?.compactMap(\.string) ?? [], convention: convention,
            threshold: threshold, decisionSettings: decisionSettings, zeroFedSensors: zeroFed, modelFile: json["model"]?["file"]?.string,
            modelSHA256: digest, license: json["model"]?["license"]?.string, provenance: ModelProvenance.parse(card: json), path: path)
    }

    /// The sensors `input.feed` marks "zero" (sorted); each sensor may be
    /// "measured" or "zero", except the accelerometer, which every model reads.
    static func zeroFedSensors(_ feed: JSONValue?, path: String) throws(ModelCardError) -> [String] {
        guard let feed, !feed.isNull else { return [] }
        guard let entries = feed.object else {
            throw ModelCardError(path: path, message: "input.feed must be an object such as {\"magnetometer\": \"zero\"}")
        }
        var zero: [String] = []
        for (sensor, value) in entries {
            guard ["accelerometer", "gyroscope", "magnetometer"].contains(sensor) else {
                throw ModelCardError(path: path, message: "input.feed names '\(sensor)'; the sensors are accelerometer, gyroscope and magnetometer")
            }
            guard let how = value.string, ["measured", "zero"].contains(how) else {
                throw ModelCardError(path: path, message: "input.feed.\(sensor) must be \"measured\" or \"zero\"")
            }
            if how == "zero" {
                guard sensor != "accelerometer" else {
                    throw ModelCardError(path: path, message: "input.feed.accelerometer is \"zero\"; every HeadsUp model reads the accelerometer")
                }
                zero.append(sensor)
            }
        }
        return zero.sorted()
    }

    /// Checks the file at `modelPath` against the card's `model.sha256`,
    /// when the card records one for that file (`model.file` names it; a
    /// card lent to another file, such as a cross-validation fold's, is not
    /// its digest). A flipped bit in a weight otherwise loads without a word.
    public func checkDigest(ofModelAt modelPath: String) throws(ModelCardError) {
        guard let modelSHA256, let modelFile, URL(fileURLWithPath: modelPath).lastPathComponent == modelFile else { return }
        guard let data = FileManager.default.contents(atPath: modelPath) else {
            throw ModelCardError(path: path, message: "cannot read \(modelPath) to check it against model.sha256")
        }
        let found = SHA256.hex(of: data)
        guard found == modelSHA256 else {
            throw ModelCardError(
                path: path,
                message: "\(modelPath) does not match the card's model.sha256 (\(modelSHA256.prefix(12))…; the file gives \(found.prefix(12))…): "
                    + "the copy is damaged or is not the model this card describes. Copy the model and its card again")
        }
    }

    /// Checks the card against the loaded model and HeadsUp's data layer.
    public func check(against model: KerasModel) throws(ModelCardError) {
        guard inputShape == model.inputShape else {
            throw ModelCardError(path: path, message: "input.shape \(inputShape) but the model takes \(model.inputShape)")
        }
        guard inputShape.reduce(1, *) == window * 9 else {
            throw ModelCardError(path: path, message: "input.shape \(inputShape) does not hold \(window) samples × 9 channels")
        }
        guard rate == 50 else { throw ModelCardError(path: path, message: "rate \(rate) Hz; HeadsUp windows are 50 Hz") }
        let expected = ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z"]
        guard channels.isEmpty || channels == expected else {
            throw ModelCardError(path: path, message: "channels \(channels); HeadsUp gives \(expected)")
        }
        guard model.outputCount == 1 || model.outputCount == 2 else {
            throw ModelCardError(path: path, message: "the model has \(model.outputCount) outputs; expected 1 (sigmoid) or 2 (softmax)")
        }
    }
}

/// A model card that cannot be read or does not fit its model.
public struct ModelCardError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): model card: \(message)" }
}
