import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpNotify
import HeadsUpTestSupport
import Logging
import Synchronization
import Testing

/// The desktop sink against a mock notification daemon on a private D-Bus.
@Suite("Desktop notifications on a private D-Bus", .serialized)
struct DesktopSinkSystemTests {
    @Test func theDesktopSinkCallsNotifyOnTheSessionBus() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let daemon = try MockNotificationDaemon(bus: bus)
        try DesktopNotificationSink(bus: .address(bus.address)).deliver(sample)
        let arguments = try #require(try daemon.notifications().first)
        #expect(arguments[0].string == "HeadsUp")
        #expect(arguments[2].string == "dialog-warning")
        #expect(arguments[3].string == "Beware!")
        #expect(arguments[4].string == "You are crossing the road!")
        let hints = try #require(arguments[6].stringKeyed)
        #expect(hints["urgency"]?.integer == 2, "critical urgency")
        #expect(hints["sound-name"]?.unwrapped.string == "dialog-warning")
        #expect(hints["desktop-entry"]?.unwrapped.string == "headsup")
        #expect(arguments[5].items?.isEmpty == true, "no buttons without a handler for them")
    }

    @Test func theNotificationsButtonsReachTheHandler() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let daemon = try MockNotificationDaemon(bus: bus)
        let actions = Mutex<[DesktopNotificationSink.UserAction]>([])
        let sink = DesktopNotificationSink(bus: .address(bus.address), logger: Logger(label: "test")) { action in
            actions.withLock { $0.append(action) }
        }
        try sink.deliver(sample)  // notification 1
        try sink.deliver(sample)  // notification 2
        let buttons = try #require(try daemon.notifications().first)[5].items?.compactMap(\.string)
        #expect(buttons == ["default", "Dismiss", "snooze", "Snooze 30 min", "dismiss", "Dismiss"])
        try daemon.emit("ActionInvoked", signature: "us", [.uint32(1), .string("snooze")])
        try daemon.emit("ActionInvoked", signature: "us", [.uint32(99), .string("snooze")])  // not ours
        try daemon.emit("ActionInvoked", signature: "ss", [.string("odd"), .string("snooze")])  // an odd payload
        try daemon.emit("NotificationClosed", signature: "uu", [.uint32(2), .uint32(2)])  // dismissed by the user
        #expect(eventually { actions.withLock { $0.count } >= 2 })
        usleep(200_000)
        #expect(actions.withLock { $0 } == [.snooze, .dismiss])
        sink.close()
    }
}
