import Glibc

/// The terminal in non-canonical, no-echo mode while a command reads single
/// keys, restored afterwards. Only when standard input is a terminal.
final class RawTerminal {
    private var original = termios()
    private let active: Bool

    init?() {
        guard isatty(STDIN_FILENO) != 0, tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 0
            bytes[Int(VTIME)] = 0
        }
        active = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0
    }

    /// A key pressed since the last call, without waiting.
    func key() -> Character? {
        var byte: UInt8 = 0
        guard read(STDIN_FILENO, &byte, 1) == 1 else { return nil }
        return Character(Unicode.Scalar(byte))
    }

    deinit {
        if active { tcsetattr(STDIN_FILENO, TCSANOW, &original) }
    }
}
