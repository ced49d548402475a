extension CrossingKind {
    /// The `crossing_ref` values that mean pedestrian lights (UK usage).
    static let signalRefs: Set<String> = ["pelican", "toucan", "puffin", "pegasus", "tiger"]

    /// The kind of crossing an OSM node's tags describe, or nil if they
    /// describe none (no crossing tag, or `crossing=no`: a place where one
    /// may *not* cross). First match wins:
    ///
    /// 1. `railway=level_crossing` → rail-road; `railway=crossing` → rail-foot
    /// 2. `highway=crossing` with `crossing=no` → none
    /// 3. `crossing=traffic_signals`, `crossing:signals=yes`, or a
    ///    `crossing_ref` of lights (pelican, toucan, puffin, pegasus, tiger) → signals
    /// 4. `crossing=island` or `crossing:island=yes` → island
    /// 5. `crossing=unmarked|informal` or `crossing:markings=no` → unmarked
    /// 6. `crossing=marked|zebra`, `crossing_ref=zebra`, or any other `crossing:markings` → marked
    /// 7. anything else (`crossing=uncontrolled`, or nothing said) → uncontrolled
    ///
    /// docs/crossings.md gives the same rule for users; the import test
    /// checks it against osmium's own tag filters.
    public static func classify(_ tags: [String: String]) -> CrossingKind? {
        switch tags["railway"] {
        case "level_crossing": return .railRoad
        case "crossing": return .railFoot
        default: break
        }
        guard tags["highway"] == "crossing" else { return nil }
        let crossing = tags["crossing"]
        if crossing == "no" { return nil }
        if crossing == "traffic_signals" || tags["crossing:signals"] == "yes" || tags["crossing_ref"].map(signalRefs.contains) == true {
            return .signals
        }
        if crossing == "island" || tags["crossing:island"] == "yes" { return .island }
        let markings = tags["crossing:markings"]
        if crossing == "unmarked" || crossing == "informal" || markings == "no" { return .unmarked }
        if crossing == "marked" || crossing == "zebra" || tags["crossing_ref"] == "zebra" || markings != nil { return .marked }
        return .uncontrolled
    }
}
