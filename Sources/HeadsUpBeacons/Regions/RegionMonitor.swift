import FoundationEssentials

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
///
/// The work per sighting does not grow with the beacons around: the
/// regions a beacon belongs to come from a hash by identity, beacons that
/// belong to no region are not tracked (only counted) when there are
/// regions, expiry walks a queue in last-seen order, and each region keeps
/// the beacons holding it.
public struct RegionMonitor: Sendable {
    public let regions: [BeaconRegion]
    public let configuration: RegionMonitorConfiguration
    /// Track every beacon (for `beacons scan`), or only those of a region.
    public let tracksEveryBeacon: Bool

    private struct Track: Sendable {
        var status: BeaconStatus
        var filter: any RSSIFilter
        /// The regions (by index) this beacon belongs to.
        var regionIndices: [Int]
        /// Per region (by index): when the entry condition began to hold.
        var pendingSince: [Int: Double] = [:]
        var insideRegions: Set<Int> = []
    }

    private let index: RegionIndex
    private var tracks: [BeaconIdentity: Track] = [:]
    /// Beacons waiting out a dwell.
    private var pending: Set<BeaconIdentity> = []
    /// Per region (by index): the beacons inside it.
    private var holders: [Int: Set<BeaconIdentity>] = [:]
    /// (identity, last seen) in the order sightings came; stale entries are skipped.
    private var expiryQueue = ExpiryQueue()
    public private(set) var insideRegionNames: Set<String> = []
    /// Sightings of beacons that belong to no region, not tracked.
    public private(set) var ignoredSightings = 0

    public init(regions: [BeaconRegion], configuration: RegionMonitorConfiguration = .init(), tracksEveryBeacon: Bool? = nil) {
        self.regions = regions
        self.configuration = configuration
        self.tracksEveryBeacon = tracksEveryBeacon ?? regions.isEmpty
        index = RegionIndex(regions)
    }

    /// Beacons tracked now (seen within the exit timeout).
    public var trackedCount: Int { tracks.count }

    /// Beacons seen within the exit timeout, nearest first.
    public var beacons: [BeaconStatus] {
        tracks.values.map(\.status).sorted { ($0.smoothedRSSI, $1.identity) > ($1.smoothedRSSI, $0.identity) }
    }

    /// Each region that is inside with the beacons holding it, nearest first.
    public var beaconsInside: [(region: BeaconRegion, beacon: BeaconStatus)] {
        holders.keys.sorted().flatMap { regionIndex in
            holders[regionIndex, default: []].compactMap { tracks[$0]?.status }
                .sorted { ($0.smoothedRSSI, $1.identity) > ($1.smoothedRSSI, $0.identity) }
                .map { (regions[regionIndex], $0) }
        }
    }

    public func isInside(_ region: BeaconRegion) -> Bool { insideRegionNames.contains(region.name) }

    public mutating func observe(_ sighting: BeaconSighting) -> [RegionEvent] {
        var events = advance(to: sighting.time)
        var track: Track
        if let known = tracks[sighting.identity] {
            track = known
        } else {
            let regionIndices = index.regions(matching: sighting.identity)
            guard tracksEveryBeacon || !regionIndices.isEmpty else {
                ignoredSightings += 1
                return events
            }
            track = Track(
                status: BeaconStatus(
                    identity: sighting.identity, rssi: sighting.rssi, smoothedRSSI: Double(sighting.rssi),
                    measuredPower: sighting.measuredPower, distance: nil, proximity: .unknown, lastSeen: sighting.time,
                    address: sighting.address),
                filter: configuration.filter.make(), regionIndices: regionIndices)
        }
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
        for regionIndex in track.regionIndices {
            events += update(&track, region: regionIndex, at: sighting.time)
        }
        tracks[sighting.identity] = track
        if track.pendingSince.isEmpty { pending.remove(sighting.identity) } else { pending.insert(sighting.identity) }
        expiryQueue.append(sighting.identity, lastSeen: sighting.time)
        return events
    }

    /// Lets time pass: beacons silent for longer than the exit timeout are
    /// gone, and their regions exited if no other beacon holds them.
    public mutating func advance(to time: Double) -> [RegionEvent] {
        var events: [RegionEvent] = []
        // A beacon that qualified and has not been seen to stop qualifying
        // enters once its dwell has passed, at that moment.
        for identity in pending.sorted() {
            guard var track = tracks[identity] else { continue }
            for (regionIndex, since) in track.pendingSince.sorted(by: { $0.key < $1.key }) where time - since >= configuration.dwell {
                guard time - track.status.lastSeen <= configuration.exitTimeout else { continue }
                events += enter(&track, region: regionIndex, at: since + configuration.dwell)
            }
            tracks[identity] = track
            if track.pendingSince.isEmpty { pending.remove(identity) }
        }
        let expired = expiryQueue.popExpired(before: time - configuration.exitTimeout) { identity, lastSeen in
            tracks[identity]?.status.lastSeen == lastSeen
        }
        for identity in expired.sorted() {
            guard let track = tracks.removeValue(forKey: identity) else { continue }
            pending.remove(identity)
            for regionIndex in track.insideRegions.sorted() {
                holders[regionIndex]?.remove(identity)
                events += leave(region: regionIndex, beacon: identity, at: track.status.lastSeen + configuration.exitTimeout, reason: .timeout)
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
            holders[index]?.remove(track.status.identity)
            return leave(region: index, beacon: track.status.identity, at: time, reason: .weakSignal)
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
        holders[index, default: []].insert(track.status.identity)
        let region = regions[index]
        guard !insideRegionNames.contains(region.name) else { return [] }
        insideRegionNames.insert(region.name)
        return [.entered(region: region, beacon: track.status, time: time)]
    }

    /// The region is left only when no other beacon holds it (the caller has
    /// already taken `beacon` out of its holders).
    private mutating func leave(region index: Int, beacon: BeaconIdentity, at time: Double, reason: RegionEvent.ExitReason) -> [RegionEvent] {
        guard holders[index]?.isEmpty ?? true else { return [] }
        holders[index] = nil
        let region = regions[index]
        guard insideRegionNames.remove(region.name) != nil else { return [] }
        return [.exited(region: region, beacon: beacon, time: time, reason: reason)]
    }
}

/// The regions a beacon identity belongs to, found by hash: iBeacon regions
/// by UUID, Eddystone by namespace; AltBeacon prefixes are a short list.
struct RegionIndex: Sendable {
    private var byUUID: [UUID: [Int]] = [:]
    private var byNamespace: [[UInt8]: [Int]] = [:]
    private var altBeacon: [Int] = []
    private let regions: [BeaconRegion]

    init(_ regions: [BeaconRegion]) {
        self.regions = regions
        for (index, region) in regions.enumerated() {
            switch region.pattern {
            case .iBeacon(let uuid, _, _): byUUID[uuid, default: []].append(index)
            case .eddystone(let namespace, _): byNamespace[namespace, default: []].append(index)
            case .altBeacon: altBeacon.append(index)
            case .mapped: break  // never sighted over the air
            }
        }
    }

    func regions(matching identity: BeaconIdentity) -> [Int] {
        let candidates: [Int]
        switch identity {
        case .iBeacon(let uuid, _, _): candidates = byUUID[uuid] ?? []
        case .eddystone(let namespace, _): candidates = byNamespace[namespace] ?? []
        case .altBeacon: candidates = altBeacon
        case .mapped: candidates = []
        }
        return candidates.filter { regions[$0].matches(identity) }
    }
}

/// Sightings in time order, for finding the beacons silent for too long
/// without walking them all: entries older than a cut-off are popped from
/// the front, and an entry counts only if it is still its beacon's latest.
struct ExpiryQueue: Sendable {
    private var entries: [(identity: BeaconIdentity, lastSeen: Double)] = []
    private var head = 0

    mutating func append(_ identity: BeaconIdentity, lastSeen: Double) { entries.append((identity, lastSeen)) }

    /// The identities whose latest sighting is before `cutoff`; `isLatest`
    /// tells whether an entry is still its beacon's last sighting.
    mutating func popExpired(before cutoff: Double, isLatest: (BeaconIdentity, Double) -> Bool) -> [BeaconIdentity] {
        var expired: [BeaconIdentity] = []
        while head < entries.count, entries[head].lastSeen < cutoff {
            let entry = entries[head]
            head += 1
            if isLatest(entry.identity, entry.lastSeen) { expired.append(entry.identity) }
        }
        // Drop the popped prefix once it is the larger part.
        if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return expired
    }

    var count: Int { entries.count - head }
}
