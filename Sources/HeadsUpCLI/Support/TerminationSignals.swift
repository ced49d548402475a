import Dispatch
import Glibc
import Synchronization

/// SIGINT and SIGTERM as a flag a polling loop checks, so a command stops
/// cleanly (discovery stopped, files flushed, summary printed) instead of
/// dying mid-write.
final class TerminationSignals {
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let flag = Flag()
    private let sources: [any DispatchSourceSignal]

    init() {
        let queue = DispatchQueue(label: "headsup.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [flag] in flag.value.store(true, ordering: .relaxed) }
            source.resume()
        }
    }

    var requested: Bool { flag.value.load(ordering: .relaxed) }
}
