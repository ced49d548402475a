import HeadsUpBeacons
import HeadsUpDBus
import HeadsUpData
import HeadsUpSystem
import Logging

/// Ranges beacons through BlueZ's D-Bus API (bluetoothd on the system bus).
///
/// Signals first, snapshot second (as bleak does): it subscribes to
/// InterfacesAdded/Removed, PropertiesChanged and bluetoothd's
/// NameOwnerChanged, then reads GetManagedObjects, so no update falls in
/// between. With `Options.scanMode` = monitor, where the adapter offers org.bluez.AdvertisementMonitorManager1
/// with "or_patterns", it registers an advertisement monitor
/// (``BlueZAdvertisementMonitor``): bluetoothd scans passively and creates
/// and updates Device1 objects only for devices whose data matches a beacon
/// pattern, so a crowd of phones never reaches the bus. Otherwise (no
/// manager, RegisterMonitor refused, the monitor released, or the
/// default scan mode, discovery) it sets the discovery filter
/// (`discoveryFilter(for:)`: the RSSI key removes bluetoothd's 8 dBm change
/// threshold, DuplicateData makes every advertisement count,
/// Eddystone-only regions add its UUID) and starts discovery. Either way
/// beacons are read from Device1 properties; `scanPath` says which way and why.
/// It survives bluetoothd restarts (everything is set up again), adapters
/// powered off and on, NotReady/InProgress replies, and a discovery that
/// silently stops delivering.
///
/// A busy street sends hundreds of updates a second. The match rules ask
/// the bus for org.bluez's device and adapter signals only, and an update
/// that carries RSSI alone for a device whose data holds no beacon of the
/// regions is set aside after its path and property names, before any
/// value is decoded.
public final class BlueZScanner {
    public struct Options: Sendable {
        /// Adapter name (hci0) or nil for the first powered one.
        public var adapter: String?
        /// Seconds without any advertisement, after beacons had been seen,
        /// before discovery is restarted.
        public var stallTimeout: Double
        /// Seconds after which a silent device leaves the table (the regions'
        /// exit timeout). A device whose data holds a beacon that matters is
        /// kept `beaconMemory` seconds instead.
        public var forgetAfter: Double
        /// The regions whose beacons matter: updates of other devices that
        /// carry RSSI alone are set aside undecoded. Empty: every beacon matters.
        public var regions: [BeaconRegion]
        /// Discovery, or the monitor where offered (see ``BlueZScanMode``).
        public var scanMode: BlueZScanMode

        public init(
            adapter: String? = nil, stallTimeout: Double = 30, forgetAfter: Double = 10, regions: [BeaconRegion] = [],
            scanMode: BlueZScanMode = .discovery
        ) {
            self.adapter = adapter
            self.stallTimeout = stallTimeout
            self.forgetAfter = forgetAfter
            self.regions = regions
            self.scanMode = scanMode
        }
    }

    /// Counters for `--json` summaries and diagnostics.
    public struct Counters: Sendable, Equatable {
        public var advertisements = 0
        /// Advertisements with no beacon frame, dropped before any other work.
        public var withoutBeacon = 0
        /// RSSI-only updates of devices with no beacon that matters, dropped undecoded.
        public var setAside = 0
        /// Devices forgotten for silence, and known now.
        public var devicesForgotten = 0
        public var devicesKnown = 0
        public var oddPayloads = 0
        /// Signals from a client that is not bluetoothd (nor, for
        /// NameOwnerChanged, the bus), dropped undecoded (``DBusConnection/foreignSignalCount``).
        public var foreignSignals = 0
        public var bluetoothdRestarts = 0
        public var discoveryRestarts = 0
        /// DeviceFound calls of bluetoothd on the advertisement monitor.
        public var monitorDevicesFound = 0
    }

    public static let service = "org.bluez"

    /// D-Bus messages dispatched per poll: a busy street's few hundred a
    /// second fit many times over, and a flood is worked off a slice per
    /// pass of the live loop, so scoring never waits for it to end.
    public static let messagesPerPoll = 2000

    /// Seconds a silent device with a beacon that matters stays in the
    /// table: longer than bluetoothd keeps a silent device (TemporaryTimeout,
    /// 30 s). While bluetoothd still has it, a device that returns sends
    /// RSSI alone, and only the table's copy of its data says which beacon
    /// it is; once bluetoothd has removed it, a return is InterfacesAdded
    /// with its data.
    public static let beaconMemory = 60.0

    /// Where the advertisement monitor is exported (bluetoothd reads it
    /// with GetManagedObjects on this root).
    public static let monitorRoot = "/org/headsup/beacons"

    private let connection: DBusConnection
    private let options: Options
    private let clock: any MonotonicClock
    private let logger: Logger
    private var table: BlueZDeviceTable
    private var adapterPath: String?
    private var discovering = false
    private var pending: [BeaconSighting] = []
    private var lastAdvertisement: Double?
    private var needsSetUp = false
    private var retryAt: Double?
    private var lastForget = -Double.infinity
    private var baseOddPayloads = 0
    private var baseWithoutBeacon = 0
    private var baseSetAside = 0
    /// While reading the snapshot, adapters are only recorded; chooseAdapter decides.
    private var readingSnapshot = false
    public private(set) var counters = Counters()
    /// How advertisements reach HeadsUp now, and why.
    public private(set) var scanPath = BlueZScanPath.none {
        didSet {
            if scanPath != oldValue { logger.notice("beacons scan path: \(scanPath)") }
        }
    }
    private let monitor: BlueZAdvertisementMonitor
    private var monitorExport: DBusExport?
    /// The adapter the monitor is registered on.
    private var monitorAdapter: String?
    /// Adapters offering AdvertisementMonitorManager1, with their SupportedMonitorTypes.
    private var monitorManagers: [String: [String]] = [:]
    /// Why the monitor is not used though offered (refused or released); kept
    /// until bluetoothd restarts, so a refusing one is not asked each time.
    private var monitorRefusal: String?

    public init(
        connection: DBusConnection, options: Options = .init(), clock: any MonotonicClock = SystemMonotonicClock(), logger: Logger
    ) {
        self.connection = connection
        self.options = options
        self.clock = clock
        self.logger = logger
        table = BlueZDeviceTable(regions: options.regions)
        monitor = BlueZAdvertisementMonitor(root: Self.monitorRoot, regions: options.regions)
    }

    /// Subscribes, reads the current objects and starts discovery. When
    /// bluetoothd is not running yet, waits for it (no error).
    public func start() throws(DBusError) {
        let bluez = "type='signal',sender='\(Self.service)'"
        try connection.addMatch(
            "\(bluez),interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded',path='/'"
        ) { [weak self] in self?.handle($0) }
        try connection.addMatch(
            "\(bluez),interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved',path='/'"
        ) { [weak self] in self?.handle($0) }
        // Devices and adapters only (arg0 is the interface whose properties changed).
        try connection.addMatch(
            "\(bluez),interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez',"
                + "arg0='\(BlueZDeviceTable.deviceInterface)'",
            accept: { [weak self] head in self?.accept(head) ?? false },
            handler: { [weak self] in self?.handle($0) })
        try connection.addMatch(
            "\(bluez),interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez',"
                + "arg0='\(BlueZDeviceTable.adapterInterface)'"
        ) { [weak self] in self?.handle($0) }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
        ) { [weak self] in self?.handle($0) }
        setUp()
    }

    /// Processes the bus for up to `timeout` seconds and returns the beacon
    /// sightings that arrived.
    /// Readable when BlueZ has sent something (see `DBusConnection.fileDescriptor`).
    public var readinessDescriptor: Int32? { connection.fileDescriptor }

    public func poll(timeout: Double) throws(DBusError) -> [BeaconSighting] {
        try connection.process(timeout: timeout, maximumMessages: Self.messagesPerPoll)
        let now = clock.now()
        if needsSetUp || (retryAt.map { now >= $0 } ?? false) {
            needsSetUp = false
            retryAt = nil
            setUp()
        }
        if discovering, let last = lastAdvertisement, now - last > options.stallTimeout {
            logger.warning("no advertisements for \(Int(options.stallTimeout)) s while beacons were in range; restarting discovery")
            counters.discoveryRestarts += 1
            // One restart per stall: the watch resumes once advertisements flow again.
            lastAdvertisement = nil
            if let adapterPath {
                _ = try? connection.call(
                    destination: Self.service, path: adapterPath, interface: BlueZDeviceTable.adapterInterface, member: "StopDiscovery")
            }
            discovering = false
            startDiscovery()
        }
        // Rotating addresses: silent devices leave the table, checked a few times per timeout.
        table.now = now
        if now - lastForget >= options.forgetAfter / 4 {
            counters.devicesForgotten += table.forgetDevices(
                unseenFor: options.forgetAfter, beaconsUnseenFor: max(options.forgetAfter, Self.beaconMemory))
            lastForget = now
        }
        counters.devicesKnown = table.deviceCount
        counters.withoutBeacon = baseWithoutBeacon + table.advertisementsWithoutBeacon
        counters.setAside = baseSetAside + table.setAsideCount
        counters.oddPayloads = baseOddPayloads + table.oddPayloadCount + connection.undecodableSignalCount
        counters.foreignSignals = connection.foreignSignalCount
        defer { pending.removeAll() }
        return pending
    }

    /// Unregisters the monitor or stops discovery (on exit).
    public func stop() {
        if let monitorAdapter {
            _ = try? connection.call(
                destination: Self.service, path: monitorAdapter, interface: BlueZAdvertisementMonitor.managerInterface,
                member: "UnregisterMonitor", arguments: [.objectPath(Self.monitorRoot)])
            self.monitorAdapter = nil
        }
        guard discovering, let adapterPath else { return }
        _ = try? connection.call(destination: Self.service, path: adapterPath, interface: BlueZDeviceTable.adapterInterface, member: "StopDiscovery")
        discovering = false
    }

    // MARK: Setting up

    private func setUp() {
        guard connection.owner(of: Self.service) != nil else {
            logger.warning("bluetoothd (org.bluez) is not on the system bus; waiting for it")
            return
        }
        let objects: [DBusValue]
        do {
            objects = try connection.call(
                destination: Self.service, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
        } catch {
            logger.warning("cannot read BlueZ objects: \(error); retrying in 2 s")
            retryAt = clock.now() + 2
            return
        }
        forgetBluetoothd()
        readingSnapshot = true
        table.now = clock.now()
        for entry in objects.first?.entries ?? [] {
            guard let path = entry.key.string else {
                table.countOdd()
                continue
            }
            if let manager = entry.value.stringKeyed?[BlueZAdvertisementMonitor.managerInterface] {
                monitorManagers[path] = manager.stringKeyed?["SupportedMonitorTypes"]?.items?.compactMap(\.string) ?? []
            }
            for observation in table.interfacesAdded(path: path, interfaces: entry.value) { apply(observation) }
        }
        readingSnapshot = false
        chooseAdapter()
    }

    private func chooseAdapter() {
        let candidates = table.adapters.keys.sorted()
        if let wanted = options.adapter {
            guard let path = candidates.first(where: { $0.hasSuffix("/" + wanted) }) else {
                logger.warning("adapter \(wanted) not found (have: \(candidates.joined(separator: ", ")))")
                return
            }
            adapterPath = path
        } else {
            adapterPath = candidates.first { table.adapters[$0] == true } ?? candidates.first
        }
        guard let adapterPath else {
            logger.warning("no Bluetooth adapter; waiting for one")
            return
        }
        if table.adapters[adapterPath] == true {
            startScanning()
        } else {
            logger.warning("adapter \(adapterPath) is powered off; waiting for it to be powered on")
        }
    }

    /// The discovery filter for `regions`: {Transport le, DuplicateData
    /// true, RSSI −127} (the RSSI key removes bluetoothd's 8 dBm change
    /// threshold; −127 keeps the weak readings the regions' exits are made
    /// of). When every region is Eddystone, also UUIDs = [Eddystone's]:
    /// bluetoothd then reports only devices that advertise that service
    /// (Eddystone frames must list it), so the street's phones and earbuds
    /// never reach the bus. iBeacon and AltBeacon frames name no service,
    /// so with any of those regions no UUID filter is possible.
    public static func discoveryFilter(for regions: [BeaconRegion]) -> DBusValue {
        var entries: [(String, DBusValue)] = [("Transport", .string("le")), ("DuplicateData", .boolean(true)), ("RSSI", .int16(-127))]
        let eddystoneOnly =
            !regions.isEmpty
            && regions.allSatisfy { region in
                if case .eddystone = region.pattern { return true }
                return false
            }
        if eddystoneOnly {
            entries.append(("UUIDs", .array(elementSignature: "s", [.string(BeaconFrameParser.eddystoneServiceUUID)])))
        }
        return .properties(entries)
    }

    /// Why the monitor cannot be used on `adapter`, or nil when it can.
    private func monitorUnavailableReason(_ adapter: String) -> String? {
        if options.scanMode == .discovery { return "beacons.scan is discovery (the default)" }
        if let monitorRefusal { return monitorRefusal }
        guard let types = monitorManagers[adapter] else {
            return "bluetoothd offers no \(BlueZAdvertisementMonitor.managerInterface) on it"
        }
        guard types.contains(BlueZAdvertisementMonitor.monitorType) else {
            return "its SupportedMonitorTypes (\(types.joined(separator: ", "))) lack \(BlueZAdvertisementMonitor.monitorType)"
        }
        return nil
    }

    /// The monitor where it can be used, discovery otherwise.
    private func startScanning() {
        guard let adapterPath else { return }
        if monitorAdapter == adapterPath { return }
        if let reason = monitorUnavailableReason(adapterPath) {
            startDiscovery(reason: reason)
            return
        }
        do {
            if monitorExport == nil {
                monitorExport = try connection.export(under: Self.monitorRoot) { [weak self] call in
                    self?.answerMonitor(call) ?? .notHandled
                }
            }
            try connection.call(
                destination: Self.service, path: adapterPath, interface: BlueZAdvertisementMonitor.managerInterface,
                member: "RegisterMonitor", arguments: [.objectPath(Self.monitorRoot)])
            monitorAdapter = adapterPath
            scanPath = .monitor(adapter: adapterPath, active: false)
        } catch {
            monitorRefusal = "RegisterMonitor failed (\(error))"
            startDiscovery(reason: monitorRefusal!)
        }
    }

    private func answerMonitor(_ call: DBusMethodCall) -> DBusMethodOutcome {
        let (outcome, event) = monitor.answer(call)
        table.now = clock.now()
        switch event {
        case .activated:
            if let monitorAdapter { scanPath = .monitor(adapter: monitorAdapter, active: true) }
        case .released:
            logger.warning("bluetoothd released the advertisement monitor; discovering instead")
            monitorRefusal = "bluetoothd released the advertisement monitor"
            monitorAdapter = nil
            // Not from inside the callback: sd-bus is dispatching this call.
            needsSetUp = true
        case .deviceFound:
            counters.monitorDevicesFound += 1
        case .deviceLost, nil:
            break
        }
        return outcome
    }

    private func startDiscovery(reason: String? = nil) {
        guard let adapterPath, !discovering else { return }
        if let reason { scanPath = .discovery(adapter: adapterPath, reason: reason) }
        let filter = Self.discoveryFilter(for: options.regions)
        do {
            try connection.call(
                destination: Self.service, path: adapterPath, interface: BlueZDeviceTable.adapterInterface,
                member: "SetDiscoveryFilter", arguments: [filter])
            try connection.call(
                destination: Self.service, path: adapterPath, interface: BlueZDeviceTable.adapterInterface, member: "StartDiscovery")
            discovering = true
            logger.info("discovering on \(adapterPath)")
        } catch let error where error.name == "org.bluez.Error.InProgress" {
            discovering = true
            logger.info("discovery already in progress on \(adapterPath)")
        } catch let error where error.name == "org.bluez.Error.NotReady" {
            logger.warning("adapter \(adapterPath) is not ready (powered off?); waiting for it")
        } catch {
            logger.warning("cannot start discovery on \(adapterPath): \(error); retrying in 2 s")
            retryAt = clock.now() + 2
        }
    }

    // MARK: Signals

    /// Whether a device's PropertiesChanged is worth decoding (see `BlueZDeviceTable.setAside`).
    private func accept(_ head: DBusSignalHead) -> Bool {
        guard let changed = head.changedProperties, changed.interface == BlueZDeviceTable.deviceInterface else { return true }
        table.now = clock.now()
        return !table.setAside(path: head.path, changing: changed.names)
    }

    /// Drops what bluetoothd told this instance of it (devices, adapter,
    /// discovery, the advertisement monitor), keeping the counters' totals:
    /// before reading its objects afresh, and when it leaves the bus.
    private func forgetBluetoothd() {
        baseOddPayloads += table.oddPayloadCount
        baseWithoutBeacon += table.advertisementsWithoutBeacon
        baseSetAside += table.setAsideCount
        table = BlueZDeviceTable(regions: options.regions)
        adapterPath = nil
        discovering = false
        monitorAdapter = nil
        monitorManagers = [:]
    }

    private func handle(_ signal: DBusSignal) {
        table.now = clock.now()
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard signal.arguments.count == 3, signal.arguments[0].string == Self.service else { return }
            let newOwner = signal.arguments[2].string ?? ""
            if newOwner.isEmpty {
                logger.warning("bluetoothd left the bus; beacon state reset, waiting for it to return")
                forgetBluetoothd()
                monitorRefusal = nil
                lastAdvertisement = nil
            } else {
                counters.bluetoothdRestarts += 1
                logger.info("bluetoothd (re)started; setting up discovery again")
                needsSetUp = true
            }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].string else { return table.countOdd() }
            if let manager = signal.arguments[1].stringKeyed?[BlueZAdvertisementMonitor.managerInterface] {
                monitorManagers[path] = manager.stringKeyed?["SupportedMonitorTypes"]?.items?.compactMap(\.string) ?? []
            }
            for observation in table.interfacesAdded(path: path, interfaces: signal.arguments[1]) { apply(observation) }
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard signal.arguments.count == 2, let path = signal.arguments[0].string else { return table.countOdd() }
            for observation in table.interfacesRemoved(path: path, interfaces: signal.arguments[1]) { apply(observation) }
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            for observation in table.propertiesChanged(path: signal.path, arguments: signal.arguments) { apply(observation) }
        default:
            break
        }
    }

    private func apply(_ observation: BlueZObservation) {
        let now = clock.now()
        table.now = now
        switch observation {
        case .advertisement(_, let frames, let rssi, let address):
            counters.advertisements += 1
            lastAdvertisement = now
            for frame in frames {
                pending.append(BeaconSighting(identity: frame.identity, rssi: rssi, measuredPower: frame.measuredPower, time: now, address: address))
            }
        case .adapter(let path, let powered):
            if readingSnapshot { return }
            if adapterPath == nil, powered, options.adapter == nil || path.hasSuffix("/" + options.adapter!) {
                adapterPath = path
            }
            guard path == adapterPath else { return }
            if powered {
                if !discovering, monitorAdapter != path {
                    logger.info("adapter \(path) powered on")
                    startScanning()
                }
            } else {
                logger.warning("adapter \(path) powered off; waiting for it")
                discovering = false
            }
        case .adapterRemoved(let path):
            if path == adapterPath {
                logger.warning("adapter \(path) removed")
                adapterPath = nil
                discovering = false
                monitorAdapter = nil
            }
        case .deviceRemoved:
            break
        }
    }
}
