import ArgumentParser
import Foundation
import HeadsUpCrossings

/// `headsup crossings near LAT LON`: what the daemon would see around a point.
struct CrossingsNearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "near", abstract: "List the crossings around a point, nearest first.")

    @Argument(help: "Latitude, degrees (WGS84).")
    var latitude: Double

    @Argument(help: "Longitude, degrees.")
    var longitude: Double

    @Option(help: "Metres around the point (0–50000).")
    var radius: Double = 100

    @Option(help: "The crossings file.")
    var file: String

    @Option(help: "Kinds to list: all, or a comma-separated list of \(CrossingKind.names).")
    var kinds = "all"

    func run() throws {
        let point = GeoPoint(latitude: latitude, longitude: longitude)
        guard point.isValid else { throw CommandError("\(latitude), \(longitude) is not on Earth: latitude −90…90, longitude −180…180") }
        guard radius.isFinite, (0...50_000).contains(radius) else { throw CommandError("--radius: \(radius) is not 0–50000 metres") }
        let wanted: Set<CrossingKind>
        do { wanted = try CrossingKind.parseList(kinds) } catch { throw CommandError("--kinds: \(error)") }
        let crossingsFile: CrossingsFile
        do { crossingsFile = try CrossingsFile.read(path: file) } catch { throw CommandError("\(error)") }
        let found = CrossingGrid(crossingsFile.crossings).near(point, radius: radius, kinds: wanted)
        for (crossing, distance) in found {
            let kerbs = crossing.kerbs.isEmpty ? "" : "\tkerbs " + crossing.kerbs.map { "\($0.latitude),\($0.longitude)" }.joined(separator: " ")
            print(
                String(format: "%6.1f m\t", distance)
                    + "\(crossing.regionName)\t\(crossing.kind.rawValue)\t\(crossing.position.latitude),\(crossing.position.longitude)\(kerbs)")
        }
        print("\(found.count) crossings within \(radius) m; map data \(CrossingsFile.credit)")
    }
}
