/// Builds crossings from osmium's OPL text (one OSM object a line), as
/// `osmium add-locations-to-ways … -f opl` writes it: crossing nodes with
/// their tags and positions, then `footway=crossing` ways whose node
/// references carry their locations. Pure text in, crossings out: the
/// importer runs osmium and hands the lines here.
///
/// OPL: `n21911886 v8 … Thighway=crossing,crossing_ref=zebra x7.4234985 y43.7372399`,
/// `w92627430 … Tfootway=crossing,highway=footway Nn1x7.42y43.73,n2x…y…`;
/// special characters in tags are `%hex%` escapes.
public struct OPLCrossingsBuilder: Sendable {
    /// What the import met besides crossings, for the importer's summary.
    public struct Counters: Sendable, Equatable {
        public var nodes = 0
        public var ways = 0
        /// Nodes whose tags name no crossing (`crossing=no`, or none of the crossing tags).
        public var notCrossings = 0
        /// Crossing nodes without a location (a cut extract's edge).
        public var withoutLocation = 0
        /// Crossing ways through none of the crossing nodes (the road's node is untagged).
        public var waysWithoutNode = 0
        public var kerbsAttached = 0
        public var otherObjects = 0
    }

    private var crossings: [Crossing] = []
    private var indexByID: [Int64: Int] = [:]
    public private(set) var counters = Counters()
    /// The newest object edit seen (OPL `t`), for a source without a header timestamp.
    public private(set) var newestTimestamp: String?

    public init() {}

    public var crossingCount: Int { crossings.count }

    /// Reads one OPL line; `lineNumber` names it in the error.
    public mutating func add(line: Substring, lineNumber: Int) throws(OPLError) {
        let fields = line.split(separator: " ")
        guard let head = fields.first, let type = head.first else { return }
        guard let id = Int64(head.dropFirst()) else { throw OPLError(line: lineNumber, reason: "'\(head.prefix(40))' is not an OSM object id") }
        var tags: [String: String] = [:]
        var x: Double?
        var y: Double?
        var references: Substring = ""
        for field in fields.dropFirst() {
            guard let key = field.first else { continue }
            let value = field.dropFirst()
            switch key {
            case "T": tags = try Self.tags(value, line: lineNumber)
            case "x": x = Double(value)
            case "y": y = Double(value)
            case "N": references = value
            case "t": if newestTimestamp.map({ $0 < value }) ?? true { newestTimestamp = String(value) }
            default: break
            }
        }
        switch type {
        case "n":
            counters.nodes += 1
            guard let kind = CrossingKind.classify(tags) else {
                counters.notCrossings += 1
                return
            }
            guard let x, let y, GeoPoint(latitude: y, longitude: x).isValid, id > 0 else {
                counters.withoutLocation += 1
                return
            }
            guard indexByID[id] == nil else { throw OPLError(line: lineNumber, reason: "node \(id) appears twice") }
            indexByID[id] = crossings.count
            crossings.append(Crossing(id: id, kind: kind, position: GeoPoint(latitude: y, longitude: x)))
        case "w":
            counters.ways += 1
            guard tags["footway"] == "crossing" else { return }
            try attachKerbs(references, line: lineNumber)
        default:
            counters.otherObjects += 1
        }
    }

    /// The kerbs of a crossing way are its two ends; every crossing node on
    /// the way gets them (the first way wins where two cross one node).
    private mutating func attachKerbs(_ references: Substring, line: Int) throws(OPLError) {
        var nodes: [(id: Int64, point: GeoPoint?)] = []
        for reference in references.split(separator: ",") {
            guard reference.first == "n" else { throw OPLError(line: line, reason: "way node '\(reference.prefix(40))' is not nID[xLON yLAT]") }
            let body = reference.dropFirst()
            let xIndex = body.firstIndex(of: "x")
            guard let id = Int64(body[..<(xIndex ?? body.endIndex)]) else {
                throw OPLError(line: line, reason: "way node '\(reference.prefix(40))' has no id")
            }
            var point: GeoPoint?
            if let xIndex, let yIndex = body.firstIndex(of: "y"), xIndex < yIndex,
                let lon = Double(body[body.index(after: xIndex)..<yIndex]), let lat = Double(body[body.index(after: yIndex)...])
            {
                point = GeoPoint(latitude: lat, longitude: lon)
            }
            nodes.append((id, point))
        }
        guard nodes.count >= 2, let first = nodes.first?.point, let last = nodes.last?.point, first.isValid, last.isValid, first != last else {
            counters.waysWithoutNode += 1
            return
        }
        var attached = false
        for node in nodes {
            guard let index = indexByID[node.id] else { continue }
            attached = true
            guard crossings[index].kerbs.isEmpty else { continue }
            crossings[index].kerbs = [first, last]
            counters.kerbsAttached += 1
        }
        if !attached { counters.waysWithoutNode += 1 }
    }

    /// The crossings read, by id.
    public func finish() -> [Crossing] { crossings.sorted { $0.id < $1.id } }

    /// `k=v,k=v` with `%hex%` escapes.
    static func tags(_ text: Substring, line: Int) throws(OPLError) -> [String: String] {
        var tags: [String: String] = [:]
        for pair in text.split(separator: ",") {
            guard let equals = pair.firstIndex(of: "=") else { throw OPLError(line: line, reason: "tag '\(pair.prefix(40))' has no '='") }
            tags[try unescape(pair[..<equals], line: line)] = try unescape(pair[pair.index(after: equals)...], line: line)
        }
        return tags
    }

    static func unescape(_ text: Substring, line: Int) throws(OPLError) -> String {
        guard text.contains("%") else { return String(text) }
        var result = ""
        var rest = text[...]
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let after = rest[rest.index(after: percent)...]
            guard let close = after.firstIndex(of: "%"), let code = UInt32(after[..<close], radix: 16), let scalar = Unicode.Scalar(code) else {
                throw OPLError(line: line, reason: "bad %hex% escape in '\(text.prefix(40))'")
            }
            result.unicodeScalars.append(scalar)
            rest = after[after.index(after: close)...]
        }
        return result + rest
    }
}

/// An OPL line the builder cannot read.
public struct OPLError: Error, Sendable, CustomStringConvertible, Equatable {
    public var line: Int
    public var reason: String
    public var description: String { "osmium output line \(line): \(reason)" }
}
