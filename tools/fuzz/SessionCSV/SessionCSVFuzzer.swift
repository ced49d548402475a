// The session CSV reader (strict and lenient), the unit detection and the
// resampler behind it under fuzzing (target fuzz-session-csv): any crash,
// trap or sanitizer report fails it. The reader takes a path, so each input
// goes through a file in /dev/shm (a RAM file system). `swift build` makes
// it a replayer of its corpus; `make fuzz` a fuzzer.
import Foundation
import FuzzReplay
import HeadsUpData

let scratchPath = "/dev/shm/headsup-fuzz-\(getpid()).csv"

func fuzzSessionCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    guard FileManager.default.createFile(atPath: scratchPath, contents: Data(bytes: data, count: size)) else { return 0 }
    for lenient in [false, true] {
        guard let reader = try? SessionCSVReader(path: scratchPath, options: SessionCSVOptions(lenient: lenient)) else { continue }
        var resampler = Resampler(configuration: ResamplingConfiguration())
        var windower = Windower(configuration: WindowingConfiguration())
        var windows = 0
        do {
            while let sample = try reader.next() {
                resampler.push(sample) { event in windower.push(event) { _ in windows += 1 } }
            }
        } catch {
            // A typed error naming the place is the expected end of a bad file.
            guard !error.description.isEmpty else { fatalError("an error without a message") }
        }
        resampler.finish { event in windower.push(event) { _ in windows += 1 } }
    }
    return 0
}

@main enum Fuzzer {
    static func main() { FuzzReplay.main(target: "session-csv", fuzzSessionCSV) }
}
