import HeadsUpBeacons
import HeadsUpData

/// Timed beacon sightings to replay with a recorded session: what the
/// BlueZ scanner would have reported on the walk.
///
///     # comments and blank lines are ignored
///     region,crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1
///     time,beacon,rssi,power
///     12.0,ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2,-90,-59
///
/// `time` is seconds since the session's first sample; `power` is the
/// frame's measured power at 1 m. `region` lines declare the regions to
/// watch (the same specs as `--region`).
public struct BeaconScenario: Sendable {
    public var regions: [BeaconRegion]
    /// Sightings with times relative to the session start, in time order.
    public var sightings: [BeaconSighting]

    public init(regions: [BeaconRegion], sightings: [BeaconSighting]) {
        self.regions = regions
        self.sightings = sightings.sorted { $0.time < $1.time }
    }

    /// Parses a scenario's text; `path` names it in errors (the caller reads the file).
    public static func parse(_ text: String, path: String) throws -> BeaconScenario {
        var regions: [BeaconRegion] = []
        var sightings: [BeaconSighting] = []
        // Split on scalars: in Swift "\r\n" is one Character, so splitting the String on "\n" keeps Windows lines together.
        // A UTF-8 byte-order mark is dropped.
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let lines = body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingWhitespace
            let number = offset + 1
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("time,") { continue }
            if line.hasPrefix("region,") {
                do {
                    regions.append(try BeaconRegion.parse(String(line.dropFirst("region,".count))))
                } catch {
                    throw BeaconScenarioError(path: path, line: number, message: error.description)
                }
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingWhitespace)
            guard fields.count == 4 else {
                throw BeaconScenarioError(path: path, line: number, message: "expected time,beacon,rssi,power; found \(fields.count) fields")
            }
            guard let time = Double(fields[0]), time.isFinite, time >= 0, time <= ResamplingConfiguration.largestTime else {
                throw BeaconScenarioError(
                    path: path, line: number,
                    message:
                        "time '\(fields[0])' is not a number of seconds from the session's start, 0 to 1e\(Int(ResamplingConfiguration.largestTime).description.count - 1)"
                )
            }
            guard let identity = BeaconIdentity(parsing: fields[1]) else {
                throw BeaconScenarioError(path: path, line: number, message: "'\(fields[1])' is not a beacon identity (ibeacon:UUID:MAJOR:MINOR, …)")
            }
            guard let rssi = Int(fields[2]), (-127..<0).contains(rssi) else {
                throw BeaconScenarioError(path: path, line: number, message: "rssi '\(fields[2])' must be a negative dBm value")
            }
            guard let power = Int(fields[3]), (-127..<0).contains(power) else {
                throw BeaconScenarioError(path: path, line: number, message: "power '\(fields[3])' must be a negative dBm value")
            }
            sightings.append(BeaconSighting(identity: identity, rssi: rssi, measuredPower: power, time: time))
        }
        guard !regions.isEmpty else { throw BeaconScenarioError(path: path, line: 0, message: "no region line (region,SPEC)") }
        return BeaconScenario(regions: regions, sightings: sightings)
    }
}

public struct BeaconScenarioError: Error, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String
    public var description: String { "\(path):\(line): \(message)" }
}
