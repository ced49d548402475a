import Foundation
import HeadsUpSystem

/// Who asked for a control request: the peer of the control socket (its
/// uid and pid from SO_PEERCRED, which the kernel fills in and no client
/// can forge) or the notification's button. Logged with each snooze and
/// resume: any member of the service's group may snooze a board.
public enum ControlOrigin: Sendable, Equatable, CustomStringConvertible {
    case peer(uid: UInt32, pid: Int32)
    /// A button of HeadsUp's own notification.
    case notification
    /// A caller in the process (tests, the simulation).
    case local

    public var description: String {
        switch self {
        case .peer(let uid, let pid): "uid \(uid), pid \(pid)"
        case .notification: "the notification's button"
        case .local: "this process"
        }
    }
}

/// Requests that arrive on other threads (the control socket's, a
/// notification's Snooze button on the desktop sink's) for the live loop
/// to take up between steps, so the session's state has one owner. The
/// loop waits on `readinessDescriptor` with its other inputs.
public final class ControlInbox: @unchecked Sendable {
    /// A request, who asked, and where its answer goes (nil: nobody waits).
    struct Item {
        var request: ControlRequest
        var origin: ControlOrigin
        var reply: (@Sendable (ControlResponse) -> Void)?
    }

    private let lock = NSLock()
    private var pending: [Item] = []
    private let signal = ReadinessSignal()

    public init() {}

    /// Readable while requests wait.
    public var readinessDescriptor: Int32? { signal.descriptor }

    public func post(_ request: ControlRequest, from origin: ControlOrigin = .notification, reply: (@Sendable (ControlResponse) -> Void)? = nil) {
        lock.lock()
        pending.append(Item(request: request, origin: origin, reply: reply))
        lock.unlock()
        signal.raise()
    }

    func take() -> [Item] {
        signal.clear()
        lock.lock()
        defer { lock.unlock() }
        let taken = pending
        pending.removeAll()
        return taken
    }
}
