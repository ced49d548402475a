import Dispatch
import Glibc
import Synchronization

/// SIGUSR1 as a request to print the counters, taken by a polling loop.
final class CounterRequest {
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private let flag = Flag()
    private let source: any DispatchSourceSignal

    init() {
        signal(SIGUSR1, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "headsup.usr1"))
        source.setEventHandler { [flag] in flag.value.store(true, ordering: .relaxed) }
        source.resume()
    }

    /// Whether a request came since the last call.
    func take() -> Bool { flag.value.exchange(false, ordering: .relaxed) }
}
