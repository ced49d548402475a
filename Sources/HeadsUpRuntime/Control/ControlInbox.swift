import Foundation

/// Requests that arrive on other threads (a notification's Snooze button,
/// handled on the desktop sink's thread) for the live loop to take up
/// between steps, so the session's state has one owner.
public final class ControlInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [ControlRequest] = []

    public init() {}

    public func post(_ request: ControlRequest) {
        lock.lock()
        pending.append(request)
        lock.unlock()
    }

    func take() -> [ControlRequest] {
        lock.lock()
        defer { lock.unlock() }
        let taken = pending
        pending.removeAll()
        return taken
    }
}
