import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpNotify
import HeadsUpTestSupport
import Logging
import Synchronization
import Testing

let sample = NotificationMessage(
    title: "Beware!", body: "You are crossing the road!", time: 1234.5,
    fields: [("region", "crossing"), ("beacon", "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2"), ("rssi", "-61")])

/// A sink that fails a set number of times first.
final class FlakySink: NotificationSink, @unchecked Sendable {
    let name = "flaky"
    var failuresLeft: Int
    var delivered: [NotificationMessage] = []
    init(failures: Int) { failuresLeft = failures }
    func deliver(_ notification: NotificationMessage) throws {
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw SinkError(sink: name, message: "simulated failure")
        }
        delivered.append(notification)
    }
}

@Suite("Notification sinks", .serialized)
struct SinkTests {
    @Test func theDispatcherRetriesWithinBoundsAndGoesOn() {
        let recovering = FlakySink(failures: 1)
        let broken = FlakySink(failures: 100)
        let dispatcher = NotificationDispatcher(sinks: [broken, recovering], retries: 2, backoff: 0.01, logger: Logger(label: "test"))
        dispatcher.enqueue(sample)
        dispatcher.enqueue(sample)
        dispatcher.finish()
        #expect(recovering.delivered.count == 2)
        #expect(broken.delivered.isEmpty)
        let counters = dispatcher.counters
        #expect(counters.sent == 2)
        #expect(counters.failed == 2)
        #expect(counters.retried == 1 + 2 * 2)
    }

    /// A sink that mirrors state and holds up its first delivery until released.
    final class SlowStateSink: NotificationSink, @unchecked Sendable {
        let name = "slow"
        let mirrorsState = true
        let release = NSCondition()
        var released = false
        var delivered: [String] = []
        var updates = 0
        func deliver(_ notification: NotificationMessage) throws {
            release.lock()
            while !released { release.wait() }
            delivered.append(notification.body)
            release.unlock()
        }
        func update(_ state: StateUpdate) { updates += 1 }
    }

    @Test func stateUpdatesNeverPushAWarningOutOfAFullQueue() {
        let sink = SlowStateSink()
        let dispatcher = NotificationDispatcher(sinks: [sink], logger: Logger(label: "test"))
        var first = sample
        first.body = "first"
        dispatcher.enqueue(first)
        usleep(100_000)  // the first is being delivered, held by the sink
        var second = sample
        second.body = "second"
        dispatcher.enqueue(second)
        for index in 0..<(dispatcher.capacity * 2) {
            dispatcher.update(.scored(smoothedScore: 0.5, distracted: true, walking: true, time: Double(index)))
        }
        sink.release.lock()
        sink.released = true
        sink.release.broadcast()
        sink.release.unlock()
        dispatcher.finish()
        #expect(sink.delivered == ["first", "second"])
        #expect(dispatcher.counters.droppedFromQueue == 0)
        #expect(sink.updates == dispatcher.capacity - 1, "the newest states, as many as fit beside the warning")
        #expect(dispatcher.counters.stateUpdates == dispatcher.capacity * 2)
    }

    @Test func withoutASinkThatMirrorsStateUpdatesCostNothing() {
        let sink = FlakySink(failures: 0)
        let dispatcher = NotificationDispatcher(sinks: [sink], logger: Logger(label: "test"))
        for index in 0..<1000 { dispatcher.update(.distracted(index % 2 == 0, time: Double(index))) }
        dispatcher.enqueue(sample)
        dispatcher.finish()
        #expect(sink.delivered.count == 1)
        #expect(dispatcher.counters.stateUpdates == 0, "nothing queued for a sink that ignores state")
    }

    @Test func aCommandGetsTheDetailsInItsEnvironmentWithoutAShell() throws {
        let directory = try TemporaryDirectory()
        let out = directory.path("out.txt")
        let sink = CommandSink(arguments: [
            "/bin/sh", "-c", "echo \"$HEADSUP_TITLE|$HEADSUP_REGION|$HEADSUP_RSSI|$1\" > \(out)", "sh", "literal $HOME; not expanded",
        ])
        try sink.deliver(sample)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(written == "Beware!|crossing|-61|literal $HOME; not expanded\n")
    }

    @Test func aHangingCommandIsKilledAtItsTimeout() {
        let sink = CommandSink(arguments: ["/bin/sleep", "30"], timeout: 0.3)
        let start = Date()
        #expect(throws: SinkError.self) { try sink.deliver(sample) }
        #expect(Date().timeIntervalSince(start) < 3)
        #expect(throws: SinkError.self) { try CommandSink(arguments: ["/bin/false"]).deliver(sample) }
        #expect(throws: SinkError.self) { try CommandSink(arguments: ["no-such-program-headsup"]).deliver(sample) }
    }

    @Test func jsonLinesAreAppended() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("warnings.jsonl")
        let sink = try JSONLinesSink(path: path)
        try sink.deliver(sample)
        try sink.deliver(sample)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(object["title"] as? String == "Beware!")
        #expect(object["region"] as? String == "crossing")
        #expect(object["event"] as? String == "warning")
    }

    @Test func aWebhookGetsTheJSONAndErrorsAreReported() throws {
        let directory = try TemporaryDirectory()
        let received = directory.path("received.json")
        // A one-shot local HTTP server on loopback that saves the POST body.
        let server = try BackgroundProcess(
            PrivateDBus.python,
            [
                "-c",
                """
                import http.server, sys
                class H(http.server.BaseHTTPRequestHandler):
                    def do_POST(self):
                        body = self.rfile.read(int(self.headers['Content-Length']))
                        open(sys.argv[1], 'wb').write(body)
                        self.send_response(204); self.end_headers()
                    def log_message(self, *a): pass
                s = http.server.HTTPServer(('127.0.0.1', 0), H)
                print(s.server_address[1], flush=True)
                s.handle_request()
                """, received,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(server.wait(for: "\n", timeout: 10))
        let port = server.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        try WebhookSink(url: URL(string: "http://127.0.0.1:\(port)/hook")!, timeout: 5).deliver(sample)
        server.finish(timeout: 5)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: received))) as? [String: Any])
        #expect(body["body"] as? String == "You are crossing the road!")
        #expect(body["beacon"] as? String == "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2")
        // Nobody listens on this port now: a clear failure, not a hang.
        let refused = #expect(throws: SinkError.self) {
            try WebhookSink(url: URL(string: "http://127.0.0.1:\(port)/hook")!, timeout: 2).deliver(sample)
        }
        #expect(refused?.message.contains("127.0.0.1") == true, "\(refused?.message ?? "")")
    }
}

/// A sink whose delivery hangs until released (a webhook behind a dead proxy).
final class HangingSink: NotificationSink, @unchecked Sendable {
    let name = "hanging"
    let gate = NSCondition()
    var released = false
    let entered = Mutex(0)
    func deliver(_ notification: NotificationMessage) throws {
        entered.withLock { $0 += 1 }
        gate.lock()
        while !released { gate.wait() }
        gate.unlock()
    }
    func release() {
        gate.lock()
        released = true
        gate.broadcast()
        gate.unlock()
    }
}

/// A sink that records what reaches it and when.
final class TimedSink: NotificationSink, @unchecked Sendable {
    let name = "timed"
    let events = Mutex<[(String, Date)]>([])
    func deliver(_ notification: NotificationMessage) throws { events.withLock { $0.append(("warning", Date())) } }
    func acknowledge() { events.withLock { $0.append(("acknowledged", Date())) } }
}

@Suite("Sinks deliver independently")
struct IndependentSinkTests {
    @Test(.timeLimit(.minutes(1)))
    func aHungSinkDelaysNoOtherSinkNorTheEndOfTheBuzz() throws {
        let hanging = HangingSink()
        let buzzing = TimedSink()
        // The hanging sink first: with one thread for every sink in turn, it held up the rest.
        let dispatcher = NotificationDispatcher(sinks: [hanging, buzzing], retries: 0, logger: Logger(label: "test"))
        let start = Date()
        dispatcher.enqueue(sample)
        dispatcher.acknowledge()
        dispatcher.enqueue(sample)
        let deadline = Date().addingTimeInterval(5)
        while buzzing.events.withLock({ $0.count }) < 3, Date() < deadline { usleep(10_000) }
        let events = buzzing.events.withLock { $0 }
        #expect(events.map(\.0) == ["warning", "acknowledged", "warning"])
        #expect(events.allSatisfy { $0.1.timeIntervalSince(start) < 1 }, "\(events.map { $0.1.timeIntervalSince(start) })")
        #expect(hanging.entered.withLock { $0 } == 1, "still in its first delivery")
        // Stopping does not wait on it either; its sink is not closed under it.
        let stopping = Date()
        dispatcher.finish(timeout: 0.5)
        #expect(Date().timeIntervalSince(stopping) < 2)
        hanging.release()
    }
}
