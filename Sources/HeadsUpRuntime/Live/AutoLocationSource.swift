import HeadsUpCrossings
import HeadsUpLocation
import Logging

/// `location.source: auto`: GeoClue2 where it is on the system bus (a
/// phone's session), gpsd on localhost where it is not (a board with a GPS
/// receiver). The choice is made once GeoClue2 says it is unavailable, and
/// kept: GeoClue's other states (Location off, no agent, restarting) mean
/// GeoClue is the phone's source, and the user is told what to do about it.
final class AutoLocationSource: LocationSource {
    private let geoclue: GeoClueClient
    private let makeGPSD: () -> GPSDClient
    private let logger: Logger
    private var gpsd: GPSDClient?

    init(geoclue: GeoClueClient, gpsd: @escaping () -> GPSDClient, logger: Logger) {
        self.geoclue = geoclue
        makeGPSD = gpsd
        self.logger = logger
    }

    private var current: any LocationSource { gpsd ?? geoclue }

    func start() {
        geoclue.start()
        switchIfUnavailable()
    }

    func poll() -> [LocationFix] {
        let fixes = current.poll()
        switchIfUnavailable()
        return fixes
    }

    var status: String { current.status }
    var summary: String { current.summary }
    var readinessDescriptors: [Int32] { current.readinessDescriptors }
    func stop() { current.stop() }

    private func switchIfUnavailable() {
        guard gpsd == nil, case .unavailable(let why) = geoclue.state else { return }
        logger.notice("location: GeoClue2 is unavailable (\(why)); trying gpsd on localhost")
        geoclue.stop()
        let client = makeGPSD()
        client.start()
        gpsd = client
    }
}
