// What every fuzzer target shares: without libFuzzer (a plain `swift build`),
// each target is a replayer that runs its corpus and any saved crash inputs
// through the same entry point libFuzzer calls, so a crash found once stays a
// regression test. `make fuzz` builds the same targets with
// `-sanitize=fuzzer,address -D FUZZING`, and the same main hands the
// command line to libFuzzer's driver instead.
import CLibFuzzer
import Foundation

/// One fuzzer's entry point, as libFuzzer calls it (a C function: libFuzzer holds a pointer to it).
public typealias FuzzEntryPoint = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

public enum FuzzReplay {
    /// The folder of the source tree that holds the seed corpora
    /// (`tools/fuzz/corpus/<target>`) and the crash inputs kept as
    /// regressions (`tools/fuzz/crashes/<target>`).
    public static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// Replays the files and folders named on the command line, or with none,
    /// the target's corpus and crash folders; prints what it ran and exits
    /// 0. A crash in an input ends the process as it would under libFuzzer;
    /// the input's path is printed first so it can be found.
    public static func main(target: String, _ entry: FuzzEntryPoint) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(headsup_run_libfuzzer(&argc, &argv, entry))
        #else
            replay(target: target, entry)
        #endif
    }

    private static func replay(target: String, _ entry: FuzzEntryPoint) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            print("usage: fuzz-\(target) [FILE|FOLDER]...")
            print("Replays each input through the fuzzer's entry point (default: tools/fuzz/corpus/\(target) and tools/fuzz/crashes/\(target)).")
            print("`make fuzz` builds the coverage-guided fuzzer from the same target.")
            exit(0)
        }
        let roots =
            arguments.isEmpty
            ? ["corpus", "crashes"].map { fuzzFolder.appendingPathComponent($0).appendingPathComponent(target).path } : arguments
        var inputs: [String] = []
        for root in roots {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder) else {
                if !arguments.isEmpty {
                    FileHandle.standardError.write(Data("fuzz-\(target): \(root) does not exist\n".utf8))
                    exit(66)
                }
                continue
            }
            inputs += isFolder.boolValue ? files(under: root) : [root]
        }
        guard !inputs.isEmpty else {
            FileHandle.standardError.write(Data("fuzz-\(target): no inputs in \(roots.joined(separator: ", "))\n".utf8))
            exit(66)
        }
        for path in inputs {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("fuzz-\(target): cannot read \(path)\n".utf8))
                exit(66)
            }
            FileHandle.standardError.write(Data("fuzz-\(target): \(path)\n".utf8))
            // One byte more than the input: libFuzzer never passes a null pointer, even for an empty input.
            let bytes = [UInt8](data) + [0]
            _ = bytes.withUnsafeBufferPointer { buffer in entry(buffer.baseAddress!, buffer.count - 1) }
        }
        print("fuzz-\(target): replayed \(inputs.count) inputs, 0 crashes")
        exit(0)
    }

    private static func files(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            let path = (folder as NSString).appendingPathComponent(name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue { found.append(path) }
        }
        return found.sorted()
    }
}
