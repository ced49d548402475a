// The beacon frame parsers and region specs under fuzzing (target
// fuzz-beacon-frames): any crash, trap or sanitizer report fails it.
// `swift build` makes it a replayer of its corpus; `make fuzz` a fuzzer.
import FuzzReplay
import HeadsUpBeacons

func fuzzBeaconFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
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

@main enum Fuzzer {
    static func main() { FuzzReplay.main(target: "beacon-frames", fuzzBeaconFrames) }
}
