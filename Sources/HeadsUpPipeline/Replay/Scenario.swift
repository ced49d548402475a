import Foundation

/// A recorded walk to play through the pipeline: a session CSV and the
/// beacon sightings recorded with it. On disk it is a scenario folder
/// (`session.csv` beside `beacons.csv`, as in datasets/scenarios/), or a
/// session CSV with an optional beacon file. `replay` and `live --simulate`
/// open one through here; the runtime adds the bundled scenarios' names.
public struct Scenario: Sendable {
    public static let sessionFile = "session.csv"
    public static let beaconsFile = "beacons.csv"
    /// A folder's optional screen track (``ScreenTrack``).
    public static let screenFile = "screen.csv"
    /// A folder's optional location track (``LocationTrack``).
    public static let locationsFile = "locations.csv"
    /// A folder's optional crossings file (made by `headsup crossings import`).
    public static let crossingsFile = "crossings.tsv"

    /// The session CSV.
    public var session: String
    /// The beacon file, if there is one.
    public var beaconsPath: String?
    /// Its regions and sightings (none without a beacon file).
    public var beacons: BeaconScenario
    /// Whether it came from a scenario folder.
    public var isFolder: Bool
    /// The screen track file, if there is one.
    public var screenPath: String?
    /// The screen's states over the walk (none without a track).
    public var screen = ScreenTrack()
    /// The location track file, if there is one.
    public var locationsPath: String?
    /// The phone's positions over the walk (none without a track).
    public var locations = LocationTrack()
    /// The folder's crossings file, if it has one (the replay reads it as `crossings.file`).
    public var crossingsPath: String?

    /// Opens `path`: a scenario folder, or a session CSV; `beacons` (a beacon
    /// file) and `screen` (a screen track) override the folder's own
    /// beacons.csv and screen.csv (a folder may have no screen track).
    public static func open(
        _ path: String, beacons: String? = nil, screen: String? = nil, locations: String? = nil
    ) throws(ScenarioError) -> Scenario {
        var scenario = try openScreen(path, beacons: beacons, screen: screen)
        let folderCrossings = "\(path)/\(crossingsFile)"
        if scenario.isFolder, FileManager.default.fileExists(atPath: folderCrossings) { scenario.crossingsPath = folderCrossings }
        let folderTrack = "\(path)/\(locationsFile)"
        guard let trackPath = locations ?? (scenario.isFolder && FileManager.default.fileExists(atPath: folderTrack) ? folderTrack : nil) else {
            return scenario
        }
        guard let data = FileManager.default.contents(atPath: trackPath) else {
            throw ScenarioError("\(trackPath): cannot be read (a location track holds \(LocationTrack.header) lines)")
        }
        do {
            scenario.locations = try LocationTrack.parse(String(decoding: data, as: UTF8.self), path: trackPath)
        } catch {
            throw ScenarioError("\(error)")
        }
        scenario.locationsPath = trackPath
        return scenario
    }

    private static func openScreen(_ path: String, beacons: String?, screen: String?) throws(ScenarioError) -> Scenario {
        var scenario = try openSessionAndBeacons(path, beacons: beacons)
        let folderTrack = "\(path)/\(screenFile)"
        guard let trackPath = screen ?? (scenario.isFolder && FileManager.default.fileExists(atPath: folderTrack) ? folderTrack : nil) else {
            return scenario
        }
        guard let data = FileManager.default.contents(atPath: trackPath) else {
            throw ScenarioError("\(trackPath): cannot be read (a screen track holds time,state lines)")
        }
        do {
            scenario.screen = try ScreenTrack.parse(String(decoding: data, as: UTF8.self), path: trackPath)
        } catch {
            throw ScenarioError("\(error)")
        }
        scenario.screenPath = trackPath
        return scenario
    }

    private static func openSessionAndBeacons(_ path: String, beacons: String?) throws(ScenarioError) -> Scenario {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ScenarioError("\(path): no such file or folder; give a session CSV, a scenario folder or a bundled scenario's name")
        }
        let folder = isDirectory.boolValue
        let session = folder ? "\(path)/\(sessionFile)" : path
        if folder, !FileManager.default.fileExists(atPath: session) {
            throw ScenarioError("\(path): not a scenario folder: it has no \(sessionFile) (datasets/scenarios/ shows the layout)")
        }
        // A folder with a location track may have no beacons (a street without any).
        let folderBeacons =
            folder
            && (FileManager.default.fileExists(atPath: "\(path)/\(beaconsFile)")
                || !FileManager.default.fileExists(atPath: "\(path)/\(locationsFile)"))
        let beaconsPath = beacons ?? (folderBeacons ? "\(path)/\(beaconsFile)" : nil)
        guard let beaconsPath else {
            return Scenario(session: session, beaconsPath: nil, beacons: .init(regions: [], sightings: []), isFolder: folder)
        }
        guard let data = FileManager.default.contents(atPath: beaconsPath) else {
            throw ScenarioError(
                "\(beaconsPath): cannot be read" + (beacons == nil ? " (a scenario folder holds \(sessionFile) and \(beaconsFile))" : ""))
        }
        do {
            let parsed = try BeaconScenario.parse(String(decoding: data, as: UTF8.self), path: beaconsPath)
            return Scenario(session: session, beaconsPath: beaconsPath, beacons: parsed, isFolder: folder)
        } catch {
            throw ScenarioError("\(error)")
        }
    }
}

/// A scenario that cannot be opened; the message names the file.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
