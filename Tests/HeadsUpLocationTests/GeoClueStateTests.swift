import HeadsUpCrossings
import Testing

@testable import HeadsUpLocation

@Suite("GeoClue states and locations")
struct GeoClueStateTests {
    @Test func refusalsAreNamedStates() {
        let denied = "org.freedesktop.DBus.Error.AccessDenied"
        #expect(GeoClueState.refusal(name: denied, message: "Geolocation disabled for UID 1000", timedOut: false) == .locationOff)
        #expect(GeoClueState.refusal(name: denied, message: "'headsup' disallowed, no agent for UID 998", timedOut: false) == .noAgent)
        #expect(GeoClueState.refusal(name: nil, message: "Connection timed out", timedOut: true) == .noAgent)
        if case .unavailable = GeoClueState.refusal(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "", timedOut: false) {
        } else {
            Issue.record("ServiceUnknown is unavailable")
        }
        #expect(GeoClueState.refusal(name: denied, message: "odd", timedOut: false) == .failed("odd"))
        #expect(GeoClueState.locationOff.description.hasPrefix("Location off: turn on Settings → Privacy → Location Services"))
    }

    @Test func aLocationIsAFixOnThePipelinesClock() throws {
        let props = ["Latitude": 43.7375, "Longitude": 7.4252, "Accuracy": 0.0, "Speed": -1.0, "Heading": 90.0]
        let fix = try #require(GeoClueLocation.fix(props, timestamp: (1_000, 500_000), monotonicNow: 50, wallNow: 1_002))
        #expect(fix.time == 48.5)
        #expect(fix.accuracy == 0)
        #expect(fix.speed == nil, "-1 is unknown")
        #expect(fix.heading == 90)
        // A wall clock behind the fix's stamp: the fix is now, not in the future.
        #expect(GeoClueLocation.fix(props, timestamp: (2_000, 0), monotonicNow: 50, wallNow: 1_000)?.time == 50)
        #expect(GeoClueLocation.fix(props, timestamp: nil, monotonicNow: 50, wallNow: 1_000)?.time == 50)
    }

    @Test func oddLocationsAreRefusedOrMadeHarmless() {
        #expect(GeoClueLocation.fix(["Latitude": 43.7], timestamp: nil, monotonicNow: 0, wallNow: 0) == nil)
        #expect(GeoClueLocation.fix(["Latitude": .nan, "Longitude": 7], timestamp: nil, monotonicNow: 0, wallNow: 0) == nil)
        #expect(GeoClueLocation.fix(["Latitude": 95, "Longitude": 7], timestamp: nil, monotonicNow: 0, wallNow: 0) == nil)
        // A missing or bad accuracy is "unknown": the monitor counts it as too inaccurate.
        #expect(
            GeoClueLocation.fix(["Latitude": 43, "Longitude": 7, "Accuracy": -3], timestamp: nil, monotonicNow: 0, wallNow: 0)?.accuracy == .infinity)
        #expect(GeoClueLocation.fix(["Latitude": 43, "Longitude": 7], timestamp: (UInt64.max, UInt64.max), monotonicNow: 0, wallNow: 0) != nil)
    }
}
