/// Per carry position: how often its steady windows are called distracted
/// and how many false episodes it starts per steady hour; for the hands, the
/// steady recall and the detection latency. The window call is the raw score
/// against the card's threshold (as the window metrics), the episodes come
/// from the smoothed decision state (as live warnings).
public struct PositionFigures: Sendable, Codable, Equatable {
    public var position: String
    /// True for the hands: the distracted label, where a call is a hit.
    public var distracted: Bool
    /// Sessions with windows of this position.
    public var sessions: Int
    public var windows: Int
    public var steadyWindows: Int
    /// Steady windows whose score reaches the threshold.
    public var steadyCalledDistracted: Int
    /// steadyCalledDistracted / steadyWindows: the false rate of a carry
    /// position, the recall of the hands; nil without steady windows.
    public var steadyShare: Double?
    /// Not-distracted positions: episodes begun inside the steady part.
    public var steadyFalseEpisodes: Int
    public var steadyHours: Double
    public var steadyFalseEpisodesPerHour: Double?
    /// Hands: stretches, detected ones and the median latency from a stretch start.
    public var stretches: Int
    public var detected: Int
    public var medianLatency: Double?
}

/// One threshold's balance: hands recall against the worst carry position's
/// false rate, both over steady windows.
public struct TradeOffPoint: Sendable, Codable, Equatable {
    public var threshold: Double
    public var handsRecall: Double?
    public var worstPosition: String?
    public var worstFalseRate: Double?
}

/// Every position's figures for one report, and the trade-off curve.
public struct PositionTable: Sendable, Codable, Equatable {
    /// The hands first, then the other positions by name.
    public var positions: [PositionFigures]
    public var tradeOff: [TradeOffPoint]

    /// The thresholds of the trade-off curve: 0.05 … 0.95 in steps of 0.05.
    public static let tradeOffThresholds = (1...19).map { Double($0) * 0.05 }

    /// A window's position: the hands for label 1, else its session's
    /// position (or `unspecified`).
    static func position(of window: SessionEvaluation.Window, in session: SessionEvaluation) -> String {
        window.label == 1 ? CarryPosition.hands : (session.position ?? CarryPosition.unspecified)
    }

    /// The table over `evaluations` at `threshold`; nil when no session has
    /// a position (the bundled data set's sessions), so that such reports
    /// stay as they were.
    public init?(_ evaluations: [SessionEvaluation], threshold: Double) {
        guard evaluations.contains(where: { $0.position != nil }) else { return nil }
        var windows: [String: [SessionEvaluation.Window]] = [:]
        var stretches: [String: [SessionEvaluation.Stretch]] = [:]
        var sessions: [String: Set<String>] = [:]
        for session in evaluations {
            for window in session.windows {
                let position = Self.position(of: window, in: session)
                windows[position, default: []].append(window)
                sessions[position, default: []].insert(session.session)
            }
            for stretch in session.stretches {
                let position = stretch.label == 1 ? CarryPosition.hands : (session.position ?? CarryPosition.unspecified)
                stretches[position, default: []].append(stretch)
            }
        }
        let names = windows.keys.sorted { ($0 == CarryPosition.hands ? 0 : 1, $0) < ($1 == CarryPosition.hands ? 0 : 1, $1) }
        positions = names.map { name in
            let all = windows[name] ?? []
            let steady = all.filter(\.steady)
            let called = steady.filter { $0.score >= threshold }.count
            let own = stretches[name] ?? []
            let events = EvaluationReport.events(own)
            return PositionFigures(
                position: name, distracted: name == CarryPosition.hands, sessions: sessions[name]?.count ?? 0, windows: all.count,
                steadyWindows: steady.count, steadyCalledDistracted: called,
                steadyShare: steady.isEmpty ? nil : Double(called) / Double(steady.count),
                steadyFalseEpisodes: events.steadyFalseEpisodes, steadyHours: own.map(\.steadySeconds).reduce(0, +) / 3600,
                steadyFalseEpisodesPerHour: events.steadyFalseEpisodesPerHour, stretches: events.handsStretches, detected: events.detected,
                medianLatency: events.medianLatency)
        }
        tradeOff = Self.tradeOffThresholds.map { t in
            func share(_ list: [SessionEvaluation.Window]) -> Double? {
                let steady = list.filter(\.steady)
                return steady.isEmpty ? nil : Double(steady.filter { $0.score >= t }.count) / Double(steady.count)
            }
            let rates = names.filter { $0 != CarryPosition.hands }.compactMap { name in share(windows[name] ?? []).map { (name, $0) } }
            let worst = rates.max { $0.1 < $1.1 }
            return TradeOffPoint(
                threshold: t, handsRecall: share(windows[CarryPosition.hands] ?? []), worstPosition: worst?.0, worstFalseRate: worst?.1)
        }
    }
}
