/// One advertisement from a beacon, as the BlueZ client (or a replay
/// scenario) reports it.
public struct BeaconSighting: Sendable, Equatable {
    public var identity: BeaconIdentity
    public var rssi: Int
    /// Expected RSSI at 1 m from the frame.
    public var measuredPower: Int
    /// Seconds on the caller's clock.
    public var time: Double
    /// For display only; addresses rotate.
    public var address: String?

    public init(identity: BeaconIdentity, rssi: Int, measuredPower: Int, time: Double, address: String? = nil) {
        self.identity = identity
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.time = time
        self.address = address
    }
}

/// What a beacon looks like now: a row of `headsup beacons scan`.
public struct BeaconStatus: Sendable, Equatable {
    public var identity: BeaconIdentity
    public var rssi: Int
    public var smoothedRSSI: Double
    public var measuredPower: Int
    public var distance: Double?
    public var proximity: Proximity
    public var lastSeen: Double
    public var address: String?

    public init(
        identity: BeaconIdentity, rssi: Int, smoothedRSSI: Double, measuredPower: Int, distance: Double?, proximity: Proximity,
        lastSeen: Double, address: String? = nil
    ) {
        self.identity = identity
        self.rssi = rssi
        self.smoothedRSSI = smoothedRSSI
        self.measuredPower = measuredPower
        self.distance = distance
        self.proximity = proximity
        self.lastSeen = lastSeen
        self.address = address
    }
}

/// A change the monitor reports, with its time and the evidence.
public enum RegionEvent: Sendable, Equatable {
    public enum ExitReason: String, Sendable {
        case weakSignal = "signal below the exit threshold"
        case timeout = "not seen for the exit timeout"
    }

    case entered(region: BeaconRegion, beacon: BeaconStatus, time: Double)
    case exited(region: BeaconRegion, beacon: BeaconIdentity, time: Double, reason: ExitReason)
    case proximityChanged(beacon: BeaconStatus, from: Proximity, time: Double)

    public var time: Double {
        switch self {
        case .entered(_, _, let time), .exited(_, _, let time, _), .proximityChanged(_, _, let time): time
        }
    }
}

/// Beacon regions with RSSI smoothing, hysteresis, dwell and exit timeout.
///
/// Pure logic with the clock passed in: feed sightings with ``observe(_:)``
/// and the passage of time with ``advance(to:)``; both return the events
/// they cause. Beacons are keyed by identity, never by address. A region is
/// inside while at least one of its beacons is; it is entered when the
/// first one qualifies and exited when the last one leaves.
public struct RegionMonitor: Sendable {
    public let regions: [BeaconRegion]
    public let configuration: RegionMonitorConfiguration

    private struct Track: Sendable {
        var status: BeaconStatus
        var filter: any RSSIFilter
        /// Per region (by index): when the entry condition began to hold.
        var pendingSince: [Int: Double] = [:]
        var insideRegions: Set<Int> = []
    }

    private var tracks: [BeaconIdentity: Track] = [:]
    public private(set) var insideRegionNames: Set<String> = []

    public init(regions: [BeaconRegion], configuration: RegionMonitorConfiguration = .init()) {
        self.regions = regions
        self.configuration = configuration
    }

    /// Beacons seen within the exit timeout, nearest first.
    public var beacons: [BeaconStatus] {
        tracks.values.map(\.status).sorted { ($0.smoothedRSSI, $1.identity) > ($1.smoothedRSSI, $0.identity) }
    }

    public func isInside(_ region: BeaconRegion) -> Bool { insideRegionNames.contains(region.name) }

    public mutating func observe(_ sighting: BeaconSighting) -> [RegionEvent] {
        var events = advance(to: sighting.time)
        var track =
            tracks[sighting.identity]
            ?? Track(
                status: BeaconStatus(
                    identity: sighting.identity, rssi: sighting.rssi, smoothedRSSI: Double(sighting.rssi),
                    measuredPower: sighting.measuredPower, distance: nil, proximity: .unknown, lastSeen: sighting.time,
                    address: sighting.address),
                filter: configuration.filter.make())
        track.filter.add(Double(sighting.rssi), at: sighting.time)
        let smoothed = track.filter.value(at: sighting.time) ?? Double(sighting.rssi)
        let previousProximity = track.status.proximity
        let distance = configuration.distance.distance(rssi: smoothed, measuredPower: sighting.measuredPower)
        track.status.rssi = sighting.rssi
        track.status.smoothedRSSI = smoothed
        track.status.measuredPower = sighting.measuredPower
        track.status.distance = distance
        track.status.proximity = configuration.distance.proximity(distance: distance)
        track.status.lastSeen = sighting.time
        track.status.address = sighting.address ?? track.status.address
        if track.status.proximity != previousProximity {
            events.append(.proximityChanged(beacon: track.status, from: previousProximity, time: sighting.time))
        }
        for (index, region) in regions.enumerated() where region.matches(sighting.identity) {
            events += update(&track, region: index, at: sighting.time)
        }
        tracks[sighting.identity] = track
        return events
    }

    /// Lets time pass: beacons silent for longer than the exit timeout are
    /// gone, and their regions exited if no other beacon holds them.
    public mutating func advance(to time: Double) -> [RegionEvent] {
        var events: [RegionEvent] = []
        // A beacon that qualified and has not been seen to stop qualifying
        // enters once its dwell has passed, at that moment.
        for identity in tracks.keys.sorted() {
            guard var track = tracks[identity] else { continue }
            for (index, since) in track.pendingSince.sorted(by: { $0.key < $1.key }) where time - since >= configuration.dwell {
                guard time - track.status.lastSeen <= configuration.exitTimeout else { continue }
                events += enter(&track, region: index, at: since + configuration.dwell)
            }
            tracks[identity] = track
        }
        let expired = tracks.values.filter { time - $0.status.lastSeen > configuration.exitTimeout }
            .sorted { $0.status.identity < $1.status.identity }
        for track in expired {
            tracks[track.status.identity] = nil
            for index in track.insideRegions.sorted() {
                events += leave(region: index, beacon: track.status.identity, at: track.status.lastSeen + configuration.exitTimeout, reason: .timeout)
            }
        }
        return events
    }

    private mutating func update(_ track: inout Track, region index: Int, at time: Double) -> [RegionEvent] {
        let qualifies: Bool
        let disqualifies: Bool
        switch configuration.rule {
        case .rssi(let enter, let exit):
            qualifies = track.status.smoothedRSSI >= enter
            disqualifies = track.status.smoothedRSSI < exit
        case .distance(let enter, let exit):
            let distance = track.status.distance ?? .infinity
            qualifies = distance <= enter
            disqualifies = distance > exit
        }
        if track.insideRegions.contains(index) {
            guard disqualifies else { return [] }
            track.insideRegions.remove(index)
            return leave(region: index, beacon: track.status.identity, at: time, reason: .weakSignal, excluding: track.status.identity)
        }
        guard qualifies else {
            track.pendingSince[index] = nil
            return []
        }
        let since = track.pendingSince[index] ?? time
        track.pendingSince[index] = since
        guard time - since >= configuration.dwell else { return [] }
        return enter(&track, region: index, at: time)
    }

    private mutating func enter(_ track: inout Track, region index: Int, at time: Double) -> [RegionEvent] {
        track.pendingSince[index] = nil
        track.insideRegions.insert(index)
        let region = regions[index]
        guard !insideRegionNames.contains(region.name) else { return [] }
        insideRegionNames.insert(region.name)
        return [.entered(region: region, beacon: track.status, time: time)]
    }

    /// The region is left only when no other tracked beacon holds it.
    private mutating func leave(
        region index: Int, beacon: BeaconIdentity, at time: Double, reason: RegionEvent.ExitReason, excluding: BeaconIdentity? = nil
    ) -> [RegionEvent] {
        let stillHeld = tracks.values.contains { $0.status.identity != beacon && $0.insideRegions.contains(index) }
        guard !stillHeld else { return [] }
        let region = regions[index]
        guard insideRegionNames.remove(region.name) != nil else { return [] }
        return [.exited(region: region, beacon: beacon, time: time, reason: reason)]
    }
}
