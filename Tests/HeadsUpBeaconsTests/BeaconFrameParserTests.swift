import Foundation
import Testing

@testable import HeadsUpBeacons

func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex.replacingOccurrences(of: " ", with: ""))! }

@Suite("Beacon frames")
struct BeaconFrameParserTests {
    // Manufacturer data as BlueZ reports it: the bytes after the company id.
    let estimoteIBeacon = bytes("02 15 B9 40 7F 30 F5 F8 46 6E AF F9 25 55 6B 57 FE 6D 00 01 00 02 C5")
    // The AltBeacon specification's example frame (after the 0x0118 company id).
    let altBeacon = bytes("BE AC 2F 23 44 54 CF 6D 4A 0F AD F2 F4 91 1B A9 FF A6 00 01 00 02 C5 00")
    // Eddystone frames as service data of 0xFEAA (from the Eddystone specification's layout).
    let eddystoneUID = bytes("00 E7 00 01 02 03 04 05 06 07 08 09 01 02 03 04 05 06 00 00")
    let eddystoneURL = bytes("10 EB 03 67 6F 6F 67 6C 65 07")
    let eddystoneTLM = bytes("20 00 0B B8 17 80 00 00 00 2A 00 00 01 F4")

    @Test func iBeacon() throws {
        let frame = try #require(BeaconFrameParser.iBeacon(estimoteIBeacon))
        #expect(frame.identity == .iBeacon(uuid: UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!, major: 1, minor: 2))
        #expect(frame.measuredPower == -59)
        #expect(frame.identity.description == "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2")
    }

    @Test func altBeaconUnderAnyCompany() throws {
        let frame = try #require(BeaconFrameParser.altBeacon(altBeacon))
        #expect(frame.identity == .altBeacon(id: bytes("2F234454CF6D4A0FADF2F4911BA9FFA600010002")))
        #expect(frame.measuredPower == -59)
        let frames = BeaconFrameParser.frames(manufacturerData: [0x0118: altBeacon, 0x004C: estimoteIBeacon], serviceData: [:])
        #expect(frames.count == 2)
    }

    @Test func eddystoneUIDAndItsPowerAtOneMetre() throws {
        let frame = try #require(BeaconFrameParser.eddystoneUID(eddystoneUID))
        #expect(frame.identity == .eddystone(namespace: bytes("00010203040506070809"), instance: bytes("010203040506")))
        #expect(frame.measuredPower == -25 - 41)
        let viaServiceData = BeaconFrameParser.frames(
            manufacturerData: [:], serviceData: [BeaconFrameParser.eddystoneServiceUUID: eddystoneUID])
        #expect(viaServiceData == [frame])
    }

    @Test func eddystoneURLAndTelemetryForDisplay() {
        #expect(BeaconFrameParser.eddystoneInfo(eddystoneURL) == .url("https://google.com", txPowerAt0m: -21))
        #expect(
            BeaconFrameParser.eddystoneInfo(eddystoneTLM)
                == .telemetry(EddystoneTelemetry(batteryMillivolts: 3000, temperature: 23.5, advertisementCount: 42, uptime: 50)))
        #expect(BeaconFrameParser.eddystoneUID(eddystoneURL) == nil)
    }

    @Test func shortAndForeignFramesAreIgnored() {
        for length in 0..<estimoteIBeacon.count { #expect(BeaconFrameParser.iBeacon(Array(estimoteIBeacon.prefix(length))) == nil) }
        for length in 0..<altBeacon.count - 1 { #expect(BeaconFrameParser.altBeacon(Array(altBeacon.prefix(length))) == nil) }
        for length in 0..<eddystoneUID.count - 2 { #expect(BeaconFrameParser.eddystoneUID(Array(eddystoneUID.prefix(length))) == nil) }
        #expect(BeaconFrameParser.frames(manufacturerData: [0x0006: estimoteIBeacon], serviceData: [:]).isEmpty)
        #expect(BeaconFrameParser.eddystoneInfo([0x10, 0x00, 0x09]) == nil)
        #expect(BeaconFrameParser.eddystoneInfo([0x20, 0x01] + Array(repeating: 0, count: 12)) == nil)
    }

    /// A bounded random fuzz in the unit tests; tools/fuzz runs the coverage-guided one.
    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var data = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if length > 2, Bool.random(using: &generator) { data[0] = [0x02, 0xBE, 0x00, 0x10, 0x20].randomElement()! }
            _ = BeaconFrameParser.frames(manufacturerData: [0x004C: data], serviceData: [BeaconFrameParser.eddystoneServiceUUID: data])
            _ = BeaconFrameParser.eddystoneInfo(data)
        }
    }
}

@Suite("Region specs")
struct BeaconRegionTests {
    let uuid = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!

    @Test func iBeaconWildcards() throws {
        let any = try BeaconRegion.parse("B9407F30-F5F8-466E-AFF9-25556B57FE6D")
        let major = try BeaconRegion.parse("ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1")
        let exact = try BeaconRegion.parse("crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2")
        let beacon = BeaconIdentity.iBeacon(uuid: uuid, major: 1, minor: 2)
        let other = BeaconIdentity.iBeacon(uuid: uuid, major: 2, minor: 2)
        #expect(any.matches(beacon) && any.matches(other))
        #expect(major.matches(beacon) && !major.matches(other))
        #expect(exact.matches(beacon) && !exact.matches(.iBeacon(uuid: uuid, major: 1, minor: 3)))
        #expect(exact.name == "crossing")
    }

    @Test func eddystoneAndAltBeacon() throws {
        let namespace = try BeaconRegion.parse("eddystone:00010203040506070809")
        let instance = try BeaconRegion.parse("eddystone:00010203040506070809:010203040506")
        let beacon = BeaconIdentity.eddystone(namespace: bytes("00010203040506070809"), instance: bytes("010203040506"))
        #expect(namespace.matches(beacon) && instance.matches(beacon))
        #expect(!instance.matches(.eddystone(namespace: bytes("00010203040506070809"), instance: bytes("010203040507"))))
        let alt = try BeaconRegion.parse("altbeacon:2F234454")
        #expect(alt.matches(.altBeacon(id: bytes("2F234454CF6D4A0FADF2F4911BA9FFA600010002"))))
        #expect(!alt.matches(beacon))
    }

    @Test(arguments: [
        "", "not-a-uuid", "B9407F30-F5F8-466E-AFF9-25556B57FE6D:70000", "B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2:3", "eddystone:0001",
        "eddystone:00010203040506070809:01", "altbeacon:xyz",
    ])
    func badSpecsSayWhatIsExpected(spec: String) {
        #expect(throws: RegionSpecError.self) { try BeaconRegion.parse(spec) }
    }
}
