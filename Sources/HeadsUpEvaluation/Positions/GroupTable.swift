/// One phone's or one pose's figures: how many of its steady hands windows
/// are found and how many of its other steady windows are called
/// distracted (raw scores against the card's threshold, as the window
/// metrics), its false episodes per steady hour and its hands' median
/// detection latency (the smoothed decision state, as live warnings).
public struct GroupFigures: Sendable, Codable, Equatable {
    public var group: String
    public var sessions: Int
    public var steadyHandsWindows: Int
    /// Steady hands windows found / steadyHandsWindows; nil without any.
    public var handsFound: Double?
    public var steadyOtherWindows: Int
    /// Steady not-distracted windows called distracted / steadyOtherWindows; nil without any.
    public var otherCalledDistracted: Double?
    public var steadyFalseEpisodesPerHour: Double?
    public var medianLatency: Double?
}

/// The figures of each phone, or of each pose (SessionTraits), for one
/// report: nil when no session names one, so reports of data sets that do
/// not say stay as they were.
public struct GroupTable: Sendable, Codable, Equatable {
    /// What the groups are: "phone" or "pose".
    public var by: String
    /// By name; sessions that name none are left out.
    public var groups: [GroupFigures]

    public init?(_ evaluations: [SessionEvaluation], threshold: Double, by: String, key: (SessionEvaluation) -> String?) {
        var members: [String: [SessionEvaluation]] = [:]
        for session in evaluations { if let name = key(session) { members[name, default: []].append(session) } }
        guard !members.isEmpty else { return nil }
        self.by = by
        groups = members.keys.sorted().map { name in
            let sessions = members[name] ?? []
            let steady = sessions.flatMap(\.windows).filter(\.steady)
            let hands = steady.filter { $0.label == 1 }
            let other = steady.filter { $0.label != 1 }
            func share(_ windows: [SessionEvaluation.Window]) -> Double? {
                windows.isEmpty ? nil : Double(windows.filter { $0.score >= threshold }.count) / Double(windows.count)
            }
            let events = EvaluationReport.events(sessions.flatMap(\.stretches))
            return GroupFigures(
                group: name, sessions: sessions.count, steadyHandsWindows: hands.count, handsFound: share(hands),
                steadyOtherWindows: other.count, otherCalledDistracted: share(other),
                steadyFalseEpisodesPerHour: events.steadyFalseEpisodesPerHour, medianLatency: events.medianLatency)
        }
    }

    /// The table for a terminal: what `evaluate` prints after the positions when sessions name phones or poses.
    public func text(threshold: Double) -> String {
        let f = EvaluationReport.format
        func percent(_ value: Double?) -> String { value.map { String(format: "%.1f %%", $0 * 100) } ?? "-" }
        var table = TextTable(
            header: [
                by, "sessions", "steady hands windows", "hands found", "other steady windows", "called distracted", "false ep. / h",
                "median latency s",
            ],
            rightAligned: Set(1...7))
        for g in groups {
            table.rows.append([
                g.group, "\(g.sessions)", "\(g.steadyHandsWindows)", percent(g.handsFound), "\(g.steadyOtherWindows)",
                percent(g.otherCalledDistracted), f(g.steadyFalseEpisodesPerHour, 1), f(g.medianLatency, 2),
            ])
        }
        return "\n\nby \(by) (steady windows; threshold \(f(threshold, 2))):\n" + table.renderedForTerminal()
    }
}
