import Foundation

/// HeadsUp's crossings file: what `headsup crossings import` writes and the
/// daemon reads, so the daemon needs no OSM parser.
///
/// Text, one crossing a line, so it can be read, diffed and checked by eye:
///
///     # headsup-crossings 1
///     # source: monaco.osm.pbf
///     # source_timestamp: 2016-03-05T00:26:02Z
///     # credit: © OpenStreetMap contributors, ODbL 1.0
///     # licence: …
///     # made_with: headsup crossings import …
///     # count: 388
///     id<TAB>kind<TAB>latitude<TAB>longitude<TAB>kerbs
///     21911886<TAB>marked<TAB>43.7372399<TAB>7.4234985<TAB>43.7341038,7.4220794;43.7341842,7.4225294
///
/// The header's keys are fixed; the credit is checked on reading, so a
/// file stripped of it is refused (the ODbL requires it to travel with
/// the data). `count` catches a truncated file. 100,000 crossings take
/// about 5 MB.
public struct CrossingsFile: Sendable, Equatable {
    public static let magic = "# headsup-crossings"
    public static let formatVersion = 1
    /// The attribution the ODbL requires on every copy.
    public static let credit = "© OpenStreetMap contributors, ODbL 1.0"
    public static let licence =
        "map data from OpenStreetMap (https://www.openstreetmap.org/copyright), available under the Open Database Licence 1.0 (https://opendatacommons.org/licenses/odbl/1-0/)"
    static let columns = "id\tkind\tlatitude\tlongitude\tkerbs"
    /// The most crossings a file may hold (the planet has a few million): a bound for hostile files.
    public static let maximumCount = 20_000_000

    /// The extract it was made from (a file name, no folders).
    public var source: String
    /// When the extract's data was current (from its header), or the newest edit in it.
    public var sourceTimestamp: String
    /// How it was made: the command and the osmium filters, so it can be made again.
    public var madeWith: String
    public var crossings: [Crossing]

    public init(source: String, sourceTimestamp: String, madeWith: String, crossings: [Crossing]) {
        self.source = source
        self.sourceTimestamp = sourceTimestamp
        self.madeWith = madeWith
        self.crossings = crossings
    }

    /// The file's text.
    public func text() -> String {
        var lines = [
            "\(Self.magic) \(Self.formatVersion)",
            "# source: \(Self.oneLine(source))",
            "# source_timestamp: \(Self.oneLine(sourceTimestamp))",
            "# credit: \(Self.credit)",
            "# licence: \(Self.licence)",
            "# made_with: \(Self.oneLine(madeWith))",
            "# count: \(crossings.count)",
            Self.columns,
        ]
        lines.reserveCapacity(lines.count + crossings.count)
        for crossing in crossings {
            let kerbs = crossing.kerbs.map { "\(Self.coordinate($0.latitude)),\(Self.coordinate($0.longitude))" }.joined(separator: ";")
            lines.append(
                "\(crossing.id)\t\(crossing.kind.rawValue)\t\(Self.coordinate(crossing.position.latitude))\t\(Self.coordinate(crossing.position.longitude))\t\(kerbs)"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Header values keep to one line, whatever an extract's name holds.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
    }

    /// Seven decimals: OSM's own precision (about 1 cm).
    static func coordinate(_ value: Double) -> String {
        var text = String(format: "%.7f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
