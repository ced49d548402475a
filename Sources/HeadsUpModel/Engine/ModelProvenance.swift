import Foundation

/// What a model card says the model learned from — data sets (with each
/// one's source, licence and any credit its licence asks for), carry
/// positions, phones, channels and what to feed for a missing one — and how
/// it did per position where nobody it learned from walked (the card's
/// walker-held-out cross-validation). `headsup model inspect` prints it so a
/// user can tell whether their phone and carry habits were covered, and so
/// the CC BY credit travels with the weights.
public struct ModelProvenance: Sendable, Equatable {
    /// One data set the model was trained on (`trained_on.data_sets[]`).
    public struct DataSet: Sendable, Equatable {
        public var name: String
        public var source: String?
        public var license: String?
        /// The attribution the licence asks for (CC BY), when there is one.
        public var credit: String?
        public var trainingSessions: Int?
        public var positions: [String]
        public var phones: [String]
        public var channels: [String]
    }

    /// The share of one position's held-out windows called distracted (for
    /// the hands: found) at `threshold`, in one pose when the card splits
    /// the position by pose.
    public struct PositionFigure: Sendable, Equatable {
        public var position: String
        /// The pose within the position (`texting`, `upright`, `front`), or
        /// nil on a card without the pose column.
        public var pose: String?
        /// True when the pose was made by turning recorded windows, not
        /// recorded (the card's rows say which).
        public var synthesised: Bool
        public var windows: Int
        public var calledDistracted: Double

        public init(position: String, pose: String? = nil, synthesised: Bool = false, windows: Int, calledDistracted: Double) {
            self.position = position
            self.pose = pose
            self.synthesised = synthesised
            self.windows = windows
            self.calledDistracted = calledDistracted
        }
    }

    public var dataSets: [DataSet]
    /// Positions the model was trained on, with their training sessions.
    public var positions: [(name: String, sessions: Int)]
    public var phones: [String]
    /// How the channels were shown in training (channel dropout).
    public var channelsTrained: String?
    /// What the runtime must feed for a channel a device lacks.
    public var missingChannels: String?
    /// Per-position figures from cross-validation, and the threshold and
    /// scheme they were measured with.
    public var positionFigures: [PositionFigure]
    public var figuresThreshold: Double?
    public var figuresScheme: String?

    public static func == (a: ModelProvenance, b: ModelProvenance) -> Bool {
        a.dataSets == b.dataSets && a.positions.map(\.name) == b.positions.map(\.name)
            && a.positions.map(\.sessions) == b.positions.map(\.sessions) && a.phones == b.phones
            && a.channelsTrained == b.channelsTrained && a.missingChannels == b.missingChannels
            && a.positionFigures == b.positionFigures && a.figuresThreshold == b.figuresThreshold
            && a.figuresScheme == b.figuresScheme
    }

    /// The card's `trained_on` block and `cross_validation.by_position`; for
    /// a card without `trained_on` (one data set), `data.dataset` alone.
    /// `nil` when the card says neither.
    package static func parse(card json: JSONValue) -> ModelProvenance? {
        let trained = json["trained_on"].flatMap { $0.isNull ? nil : $0 }
        var dataSets: [DataSet] = []
        for entry in trained?["data_sets"]?.array ?? [] {
            guard let name = entry["name"]?.string else { continue }
            dataSets.append(
                DataSet(
                    name: name, source: entry["source"]?.string, license: entry["license"]?.string, credit: entry["credit"]?.string,
                    trainingSessions: entry["training_sessions"]?.int, positions: strings(entry["positions"]),
                    phones: strings(entry["phones"]), channels: strings(entry["channels"])))
        }
        if dataSets.isEmpty, let name = json["data"]?["dataset"]?.string {
            dataSets.append(
                DataSet(
                    name: name, source: nil, license: nil, credit: nil, trainingSessions: json["data"]?["training_sessions"]?.array?.count,
                    positions: [], phones: [], channels: []))
        }
        let positions = (trained?["positions"]?.object ?? [:]).map { (name: $0.key, sessions: $0.value["sessions"]?.int ?? 0) }
            .sorted { $0.name < $1.name }
        let byPosition = json["cross_validation"]?["by_position"]
        let threshold = byPosition?["threshold"]?.number
        func share(_ value: JSONValue) -> Double? {
            threshold != nil ? value["called_distracted_at_threshold"]?.number : value["called_distracted_at_0.5"]?.number
        }
        var figures: [PositionFigure] = []
        if let rows = byPosition?["rows"]?.array {
            // Position by pose, recorded rows first within a position, in the card's order.
            for row in rows {
                guard let position = row["position"]?.string, let called = share(row) else { continue }
                figures.append(
                    PositionFigure(
                        position: position, pose: row["pose"]?.string, synthesised: row["source"]?.string == "synthesised",
                        windows: row["windows"]?.int ?? 0, calledDistracted: called))
            }
            figures = figures.enumerated().sorted {
                ($0.element.position, $0.element.synthesised ? 1 : 0, $0.offset) < ($1.element.position, $1.element.synthesised ? 1 : 0, $1.offset)
            }.map(\.element)
        } else {
            for (name, value) in byPosition?["positions"]?.object ?? [:] {
                guard let called = share(value) else { continue }
                figures.append(PositionFigure(position: name, windows: value["windows"]?.int ?? 0, calledDistracted: called))
            }
            figures.sort { $0.position < $1.position }
        }
        guard !dataSets.isEmpty || !figures.isEmpty else { return nil }
        return ModelProvenance(
            dataSets: dataSets, positions: positions, phones: strings(trained?["phones"]),
            channelsTrained: trained?["channels"]?["trained_with"]?.string, missingChannels: trained?["channels"]?["missing"]?.string,
            positionFigures: figures, figuresThreshold: figures.isEmpty ? nil : (threshold ?? 0.5),
            figuresScheme: json["cross_validation"]?["scheme"]?.string)
    }

    private static func strings(_ value: JSONValue?) -> [String] { value?.array?.compactMap(\.string) ?? [] }

    /// The lines `model inspect` prints under "Trained on".
    public var summaryLines: [String] {
        var lines: [String] = []
        for set in dataSets {
            var head = "Data set: \(set.name)"
            if let sessions = set.trainingSessions { head += ", \(sessions) training sessions" }
            lines.append(head)
            if !set.positions.isEmpty { lines.append("  positions: \(set.positions.joined(separator: ", "))") }
            if !set.phones.isEmpty { lines.append("  phones: \(set.phones.joined(separator: ", "))") }
            if !set.channels.isEmpty { lines.append("  channels: \(set.channels.joined(separator: ", "))") }
            if let source = set.source { lines.append("  source: \(source)") }
            if let license = set.license { lines.append("  licence: \(license)") }
            if let credit = set.credit { lines.append("  credit: \(credit)") }
        }
        if !positions.isEmpty {
            lines.append("Positions: " + positions.map { "\($0.name) (\($0.sessions) sessions)" }.joined(separator: ", "))
        }
        if !phones.isEmpty { lines.append("Phones: \(phones.joined(separator: ", "))") }
        if let channelsTrained { lines.append("Channels: \(channelsTrained)") }
        if let missingChannels { lines.append("Missing channels: \(missingChannels)") }
        if let figuresThreshold, !positionFigures.isEmpty {
            let byPose = positionFigures.contains { $0.pose != nil }
            lines.append(
                "Per position\(byPose ? " and pose" : ""), held-out cross-validation windows called distracted at "
                    + "\(String(format: "%.2f", figuresThreshold)) (hands: found):")
            for figure in positionFigures {
                var name = figure.position.padding(toLength: 26, withPad: " ", startingAt: 0)
                if byPose {
                    let pose = (figure.pose ?? "") + (figure.synthesised ? " (synthesised)" : "")
                    name += " " + pose.padding(toLength: 54, withPad: " ", startingAt: 0)
                }
                lines.append("  \(name) \(String(format: "%5.1f", 100 * figure.calledDistracted)) %  of \(figure.windows) windows")
            }
            if positionFigures.contains(where: \.synthesised) {
                lines.append(
                    "  (synthesised: the held-out hands windows, recorded in the texting pose, turned rigidly into that pose;"
                        + " no recording of it was used)")
            }
            if let figuresScheme { lines.append("  (cross-validation: \(figuresScheme))") }
        }
        return lines
    }
}
