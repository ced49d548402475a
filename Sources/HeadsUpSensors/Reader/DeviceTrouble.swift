/// A device's trouble and when to try it again, for a caller that cannot
/// block in a backoff sleep (the polling thread reads the other devices
/// meanwhile). A busy device (someone else holds it) is said once per
/// episode and retried on the busy backoff; a lost one on the lost backoff;
/// each doubles up to its longest. Pure logic: times are seconds, passed in.
struct DeviceTrouble: Sendable, Equatable {
    enum State: Equatable { case none, lost, busy }

    private(set) var state = State.none
    private(set) var backoff: Double
    /// No attempt before this time.
    private(set) var retryAt: Double = -.infinity

    let busyBackoff: (first: Double, longest: Double)
    let lostBackoff: (first: Double, longest: Double)

    init(busyBackoff: (first: Double, longest: Double), lostBackoff: (first: Double, longest: Double)) {
        self.busyBackoff = busyBackoff
        self.lostBackoff = lostBackoff
        backoff = lostBackoff.first
    }

    static func == (a: Self, b: Self) -> Bool { a.state == b.state && a.backoff == b.backoff && a.retryAt == b.retryAt }

    func mayTry(now: Double) -> Bool { now >= retryAt }

    /// The device failed at `now`; true when this starts a new episode (say so).
    mutating func failed(busy: Bool, now: Double) -> Bool {
        let next: State = busy ? .busy : .lost
        let episode = next != state
        if episode {
            state = next
            backoff = busy ? busyBackoff.first : lostBackoff.first
        }
        retryAt = now + backoff
        backoff = min(backoff * 2, busy ? busyBackoff.longest : lostBackoff.longest)
        return episode
    }

    /// Data flows again; true when it had been in trouble (say it is back).
    mutating func recovered() -> Bool {
        let was = state != .none
        state = .none
        backoff = lostBackoff.first
        retryAt = -.infinity
        return was
    }
}
