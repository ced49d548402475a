import Foundation
import Glibc

/// A one-line progress bar on standard error, when it is a terminal.
final class ProgressBar {
    private let active = isatty(STDERR_FILENO) != 0
    private var lastDrawn = Date.distantPast

    func show(_ done: Double, of total: Double, label: String) {
        guard active, Date().timeIntervalSince(lastDrawn) > 0.1 else { return }
        lastDrawn = Date()
        let fraction = min(1, done / max(total, 1))
        let filled = Int(fraction * 30)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        FileHandle.standardError.write(Data(String(format: "\r%@ %3.0f%%  %@\u{1B}[K", bar, fraction * 100, label).utf8))
    }

    func finish() {
        if active { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
