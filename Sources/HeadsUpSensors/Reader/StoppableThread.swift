import Foundation
import Synchronization

/// A named thread running a streamer's loop until asked to stop: the loop
/// checks `stopped` between its steps, and `isFinished` tells the reader
/// when it has left. Shared by the buffered and the polling streamers.
final class StoppableThread: @unchecked Sendable {
    let name: String
    private let stopFlag = Atomic<Bool>(false)
    private var thread: Thread?

    init(name: String) { self.name = name }

    func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        self.thread = thread
        thread.start()
    }

    func stop() { stopFlag.store(true, ordering: .relaxed) }
    var stopped: Bool { stopFlag.load(ordering: .relaxed) }
    var isFinished: Bool { thread?.isFinished ?? true }
}
