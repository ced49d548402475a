import HeadsUpData

/// Detection latency as a user feels it: the switch from pocket to hands in
/// a running stream. Every labelled stretch in the data begins at a session
/// start, so the latency there measures filling the first window. Here,
/// steady pocket data of one session is followed by steady hands data of
/// another (or the same), joined on the 50 Hz grid, and the stream runs
/// through the live pipeline; the latency runs from the joint to the
/// distracted state.
public enum SplicedTransitions {
    /// A steady stretch of one label: 50 Hz samples at least the settle
    /// margin away from the session's start and end, gaps and label changes.
    public struct Segment: Sendable {
        public var session: String
        public var label: ActivityLabel
        public var samples: [MotionSample]
    }

    /// One spliced stream: pocket data, then hands data from `joint` on.
    public struct Splice: Sendable {
        public var name: String
        /// Times from 0 on the 50 Hz grid, labelled.
        public var samples: [MotionSample]
        /// Seconds from the stream's start to its first hands sample.
        public var joint: Double
    }

    /// The steady segments of a session's resampled samples.
    public static func segments(
        of session: String, path: String, csv: SessionCSVOptions = .init(), resampling: ResamplingConfiguration = .init(), settle: Double
    ) throws -> [Segment] {
        segments(of: try RecordedSession(path: path, name: session, csv: csv, resampling: resampling), settle: settle, rate: resampling.rate)
    }

    /// The steady segments of a session already read (at `rate` samples a second).
    public static func segments(of session: RecordedSession, settle: Double, rate: Int = ResamplingConfiguration().rate) -> [Segment] {
        var runs: [[MotionSample]] = []
        var lastIndex: Int64?
        for event in session.events {
            guard case .sample(let sample, let index) = event, sample.label != nil else {
                lastIndex = nil  // a segment end: the next sample starts a new run
                continue
            }
            if let lastIndex, index == lastIndex + 1, runs.last?.last?.label == sample.label {
                runs[runs.count - 1].append(sample)
            } else {
                runs.append([sample])
            }
            lastIndex = index
        }
        let margin = Int((settle * Double(rate)).rounded(.up))
        return runs.compactMap { run in
            guard run.count > 2 * margin, let label = run[0].label else { return nil }
            return Segment(session: session.name, label: label, samples: Array(run[margin..<(run.count - margin)]))
        }
    }

    /// Every steady pocket segment's last `pocketSeconds` joined to every
    /// steady hands segment's first `handsSeconds`, re-timed from 0.
    public static func splices(
        _ segments: [Segment], pocketSeconds: Double = 30, handsSeconds: Double = 10, rate: Int = ResamplingConfiguration().rate
    ) -> [Splice] {
        let pocket = segments.filter { $0.label == .pocket }
        let hands = segments.filter { $0.label == .hands }
        var result: [Splice] = []
        for p in pocket {
            for h in hands {
                let before = p.samples.suffix(Int(pocketSeconds * Double(rate)))
                let after = h.samples.prefix(Int(handsSeconds * Double(rate)))
                var samples: [MotionSample] = []
                samples.reserveCapacity(before.count + after.count)
                for (index, sample) in (Array(before) + Array(after)).enumerated() {
                    var retimed = sample
                    retimed.time = Double(index) / Double(rate)
                    samples.append(retimed)
                }
                result.append(Splice(name: "\(p.session) → \(h.session)", samples: samples, joint: Double(before.count) / Double(rate)))
            }
        }
        return result
    }
}

/// What the splices showed with one set of decision values.
public struct SpliceFigures: Sendable, Codable, Equatable {
    public var splices: Int
    /// Seconds from the joint to the distracted state, for the detected ones.
    public var latencies: [Double]
    public var medianLatency: Double?
    public var maximumLatency: Double?
    public var missed: Int
    /// Distracted episodes in the pocket part (steady data: each a false alarm).
    public var falseEpisodes: Int

    public init(_ evaluations: [SessionEvaluation]) {
        let hands = evaluations.flatMap { $0.stretches.filter { $0.label == 1 } }
        let latencies = hands.compactMap(\.detectionLatency).sorted()
        splices = evaluations.count
        self.latencies = latencies
        medianLatency = latencies.isEmpty ? nil : Self.median(latencies)
        maximumLatency = latencies.last
        missed = hands.count - latencies.count
        falseEpisodes = evaluations.flatMap(\.stretches).map(\.falseEpisodes).reduce(0, +)
    }

    /// Figures of splices run through different models (one per fold), together.
    public static func merged(_ parts: [SpliceFigures]) -> SpliceFigures {
        var result = SpliceFigures([])
        result.splices = parts.map(\.splices).reduce(0, +)
        result.latencies = parts.flatMap(\.latencies).sorted()
        result.medianLatency = result.latencies.isEmpty ? nil : median(result.latencies)
        result.maximumLatency = result.latencies.last
        result.missed = parts.map(\.missed).reduce(0, +)
        result.falseEpisodes = parts.map(\.falseEpisodes).reduce(0, +)
        return result
    }

    static func median(_ sorted: [Double]) -> Double {
        sorted.count.isMultiple(of: 2) ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
    }
}
