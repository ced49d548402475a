import HeadsUpDBus

/// org.freedesktop.Notifications.Notify on the session bus: what Phosh,
/// Plasma Mobile and desktop environments show as a banner.
public final class DesktopNotificationSink: NotificationSink {
    public let name = "desktop"
    public let appName: String
    public let icon: String
    private var connection: DBusConnection?

    public init(appName: String = "HeadsUp", icon: String = "dialog-warning") {
        self.appName = appName
        self.icon = icon
    }

    public func deliver(_ notification: NotificationMessage) throws {
        do {
            if connection == nil { connection = try DBusConnection(.session) }
            let hints = DBusValue.dictionary(
                keySignature: "s", valueSignature: "v",
                [
                    DBusDictionaryEntry(key: .string("urgency"), value: .variant(.byte(2))),
                    DBusDictionaryEntry(key: .string("category"), value: .variant(.string("device"))),
                    DBusDictionaryEntry(key: .string("desktop-entry"), value: .variant(.string("headsup"))),
                ])
            try connection!.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "Notify",
                arguments: [
                    .string(appName), .uint32(0), .string(icon), .string(notification.title), .string(notification.body),
                    .array(elementSignature: "s", []), hints, .int32(-1),
                ],
                timeout: 5)
        } catch {
            connection = nil
            throw SinkError(sink: name, message: "\(error) (is a notification daemon running on the session bus?)")
        }
    }
}
