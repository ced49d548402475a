/// What a signal handler may look at before the signal's arguments are
/// decoded: a busy BlueZ sends hundreds of PropertiesChanged a second, and
/// most concern devices no region cares about, so their values need never
/// become ``DBusValue`` trees.
public struct DBusSignalHead: Sendable, Equatable {
    /// PropertiesChanged's first argument and the property names of the other two.
    public struct ChangedProperties: Sendable, Equatable {
        public var interface: String
        /// Changed, then invalidated.
        public var names: [String]

        public init(interface: String, names: [String]) {
            self.interface = interface
            self.names = names
        }
    }

    public var path: String
    public var interface: String
    public var member: String
    /// For `org.freedesktop.DBus.Properties.PropertiesChanged`: the
    /// interface its first argument names and the names of the properties
    /// it changes or invalidates, read without reading any value; nil for
    /// other signals.
    public var changedProperties: ChangedProperties?

    public init(path: String, interface: String, member: String, changedProperties: ChangedProperties? = nil) {
        self.path = path
        self.interface = interface
        self.member = member
        self.changedProperties = changedProperties
    }
}
