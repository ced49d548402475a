import HeadsUpBeacons
import HeadsUpData
import Testing

@testable import HeadsUpPipeline

@Suite("Screen gate")
struct ScreenGateTests {
    @Test func anySourceSayingNotInUseWins() {
        #expect(ScreenState.combining([]) == .unknown)
        #expect(ScreenState.combining([.unknown, .unknown]) == .unknown)
        #expect(ScreenState.combining([.on, .unknown]) == .on)
        #expect(ScreenState.combining([.on, .idle]) == .idle)
        #expect(ScreenState.combining([.idle, .locked, .on]) == .locked)
        #expect(ScreenState.combining([.locked, .off, .idle]) == .off)
        #expect(ScreenState.on.inUse == true)
        #expect(ScreenState.unknown.inUse == nil)
        #expect([ScreenState.off, .locked, .idle].allSatisfy { $0.inUse == false })
    }

    @Test func theGateHoldsBackOnlyAKnownScreenOutOfUse() {
        for gate in [ScreenGate.auto, .on] {
            #expect(gate.holdsBack(.off) && gate.holdsBack(.locked) && gate.holdsBack(.idle))
            #expect(!gate.holdsBack(.on) && !gate.holdsBack(.unknown), "unknown: the motion model alone")
        }
        #expect(ScreenState.allCases.allSatisfy { !ScreenGate.off.holdsBack($0) })
        #expect(ScreenGate(rawValue: "true") == .on && ScreenGate(rawValue: "false") == .off)
    }

    func pipeline(gate: ScreenGate) -> HeadsUpPipeline {
        HeadsUpPipeline(
            scorer: SignScorer(),
            configuration: .init(
                distraction: .init(timeConstant: 0.5, enterThreshold: 0.5, exitThreshold: 0.35, minimumDuration: 0.5),
                warning: .init(onlyWhileScreenOn: gate), regions: [crossing],
                monitor: .init(rule: .rssi(enter: -70, exit: -80), dwell: 0.5, exitTimeout: 3, filter: .arma(coefficient: 1))))
    }

    /// A distracted walk into the region, second by second, with the screen
    /// told at `screenAt` (seconds from the start; data time).
    func walk(_ pipeline: HeadsUpPipeline, screenAt changes: [Int: ScreenState]) -> [PipelineEvent] {
        var all: [PipelineEvent] = []
        for second in 0..<20 {
            let t = 1000.0 + Double(second)
            if let state = changes[second] { all += pipeline.process(screen: state, at: t) }
            all += pipeline.process(samples: grid(from: t, seconds: 1, value: 1))
            var sightings: [BeaconSighting] = []
            if (8..<14).contains(second) {
                for tenth in 0..<10 {
                    sightings.append(
                        BeaconSighting(identity: beacon, rssi: second < 10 ? -75 : -60, measuredPower: -59, time: t + Double(tenth) / 10))
                }
            }
            all += pipeline.process(sightings: sightings, at: t + 0.99)
        }
        return all
    }

    func warnings(_ events: [PipelineEvent]) -> [Warning] { events.compactMap { if case .warning(let w) = $0 { w } else { nil } } }
    func outcomes(_ events: [PipelineEvent]) -> [WarningDecision.Outcome] {
        events.compactMap { if case .decision(let d) = $0 { d.outcome } else { nil } }
    }
    func screenChanges(_ events: [PipelineEvent]) -> [ScreenChange] {
        events.compactMap { if case .screen(let c) = $0 { c } else { nil } }
    }

    @Test func aBlankedScreenHoldsTheWarningBackAndSaysWhy() {
        for blank in [ScreenState.off, .locked, .idle] {
            let events = walk(pipeline(gate: .auto), screenAt: [0: blank])
            #expect(warnings(events).isEmpty, "\(blank)")
            #expect(outcomes(events).first == .screenOff, "\(blank)")
            #expect(WarningDecision.Outcome.screenOff.rawValue == "screen-off")
        }
        #expect(warnings(walk(pipeline(gate: .on), screenAt: [0: .off])).isEmpty)
    }

    @Test func aScreenOnOrUnknownOrAGateTurnedOffWarnsOnMotion() {
        #expect(warnings(walk(pipeline(gate: .auto), screenAt: [0: .on])).count == 1)
        #expect(warnings(walk(pipeline(gate: .auto), screenAt: [:])).count == 1, "no source: the motion model alone")
        #expect(warnings(walk(pipeline(gate: .off), screenAt: [0: .off])).count == 1, "the gate can be turned off")
    }

    @Test func aScreenThatComesOnAtTheCrossingWarnsThen() {
        let events = walk(pipeline(gate: .auto), screenAt: [0: .off, 12: .on])
        let warned = warnings(events)
        #expect(warned.count == 1)
        #expect(warned.first.map { $0.time >= 1012 } == true)
        #expect(outcomes(events).first == .screenOff)
    }

    @Test func blankingAfterAWarningEndsItAndOnlyThen() throws {
        let p = pipeline(gate: .auto)
        let events = walk(p, screenAt: [0: .on, 16: .off, 17: .locked, 18: .on])
        #expect(warnings(events).count == 1)
        let changes = screenChanges(events)
        #expect(changes.map(\.to) == [.on, .off, .locked, .on])
        #expect(changes.map(\.from) == [.unknown, .on, .off, .locked])
        #expect(changes.map(\.endsWarnings) == [false, true, false, false], "only the change out of use ends a warning")
        #expect(p.screen == .on)
        #expect(p.process(screen: .on, at: 2000).isEmpty, "the same state again is no change")

        let before = screenChanges(walk(pipeline(gate: .auto), screenAt: [0: .on, 3: .off]))
        #expect(before.map(\.endsWarnings) == [false, false], "no warning yet: nothing to end")
        let ungated = screenChanges(walk(pipeline(gate: .off), screenAt: [0: .on, 16: .off]))
        #expect(ungated.map(\.endsWarnings) == [false, false], "with the gate off the screen ends nothing")
    }

    /// The warnable state is the tracker's, held back while the screen is out
    /// of use: it changes with either, at the time of the change.
    @Test func theWarnableStateFollowsTheTrackerAndTheScreen() throws {
        func warnable(_ events: [PipelineEvent]) -> [(Double, Bool)] {
            events.compactMap {
                switch $0 {
                case .warnable(.becameDistracted(let t)): (t, true)
                case .warnable(.becameAttentive(let t)): (t, false)
                default: nil
                }
            }
        }
        let open = walk(pipeline(gate: .auto), screenAt: [:])
        let distractedAt = try #require(open.compactMap { if case .distraction(.becameDistracted(let t)) = $0 { t } else { nil } }.first)
        #expect(warnable(open).map(\.1) == [true])
        #expect(warnable(open).first?.0 == distractedAt, "no screen source: the tracker's own change")

        let gated = walk(pipeline(gate: .auto), screenAt: [0: .off, 12: .on, 15: .locked])
        #expect(warnable(gated).map(\.0) == [1012, 1015], "on when the screen comes on, off when it locks")
        #expect(warnable(gated).map(\.1) == [true, false])
        let scored = gated.compactMap { if case .scored(let w) = $0 { w } else { nil } }
        #expect(scored.contains { $0.distracted && !$0.warnable }, "distracted while the screen was off")
        #expect(scored.allSatisfy { $0.warnable == ($0.distracted && $0.time >= 1012 && $0.time < 1015) })
        #expect(warnable(walk(pipeline(gate: .off), screenAt: [0: .off])).map(\.1) == [true], "the gate turned off holds nothing back")
    }

    /// A scored window carries its samples' majority label, and none for live data.
    @Test func aScoredWindowCarriesItsLabel() {
        let p = pipeline(gate: .auto)
        let labelled = grid(from: 1000, seconds: 1, value: 1).map { event -> ResampledEvent in
            guard case .sample(var s, let index) = event else { return event }
            s.label = index % 50 < 30 ? .hands : .pocket
            return .sample(s, gridIndex: index)
        }
        let windows = p.process(samples: labelled).compactMap { if case .scored(let w) = $0 { w } else { nil } }
        #expect(windows.map(\.label) == [.hands])
        let live = pipeline(gate: .auto).process(samples: grid(from: 1000, seconds: 1, value: 1))
        #expect(live.compactMap { if case .scored(let w) = $0 { w.label } else { nil } }.isEmpty)
        #expect(live.contains { if case .scored = $0 { true } else { false } })
    }
}
