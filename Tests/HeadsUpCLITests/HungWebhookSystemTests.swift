import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

/// The live job with Debian's real feedbackd on a private bus and a webhook
/// whose server takes the connection and never answers: the warning buzzes
/// and `headsup snooze` ends the buzz at once, while the webhook is still
/// waiting out its timeout. With one thread for every sink in turn, the
/// end of the buzz waited behind the webhook.
@Suite("A hung webhook beside feedbackd", .serialized)
struct HungWebhookSystemTests {
    /// A TCP listener on 127.0.0.1 that never accepts: the kernel completes
    /// the handshake and takes the request, and no answer ever comes.
    final class SilentServer {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(descriptor, 16) == 0 else { throw CapabilityMissing(reason: "cannot listen on 127.0.0.1") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(descriptor) }
    }

    @Test(.timeLimit(.minutes(3)))
    func theBuzzStartsAndEndsWhileTheWebhookHangs() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        try requireCapability(Feedbackd.unavailableReason == nil, Feedbackd.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let feedbackd = try Feedbackd(bus: bus)
        let server = try SilentServer()
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.yaml",
            "notifications:\n  feedback_event: long-warning\n  feedback_timeout: 30\n  webhook: http://127.0.0.1:\(server.port)/hook\n"
                + "  webhook_timeout: 600\n  retries: 0\n")
        #expect(chmod(config, 0o600) == 0, "a webhook is a secret")
        var environment = bus.environment
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["HEADSUP_SYSTEM_CONFIG_DIR"] = directory.path("etc")
        environment["XDG_CONFIG_HOME"] = directory.path("xdg")
        let headsup = TestEnvironment.productsDirectory.appendingPathComponent("headsup").path
        let live = try BackgroundProcess(
            headsup,
            [
                "live", "--simulate", "crossing-hands", "--speed", "4", "--json", "--no-desktop", "--config", config, "--model",
                TestEnvironment.path("weights/model.h5"),
            ], environment: environment)
        defer { live.terminate() }
        #expect(live.wait(for: "\"event\":\"warning\"", timeout: 60), "\(live.standardError)")
        #expect(eventually(10) { feedbackd.log.contains("Event 'long-warning' for 'headsup'") }, "the warning buzzes: \(feedbackd.log)")
        let snoozed = Date()
        let snooze = try runHeadsUp(["snooze", "10m"], environment: environment)
        #expect(snooze.status == 0, "\(snooze.standardError)")
        #expect(eventually(5) { feedbackd.log.contains("Ending feedback for event") }, "the buzz ends at once: \(feedbackd.log)")
        #expect(Date().timeIntervalSince(snoozed) < 5)
        // The job ends with its walk; stopping waits no longer than its timeout for the hung webhook.
        let status = live.finish(timeout: 60)
        #expect(status == 0, "\(live.standardError.suffix(2000))")
        #expect(live.standardError.contains("notification via webhook 127.0.0.1 still busy after"), "\(live.standardError.suffix(2000))")
    }
}
