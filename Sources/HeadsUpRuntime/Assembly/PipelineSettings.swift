import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData
import HeadsUpPipeline
import HeadsUpSystem

extension BeaconSettings {
    /// The entry rule: RSSI thresholds when both are set, distances otherwise.
    public func entryRule() throws(RegionRuleError) -> RegionEntryRule {
        try .make(enterRSSI: enterRSSI, exitRSSI: exitRSSI, enterDistance: enterDistance, exitDistance: exitDistance)
    }

    /// The region monitor's configuration (the settings were checked when resolved).
    public func monitorConfiguration() throws(RegionRuleError) -> RegionMonitorConfiguration {
        RegionMonitorConfiguration(rule: try entryRule(), dwell: dwell, exitTimeout: exitTimeout, filter: filter, distance: distance)
    }

    /// The regions, parsed (each spec was checked when it was set).
    public func parsedRegions() throws(RegionSpecError) -> [BeaconRegion] {
        try regions.map { spec throws(RegionSpecError) in try BeaconRegion.parse(spec) }
    }
}

extension ResolvedSettings {
    /// The pipeline's configuration: windows, decision rule, warnings, regions.
    public func pipelineConfiguration() throws(SettingsError) -> HeadsUpPipeline.Configuration {
        let regions: [BeaconRegion]
        do { regions = try settings.beacons.parsedRegions() } catch { throw self.error("beacons.regions", error.description) }
        let monitor: RegionMonitorConfiguration
        do { monitor = try settings.beacons.monitorConfiguration() } catch { throw self.error("beacons", error.description) }
        return HeadsUpPipeline.Configuration(
            windowing: settings.windowing, distraction: settings.distraction.configuration, warning: settings.warning, regions: regions,
            monitor: monitor, crossings: try crossingGrid(), crossingMonitor: settings.crossingMonitor)
    }

    /// The crossings file's grid, when `crossings.file` is set and
    /// `location.source` is not none; the error names the key and the file.
    public func crossingGrid() throws(SettingsError) -> CrossingGrid? {
        guard let path = settings.crossings.file, settings.location.source != .none else { return nil }
        let grid: CrossingGrid
        do { grid = CrossingGrid(try CrossingsFile.read(path: path).crossings) } catch { throw self.error("crossings.file", error.description) }
        // Reading a city's file takes several times what its grid keeps, in
        // blocks malloc would otherwise hold on to for the daemon's life.
        FreedMemory.release()
        return grid
    }
}
