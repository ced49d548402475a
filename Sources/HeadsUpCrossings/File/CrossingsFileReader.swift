import Foundation

/// What is wrong with a crossings file: the file and the line, and what to do.
public struct CrossingsFileError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Problem: Sendable, Equatable {
        /// Not there, or not readable.
        case unreadable
        /// Some other file: no `# headsup-crossings` first line.
        case foreign
        /// A format version this HeadsUp does not read.
        case version(String)
        /// A header line missing or wrong.
        case header(String)
        /// A crossing line that cannot be read.
        case row(line: Int, reason: String)
        /// Fewer or more crossings than the header's count.
        case count(expected: Int, found: Int)
    }

    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .unreadable:
            "\(path): cannot be read; give a crossings file made by `headsup crossings import EXTRACT --out FILE`"
        case .foreign:
            "\(path): not a HeadsUp crossings file (it does not start with '\(CrossingsFile.magic) N'); an OSM extract must be imported first: `headsup crossings import \(path) --out crossings.tsv`"
        case .version(let version):
            "\(path): crossings file format version \(version), but this HeadsUp reads version \(CrossingsFile.formatVersion); import the extract again with this HeadsUp"
        case .header(let reason):
            "\(path): bad header: \(reason); import the extract again"
        case .row(let line, let reason):
            "\(path): line \(line): \(reason)"
        case .count(let expected, let found):
            "\(path): the header says \(expected) crossings but the file holds \(found) (cut short?); import the extract again"
        }
    }
}

extension CrossingsFile {
    /// The most bytes a crossings file may have (about 40 bytes a crossing, kerbs included): a bound for hostile files.
    public static let maximumFileSize = 2 << 30

    /// Reads the file at `path`.
    public static func read(path: String) throws(CrossingsFileError) -> CrossingsFile {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path), let size = attributes[.size] as? Int,
            size > maximumFileSize
        {
            throw CrossingsFileError(path: path, problem: .header("\(size) bytes is more than a crossings file holds"))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw CrossingsFileError(path: path, problem: .unreadable)
        }
        return try parse(data, path: path)
    }

    /// Reads a crossings file's bytes; `path` names it in errors. Line by
    /// line, without a copy of the whole text: the daemon's peak memory is
    /// the file and the index, not the file three times over.
    public static func parse(_ data: Data, path: String) throws(CrossingsFileError) -> CrossingsFile {
        func fail(_ problem: CrossingsFileError.Problem) -> CrossingsFileError { CrossingsFileError(path: path, problem: problem) }
        var lines = LineCursor(data)
        // Compressed or binary files (an .osm.pbf given by mistake) are foreign, not garbled text.
        guard let first = lines.next(), let firstText = String(validating: first, as: UTF8.self), firstText.hasPrefix(magic + " ") else {
            throw fail(.foreign)
        }
        let version = String(firstText.dropFirst(magic.count + 1))
        guard version == String(formatVersion) else { throw fail(.version(version)) }
        let keys = ["source", "source_timestamp", "credit", "licence", "made_with", "count"]
        var values: [String: String] = [:]
        for (offset, key) in keys.enumerated() {
            let number = offset + 2
            guard let bytes = lines.next() else { throw fail(.header("it ends before '# \(key): …' (line \(number))")) }
            guard let line = String(validating: bytes, as: UTF8.self) else { throw fail(.header("line \(number) is not UTF-8 text")) }
            let prefix = "# \(key): "
            guard line.hasPrefix(prefix) else { throw fail(.header("line \(number) should be '# \(key): …'")) }
            values[key] = String(line.dropFirst(prefix.count))
        }
        guard values["credit"] == credit else {
            throw fail(.header("the OpenStreetMap credit is missing or changed (it must read '# credit: \(credit)')"))
        }
        guard let countText = values["count"], let expected = Int(countText), (0...maximumCount).contains(expected) else {
            throw fail(.header("'# count: \(values["count"] ?? "")' is not a number of crossings"))
        }
        let columnsLine = keys.count + 2
        guard let columnBytes = lines.next(), String(decoding: columnBytes, as: UTF8.self) == columns else {
            throw fail(.header("line \(columnsLine) should name the columns: \(columns.replacingOccurrences(of: "\t", with: " ⇥ "))"))
        }
        var crossings: [Crossing] = []
        crossings.reserveCapacity(min(expected, data.count / 20))
        var number = columnsLine
        while let bytes = lines.next() {
            number += 1
            guard let line = String(validating: bytes, as: UTF8.self) else { throw fail(.row(line: number, reason: "not UTF-8 text")) }
            do {
                crossings.append(try parseRow(line[...]))
            } catch {
                throw fail(.row(line: number, reason: error.reason))
            }
            guard crossings.count <= expected else { break }
        }
        guard crossings.count == expected else {
            throw fail(.count(expected: expected, found: crossings.count + lines.remaining))
        }
        return CrossingsFile(
            source: values["source"] ?? "", sourceTimestamp: values["source_timestamp"] ?? "", madeWith: values["made_with"] ?? "",
            crossings: crossings)
    }

    struct RowError: Error { var reason: String }

    static func parseRow(_ line: Substring) throws(RowError) -> Crossing {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 5 else {
            throw RowError(reason: "\(fields.count) tab-separated fields, expected 5 (id, kind, latitude, longitude, kerbs)")
        }
        guard let id = Int64(fields[0]), id > 0 else { throw RowError(reason: "'\(fields[0].prefix(40))' is not an OSM node id") }
        guard let kind = CrossingKind(rawValue: String(fields[1])) else {
            throw RowError(reason: "'\(fields[1].prefix(40))' is not a crossing kind (\(CrossingKind.names))")
        }
        let position = try point(latitude: fields[2], longitude: fields[3])
        var kerbs: [GeoPoint] = []
        if !fields[4].isEmpty {
            for pair in fields[4].split(separator: ";", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw RowError(reason: "kerb '\(pair.prefix(40))' is not LATITUDE,LONGITUDE") }
                kerbs.append(try point(latitude: parts[0], longitude: parts[1]))
            }
            guard kerbs.count <= 2 else { throw RowError(reason: "\(kerbs.count) kerbs; a crossing has at most 2") }
        }
        return Crossing(id: id, kind: kind, position: position, kerbs: kerbs)
    }

    private static func point(latitude: Substring, longitude: Substring) throws(RowError) -> GeoPoint {
        guard let lat = Double(latitude), let lon = Double(longitude) else {
            throw RowError(reason: "'\(latitude.prefix(40))', '\(longitude.prefix(40))' is not a latitude and longitude in degrees")
        }
        let point = GeoPoint(latitude: lat, longitude: lon)
        guard point.isValid else { throw RowError(reason: "\(lat), \(lon) is not on Earth (latitude ±90, longitude ±180)") }
        return point
    }
}

/// The lines of a file's bytes, as slices of it (no copies); a last line
/// without a newline counts, an empty end does not.
struct LineCursor {
    private let data: Data
    private var position: Data.Index

    init(_ data: Data) {
        self.data = data
        position = data.startIndex
    }

    mutating func next() -> Data.SubSequence? {
        guard position < data.endIndex else { return nil }
        let end = data[position...].firstIndex(of: 0x0A) ?? data.endIndex
        var line = data[position..<end]
        if line.last == 0x0D { line = line.dropLast() }
        position = end < data.endIndex ? data.index(after: end) : end
        return line
    }

    /// Lines not yet read (for the count a cut or padded file reports).
    var remaining: Int {
        var copy = self
        var count = 0
        while copy.next() != nil { count += 1 }
        return count
    }
}
