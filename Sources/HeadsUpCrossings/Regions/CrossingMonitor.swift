import HeadsUpBeacons

/// Mapped crossings as regions: the location fixes' counterpart of the
/// beacons' ``RegionMonitor``, and it reports the same ``RegionEvent``s
/// (region `osm:node/ID`, the beacon a ``BeaconIdentity/mapped(place:kind:)``),
/// so the warning policy and the sinks treat a crossing as a beacon region.
///
/// A crossing is entered when a usable fix comes within `radius` plus its
/// accuracy while approaching it (nearer than the last fix, or heading
/// towards it) and the next usable fix is still within: held over two
/// fixes, so one stray fix does not enter. A fix is usable when it is not
/// older than `maximumAge`, not less accurate than `maximumAccuracy` and
/// not faster than walking (its own speed, else the speed from the last
/// usable fix); the others are counted and ignored. A crossing is left
/// beyond `exitRadius` plus the accuracy, or after `exitTimeout` without a
/// usable fix; it cannot be entered again within `cooldown` of its entry.
///
/// Pure logic with the clock passed in: ``observe(_:at:)`` takes a fix and
/// ``advance(to:)`` the passage of time; both return the events they cause.
/// The work per fix is a grid lookup: it does not grow with the file.
public struct CrossingMonitor: Sendable {
    public let grid: CrossingGrid
    public let configuration: CrossingMonitorConfiguration

    /// Fixes by what became of them, for `status` and the replay's summary.
    public struct Counters: Sendable, Equatable {
        public var fixes = 0
        public var used = 0
        public var tooOld = 0
        public var tooInaccurate = 0
        public var tooFast = 0
        public var invalid = 0
        public var entries = 0
        public var suppressedByCooldown = 0
    }

    public private(set) var counters = Counters()
    /// The last usable fix.
    public private(set) var lastFix: LocationFix?
    /// Crossings (by id) whose entry condition held at the last usable fix.
    private var pending: [Int64: Crossing] = [:]
    /// Crossings inside, with the latest distance to them.
    private var inside: [Int64: (crossing: Crossing, distance: Double)] = [:]
    /// When each crossing was last entered, for the cooldown.
    private var lastEntered: [Int64: Double] = [:]

    public init(grid: CrossingGrid, configuration: CrossingMonitorConfiguration = .init()) {
        self.grid = grid
        self.configuration = configuration
    }

    /// The crossings inside now, nearest first, as the region policy reads them.
    public var crossingsInside: [(region: BeaconRegion, beacon: BeaconStatus)] {
        inside.values.sorted { ($0.distance, $0.crossing.id) < ($1.distance, $1.crossing.id) }
            .map { (Self.region(of: $0.crossing), status(of: $0.crossing, distance: $0.distance, at: lastFix?.time ?? 0)) }
    }

    public var insideIDs: Set<Int64> { Set(inside.keys) }

    /// Feeds one fix, handed in at `now` on the same clock.
    public mutating func observe(_ fix: LocationFix, at now: Double) -> [RegionEvent] {
        counters.fixes += 1
        var events = advance(to: now)
        guard fix.position.isValid, fix.time.isFinite, !fix.accuracy.isNaN else {
            counters.invalid += 1
            return events
        }
        guard now - fix.time <= configuration.maximumAge else {
            counters.tooOld += 1
            return events
        }
        let accuracy = max(fix.accuracy, configuration.accuracyFloor)
        guard accuracy <= configuration.maximumAccuracy else {
            counters.tooInaccurate += 1
            return events
        }
        if let lastFix, fix.time <= lastFix.time {
            counters.tooOld += 1  // not newer than what was used: a repeat or out of order
            return events
        }
        guard speed(of: fix).map({ $0 <= configuration.maximumSpeed }) ?? true else {
            counters.tooFast += 1
            // Riding past: nothing pending survives, and the crossings held are left.
            pending.removeAll()
            events += leaveAll(at: fix.time)
            lastFix = fix
            return events
        }
        counters.used += 1
        let enterReach = configuration.radius + accuracy
        let exitReach = configuration.exitRadius + accuracy
        let nearby = grid.near(fix.position, radius: max(enterReach, exitReach), kinds: configuration.kinds)
        var distances: [Int64: Double] = [:]
        for (crossing, distance) in nearby { distances[crossing.id] = distance }

        // Leave what the fix is beyond.
        for (id, held) in inside.sorted(by: { $0.key < $1.key }) {
            if let distance = distances[id], distance <= exitReach {
                inside[id]?.distance = distance
            } else {
                inside[id] = nil
                events.append(
                    .exited(region: Self.region(of: held.crossing), beacon: Self.identity(of: held.crossing), time: fix.time, reason: .weakSignal))
            }
        }
        // Enter what was pending and still holds; make pending what qualifies now.
        var nextPending: [Int64: Crossing] = [:]
        for (crossing, distance) in nearby where distance <= enterReach && inside[crossing.id] == nil {
            if pending[crossing.id] != nil {
                if let last = lastEntered[crossing.id], fix.time - last < configuration.cooldown {
                    counters.suppressedByCooldown += 1
                    continue
                }
                lastEntered[crossing.id] = fix.time
                inside[crossing.id] = (crossing, distance)
                counters.entries += 1
                events.append(
                    .entered(region: Self.region(of: crossing), beacon: status(of: crossing, distance: distance, at: fix.time), time: fix.time))
            } else if approaches(crossing, distance: distance, fix: fix) {
                nextPending[crossing.id] = crossing
            }
        }
        pending = nextPending
        lastFix = fix
        return events
    }

    /// Lets time pass: after `exitTimeout` without a usable fix, every crossing is left.
    public mutating func advance(to time: Double) -> [RegionEvent] {
        guard let lastFix, time - lastFix.time > configuration.exitTimeout, !(inside.isEmpty && pending.isEmpty) else { return [] }
        pending.removeAll()
        let leftAt = lastFix.time + configuration.exitTimeout
        return inside.sorted { $0.key < $1.key }.map { id, held in
            inside[id] = nil
            return .exited(region: Self.region(of: held.crossing), beacon: Self.identity(of: held.crossing), time: leftAt, reason: .timeout)
        }
    }

    private mutating func leaveAll(at time: Double) -> [RegionEvent] {
        defer { inside.removeAll() }
        return inside.sorted { $0.key < $1.key }.map { _, held in
            .exited(region: Self.region(of: held.crossing), beacon: Self.identity(of: held.crossing), time: time, reason: .weakSignal)
        }
    }

    /// The fix's own speed, else the speed since the last usable fix.
    private func speed(of fix: LocationFix) -> Double? {
        if let speed = fix.speed, speed.isFinite, speed >= 0 { return speed }
        guard let lastFix, fix.time > lastFix.time else { return nil }
        return Geodesy.distance(lastFix.position, fix.position) / (fix.time - lastFix.time)
    }

    /// Nearer than at the last usable fix, or (with no usable fix before)
    /// heading within 90° of the crossing's bearing.
    private func approaches(_ crossing: Crossing, distance: Double, fix: LocationFix) -> Bool {
        if let lastFix { return distance < Geodesy.distance(lastFix.position, crossing.position) }
        guard let heading = fix.heading, heading.isFinite else { return false }
        let (east, north) = Geodesy.offset(of: crossing.position, from: fix.position)
        let bearing = atan2Degrees(east, north)
        var difference = abs(heading - bearing).truncatingRemainder(dividingBy: 360)
        if difference > 180 { difference = 360 - difference }
        return difference < 90
    }

    private func atan2Degrees(_ east: Double, _ north: Double) -> Double {
        Geodesy.bearing(east: east, north: north)
    }

    public static func region(of crossing: Crossing) -> BeaconRegion {
        BeaconRegion(name: crossing.regionName, pattern: .mapped(place: crossing.regionName))
    }

    public static func identity(of crossing: Crossing) -> BeaconIdentity {
        .mapped(place: crossing.regionName, kind: crossing.kind.rawValue)
    }

    /// A crossing as the policy sees a beacon: no radio, so RSSI 0 and the
    /// distance from the fix; `near` while the fix is within the entry
    /// reach and moving, so rechecks inside happen only while walking on.
    private func status(of crossing: Crossing, distance: Double, at time: Double) -> BeaconStatus {
        let accuracy = max(lastFix?.accuracy ?? 0, configuration.accuracyFloor)
        let moving = lastFix.flatMap { $0.speed }.map { $0 >= 0.5 } ?? true
        let proximity: Proximity = distance <= configuration.radius + accuracy && moving ? .near : .far
        return BeaconStatus(
            identity: Self.identity(of: crossing), rssi: 0, smoothedRSSI: 0, measuredPower: 0, distance: distance, proximity: proximity,
            lastSeen: time)
    }
}
