/// What kind of crossing the map says it is. The names are HeadsUp's own
/// (the file and the `crossings.kinds` setting use them); how OSM tags map
/// onto them is ``CrossingKind/classify(_:)``.
public enum CrossingKind: String, Sendable, CaseIterable, Comparable, Codable {
    /// Traffic lights for pedestrians.
    case signals
    /// Road markings (a zebra or other painted crossing), no lights.
    case marked
    /// No lights; OSM's `crossing=uncontrolled`, and a `highway=crossing` that says nothing more.
    case uncontrolled
    /// A crossing with neither lights nor markings (often where sidewalks are mapped apart from the road).
    case unmarked
    /// A crossing with a traffic island in the middle.
    case island
    /// A footpath over a railway (`railway=crossing`).
    case railFoot = "rail-foot"
    /// A road over a railway (`railway=level_crossing`).
    case railRoad = "rail-road"

    public static func < (lhs: CrossingKind, rhs: CrossingKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The kinds by name, for settings and flags: a comma-separated list
    /// (`signals,marked`), or `all`. The error names the unknown kind.
    public static func parseList(_ text: String) throws(CrossingKindError) -> Set<CrossingKind> {
        let names = text.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
        if names == ["all"] { return Set(allCases) }
        var kinds: Set<CrossingKind> = []
        for name in names {
            guard let kind = CrossingKind(rawValue: name) else { throw CrossingKindError(name: name) }
            kinds.insert(kind)
        }
        return kinds
    }

    /// Every kind's name, as the settings help lists them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A crossing kind HeadsUp does not know.
public struct CrossingKindError: Error, Sendable, CustomStringConvertible, Equatable {
    public var name: String
    public var description: String { "'\(name)' is not a crossing kind: use \(CrossingKind.names), or all" }
}

/// A point on the Earth in WGS84 degrees, as OSM and GeoClue give them.
public struct GeoPoint: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether it is a place on Earth (finite, latitude ±90, longitude ±180).
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}

/// One mapped crossing: where it is, what kind, which OSM node, and where
/// the map has them the kerbs its crossing way runs between.
public struct Crossing: Sendable, Hashable {
    /// The OSM node id (positive).
    public var id: Int64
    public var kind: CrossingKind
    public var position: GeoPoint
    /// Ends of the `footway=crossing` way through the node (empty where not mapped).
    public var kerbs: [GeoPoint]

    public init(id: Int64, kind: CrossingKind, position: GeoPoint, kerbs: [GeoPoint] = []) {
        self.id = id
        self.kind = kind
        self.position = position
        self.kerbs = kerbs
    }

    /// The region name its events carry: `osm:node/ID`.
    public var regionName: String { "osm:node/\(id)" }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
