// libFuzzer entry point for the beacon frame parsers and region specs.
// Built by tools/fuzz/run.sh together with Sources/HeadsUpBeacons/Frames and
// Regions/BeaconRegion.swift; any crash, trap or sanitizer report fails it.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBeaconFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let frames = BeaconFrameParser.frames(
        manufacturerData: [0x004C: bytes, 0x0118: Array(bytes.dropFirst())],
        serviceData: [BeaconFrameParser.eddystoneServiceUUID: bytes])
    for frame in frames {
        // Whatever parses must print and parse back to itself.
        let text = frame.identity.description
        if BeaconIdentity(parsing: text) != frame.identity { fatalError("identity round trip failed: \(text)") }
    }
    _ = BeaconFrameParser.eddystoneInfo(bytes)
    _ = try? BeaconRegion.parse(String(decoding: bytes, as: UTF8.self))
    _ = BeaconIdentity(parsing: String(decoding: bytes, as: UTF8.self))
    return 0
}
