import HeadsUpSystem

/// Where a session writer's bytes go. The real one is a file created with
/// O_EXCL; tests substitute sinks that fail, to prove no acknowledged sample
/// is lost when the disk does.
public protocol DurableSink: AnyObject {
    /// Writes some prefix of `bytes` and returns how many were written.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int
    /// Returns once everything written so far is on stable storage.
    func sync() throws(SystemCallError)
    func close() throws(SystemCallError)
}

/// A new file on disk; never an existing one.
public final class NewFileSink: DurableSink {
    private let file: PosixFile
    private var closed = false

    /// Creates `path`, failing with EEXIST if anything is already there.
    public init(creating path: String) throws(SystemCallError) {
        file = try PosixFile.open(path, .createNew)
        PosixFile.syncDirectory(containing: path)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        try file.writeSome(bytes)
    }

    public func sync() throws(SystemCallError) { try file.sync() }

    public func close() throws(SystemCallError) {
        guard !closed else { return }
        closed = true
        try file.close()
    }

    deinit { try? close() }
}
