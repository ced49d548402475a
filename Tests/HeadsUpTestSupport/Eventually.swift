import Foundation

/// Waits up to `timeout` seconds for `condition`, checking every 20 ms.
public func eventually(_ timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}
