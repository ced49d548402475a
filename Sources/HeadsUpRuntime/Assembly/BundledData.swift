import Foundation
import HeadsUpPipeline

/// Where HeadsUp's own data lives (the shipped model and its card, the
/// comparison models, the replay scenarios), wherever the binary is. An
/// installed tree mirrors the source tree (`weights/model.h5`,
/// `datasets/scenarios/…`), searched in this order:
///
/// 1. beside the binary's prefix: `<prefix>/bin/headsup` → `<prefix>/share/headsup/`;
/// 2. each `$XDG_DATA_DIRS` entry + `/headsup` (default `/usr/local/share:/usr/share`);
/// 3. the source tree: the working directory, then the checkout that a
///    `.build/…/headsup` binary sits in.
///
/// A configured path (`model:` in a file, `--model`) is used as given.
public struct BundledData: Sendable {
    /// The folders searched, in order, each with the layout of `share/headsup/`.
    public let folders: [String]

    public init(folders: [String]) { self.folders = folders }

    /// The search order for this process: its executable and environment.
    public static func forThisProcess(
        executable: String? = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: String = FileManager.default.currentDirectoryPath
    ) -> BundledData {
        var folders: [String] = []
        if let executable {
            let bin = URL(fileURLWithPath: executable).deletingLastPathComponent()
            folders.append(bin.deletingLastPathComponent().appendingPathComponent("share/headsup").path)
        }
        let dataDirectories = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        folders += dataDirectories.split(separator: ":").map { "\($0)/headsup" }
        folders.append(workingDirectory)
        if let executable {
            // .build/<configuration>/headsup or .build/<triple>/<configuration>/headsup in a checkout.
            var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
            for _ in 0..<4 {
                directory = directory.deletingLastPathComponent()
                if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                    folders.append(directory.path)
                    break
                }
            }
        }
        return BundledData(folders: folders)
    }

    /// The first folder holding `name` (`weights/model.h5`, `datasets/scenarios/crossing-hands`).
    public func locate(_ name: String) throws(BundledDataError) -> String {
        for folder in folders {
            let path = folder + "/" + name
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw BundledDataError(name: name, searched: folders)
    }
}

/// Nothing of HeadsUp's own data where it was looked for.
public struct BundledDataError: Error, Sendable, CustomStringConvertible {
    public var name: String
    public var searched: [String]
    public var description: String {
        let alternative = name.hasSuffix(".h5") ? ", or name a model with --model FILE or 'model:' in the configuration" : ", or give its path"
        return "\(name) is not installed: looked in " + searched.joined(separator: ", ")
            + ". Install HeadsUp (make install, or its Debian package)\(alternative)"
    }
}

extension BundledData {
    /// Where the bundled scenarios live.
    public static let scenariosFolder = "datasets/scenarios"

    /// A scenario by path, or a bundled scenario by name (`crossing-hands` →
    /// datasets/scenarios/crossing-hands wherever HeadsUp's data is installed),
    /// with its screen track: `screen`, else the folder's `screen.csv`.
    public func scenario(_ argument: String, beacons: String? = nil, screen: String? = nil, locations: String? = nil) throws -> Scenario {
        let isName = !argument.contains("/") && !FileManager.default.fileExists(atPath: argument)
        return try Scenario.open(
            isName ? try locate("\(Self.scenariosFolder)/\(argument)") : argument, beacons: beacons, screen: screen, locations: locations)
    }
}
