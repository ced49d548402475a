import Foundation
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpRuntime
import Logging
import Testing

/// A screen that says `state(now)`; counts its starts and stops.
final class ScriptedScreen: ScreenSource {
    let time: ManualTime
    let state: (Double) -> ScreenState
    var started = 0, stopped = 0

    init(time: ManualTime, state: @escaping (Double) -> ScreenState) {
        self.time = time
        self.state = state
    }

    func start() -> [String] {
        started += 1
        return ["the session bus (DBUS_SESSION_BUS_ADDRESS): scripted"]
    }
    func poll() -> ScreenState { state(time.monotonic.now()) }
    var sourceAnswers: [(source: String, state: ScreenState?)] { [("scripted", poll()), ("absent", nil)] }
    var readinessDescriptors: [Int32] { [] }
    func stop() { stopped += 1 }
}

@Suite("LiveSession: the screen gate, with synthetic time")
struct LiveSessionScreenTests {
    func run(gate: String, screen: @escaping (Double) -> ScreenState, steps: Int = 120) throws -> (
        events: [PipelineEvent], sink: RecordingSink, session: LiveSession, screen: ScriptedScreen
    ) {
        let time = ManualTime()
        let sink = RecordingSink()
        var layers = LayeredSettings()
        try layers.set("beacons.regions", .list(["crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D"]))
        try layers.set("beacons.dwell", .number(0))
        try layers.set("warning.only_while_screen_on", .string(gate))
        let configuration = try layers.resolved().pipelineConfiguration()
        let source = ScriptedScreen(time: time, state: screen)
        let parts = LiveSession.Parts(
            motion: ScriptedMotion(time: time), beacons: ScriptedBeacons(time: time, from: 6),
            dispatcher: NotificationDispatcher(sinks: [sink], logger: Logger(label: "test")), service: nil, clock: time.monotonic, screen: source)
        let session = LiveSession(scorer: ConstantScorer(value: 0.95), configuration: configuration, parts: parts, logger: Logger(label: "test"))
        try session.start()
        var events: [PipelineEvent] = []
        for _ in 0..<steps { events += session.step() }
        return (events, sink, session, source)
    }

    func warnings(_ events: [PipelineEvent]) -> Int { events.filter { if case .warning = $0 { true } else { false } }.count }

    @Test func aBlankedScreenHoldsTheWarningBackAndAScreenOnLetsItThrough() throws {
        let blank = try run(gate: "auto", screen: { _ in .off })
        blank.session.stop()
        #expect(warnings(blank.events) == 0)
        #expect(blank.events.contains { if case .decision(let d) = $0 { d.outcome == .screenOff } else { false } })
        #expect(blank.sink.delivered.withLock { $0.isEmpty })
        #expect(blank.screen.started == 1 && blank.screen.stopped == 1)

        let on = try run(gate: "true", screen: { _ in .on })
        on.session.stop()
        #expect(warnings(on.events) == 1)
        #expect(on.session.status.screen == "on")
        #expect(on.session.status.screenSources == ["scripted": "on", "absent": "no answer"])
    }

    /// Blanking after the warning ends its buzz: the sinks are told, as
    /// when the user dismisses it.
    @Test func blankingAfterTheWarningAcknowledgesIt() throws {
        let result = try run(gate: "auto", screen: { $0 < 10 ? .on : .locked })
        result.session.stop()
        #expect(warnings(result.events) == 1)
        let changes = result.events.compactMap { if case .screen(let c) = $0 { c } else { nil } }
        #expect(changes.map(\.to) == [.on, .locked])
        #expect(changes.last?.endsWarnings == true)
        #expect(result.sink.acknowledged.withLock { $0 } == 1)
    }

    @Test func theGateTurnedOffWarnsOnMotionAlone() throws {
        let result = try run(gate: "false", screen: { _ in .off })
        result.session.stop()
        #expect(warnings(result.events) == 1)
        #expect(result.sink.acknowledged.withLock { $0 } == 0)
    }
}
