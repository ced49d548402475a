import HeadsUpCrossings
import Testing

@testable import HeadsUpLocation

@Suite("gpsd reports")
struct GPSDReportTests {
    func parse(_ line: String, now: Double = 100, wall: Double = 1_795_000_000) -> GPSDReport {
        GPSDReport.parse(line[...], monotonicNow: now, wallNow: wall)
    }

    @Test func aTPVWithAFixIsAFix() throws {
        let line =
            #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-11-18T08:53:18.500Z","lat":43.7375272,"lon":7.425191,"eph":7.5,"speed":1.3,"track":87.5}"#
        guard case .fix(let fix) = parse(line, wall: 1_794_992_000) else {
            Issue.record("expected a fix")
            return
        }
        #expect(fix.position == GeoPoint(latitude: 43.7375272, longitude: 7.425191))
        #expect(fix.accuracy == 7.5 && fix.speed == 1.3 && fix.heading == 87.5)
        // 2026-11-18T08:53:18.5Z is 1,794,991,998.5: 1.5 s before the wall clock's now.
        #expect(abs(fix.time - 98.5) < 1e-6)
    }

    @Test func accuracyFallsBackToEpxEpyThenUnknown() {
        if case .fix(let fix) = parse(#"{"class":"TPV","mode":2,"lat":1,"lon":2,"epx":4,"epy":9}"#) {
            #expect(fix.accuracy == 9)
            #expect(fix.time == 100, "no time: now")
        } else {
            Issue.record("expected a 2D fix")
        }
        if case .fix(let fix) = parse(#"{"class":"TPV","mode":3,"lat":1,"lon":2}"#) { #expect(fix.accuracy == .infinity) }
    }

    @Test func noFixAndOtherLines() {
        #expect(parse(#"{"class":"TPV","mode":1,"time":"2026-11-18T08:53:18.000Z"}"#) == .noFix)
        #expect(parse(#"{"class":"TPV","mode":3,"lat":95,"lon":2}"#) == .noFix)
        #expect(parse(#"{"class":"TPV","mode":3,"lat":"north","lon":2}"#) == .noFix)
        #expect(parse(#"{"class":"SKY","satellites":[]}"#) == .other)
        #expect(parse("not json") == .other)
        #expect(parse("") == .other)
        #expect(parse("[1,2,3]") == .other)
    }
}
