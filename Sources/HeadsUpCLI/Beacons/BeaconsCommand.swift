import ArgumentParser

/// `headsup beacons …`: the BLE beacon side of HeadsUp.
struct BeaconsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "Range BLE beacons through BlueZ and watch crossing regions.",
        subcommands: [BeaconsScanCommand.self, BeaconsWatchCommand.self])
}
