import ArgumentParser
import HeadsUpData

extension WindowLayout: ExpressibleByArgument {}
extension LabelPolicy: ExpressibleByArgument {}

/// How the 50 Hz grid is cut into windows; shared by commands that window.
struct WindowingOptions: ParsableArguments {
    @Option(help: "Samples per window (50 = 1 s at 50 Hz).")
    var length = 50

    @Option(help: "Samples between window starts (25 = 0.5 s, the live hop).")
    var hop = 25

    @Option(name: .customLong("label-policy"), help: "majority, or uniform to keep only windows of one label.")
    var labelPolicy: LabelPolicy = .majority

    func validate() throws {
        guard (1...100_000).contains(length) else { throw ValidationError("--length takes 1 to 100,000 samples") }
        guard (1...100_000).contains(hop) else { throw ValidationError("--hop takes 1 to 100,000 samples") }
    }

    var configuration: WindowingConfiguration {
        WindowingConfiguration(length: length, hop: hop, labelPolicy: labelPolicy)
    }
}
