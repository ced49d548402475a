import Foundation
import HeadsUpCrossings

/// `headsup crossings import` as a library call: an OSM extract in, a
/// crossings file out. osmium (Debian's `osmium-tool`) does the OSM side,
/// so the daemon and this module hold no PBF parser:
///
///     osmium tags-filter EXTRACT n/highway=crossing n/railway=crossing,level_crossing w/footway=crossing
///     osmium add-locations-to-ways … -f opl
///
/// and ``OPLCrossingsBuilder`` reads the text. The extract's timestamp
/// comes from its header (`osmium fileinfo`), else the newest edit in it.
public struct CrossingsImport: Sendable {
    /// The extract formats osmium reads by name.
    public static let extensions = [".osm.pbf", ".osm", ".osm.gz", ".osm.bz2"]
    /// What osmium keeps: the crossing nodes and the crossing ways (with their nodes, for the kerbs).
    public static let filters = ["n/highway=crossing", "n/railway=crossing,level_crossing", "w/footway=crossing"]

    /// What an import did, for the summary line and the tests.
    public struct Summary: Sendable {
        public var file: CrossingsFile
        public var counters: OPLCrossingsBuilder.Counters
        public var byKind: [CrossingKind: Int]
    }

    public var osmium: String
    public init(osmium: String = "osmium") { self.osmium = osmium }

    /// Imports `extract` and writes the crossings file to `output`.
    public func run(extract: String, output: String) throws(CrossingsImportError) -> Summary {
        let summary = try read(extract: extract)
        do {
            try Data(summary.file.text().utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw CrossingsImportError("\(output): cannot be written (\(error.localizedDescription)); check the folder exists and is writable")
        }
        return summary
    }

    /// Imports `extract` without writing anything.
    public func read(extract: String) throws(CrossingsImportError) -> Summary {
        guard let format = Self.extensions.first(where: { extract.lowercased().hasSuffix($0) }) else {
            throw CrossingsImportError(
                "\(extract): not an OSM extract by its name; give a \(Self.extensions.joined(separator: ", ")) file (Geofabrik's .osm.pbf, for instance)"
            )
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: extract, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: extract)
        else {
            throw CrossingsImportError("\(extract): no such file, or not readable")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("headsup-crossings-\(UUID().uuidString)")
        do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
            throw CrossingsImportError("cannot make a temporary folder in \(folder.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let header = try run(["fileinfo", "--no-progress", "-j", extract], extract: extract)
        let filtered = folder.appendingPathComponent("filtered.osm.pbf").path
        let located = folder.appendingPathComponent("located.opl").path
        _ = try run(["tags-filter", "--no-progress", extract] + Self.filters + ["-o", filtered], extract: extract)
        _ = try run(["add-locations-to-ways", "--no-progress", filtered, "-f", "opl", "-o", located], extract: extract)
        guard let opl = FileManager.default.contents(atPath: located) else {
            throw CrossingsImportError("\(extract): osmium wrote no output to \(located)")
        }
        var builder = OPLCrossingsBuilder()
        var number = 0
        for line in String(decoding: opl, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            do { try builder.add(line: line, lineNumber: number) } catch { throw CrossingsImportError("\(extract): \(error)") }
        }
        let crossings = builder.finish()
        let name = URL(fileURLWithPath: extract).lastPathComponent
        let timestamp = Self.headerTimestamp(header) ?? builder.newestTimestamp.map { "\($0) (newest edit in the extract)" } ?? "unknown"
        let file = CrossingsFile(
            source: name, sourceTimestamp: timestamp,
            madeWith:
                "headsup crossings import \(name) (\(format); osmium tags-filter \(Self.filters.joined(separator: " ")); add-locations-to-ways)",
            crossings: crossings)
        return Summary(file: file, counters: builder.counters, byKind: Dictionary(grouping: crossings, by: \.kind).mapValues(\.count))
    }

    /// The extract's own timestamp: `timestamp` or `osmosis_replication_timestamp` in its header.
    static func headerTimestamp(_ json: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let header = object["header"] as? [String: Any], let options = header["option"] as? [String: Any]
        else { return nil }
        for key in ["timestamp", "osmosis_replication_timestamp"] {
            if let value = options[key] as? String, !value.isEmpty { return value }
        }
        return nil
    }

    /// Runs osmium; its standard output, or an error with its message.
    private func run(_ arguments: [String], extract: String) throws(CrossingsImportError) -> Data {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [osmium] + arguments
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw CrossingsImportError("cannot run osmium (\(error.localizedDescription)); install it: sudo apt install osmium-tool")
        }
        // Both pipes are drained before waiting: osmium must never block on a full pipe.
        let errorData = ErrorCollector(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = errorData.finish()
        guard process.terminationStatus == 0 else {
            if process.terminationStatus == 127 {
                throw CrossingsImportError("osmium is not installed; install it: sudo apt install osmium-tool")
            }
            let reason = message.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw CrossingsImportError("\(extract): osmium \(arguments[0]) failed: \(reason) (is it a valid OSM extract?)")
        }
        return data
    }
}

/// Reads a pipe on its own thread until it closes.
private final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.start()
    }

    func finish() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// An import that failed; the message names the file and what to do.
public struct CrossingsImportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
