import Glibc

/// A shared library opened with dlopen: HeadsUp loads libhdf5, libmosquitto
/// and libcurl only when a feature needs them, so a daemon that uses none
/// of them never maps them (their shims say how much that saves). This is
/// the one loader all three go through: it tries candidate files in order,
/// lets the caller bind its function table and check the version, and
/// closes every file it does not keep.
public struct DynamicLibrary: @unchecked Sendable {
    /// The file that was opened, as it was named (a soname or a path).
    public let file: String
    /// dlopen's handle; the library stays loaded for the life of the process
    /// (its function tables are read by every later call).
    public let handle: UnsafeMutableRawPointer

    /// Opens the first of `candidates` that dlopen finds and that `bind`
    /// accepts, and returns it with what `bind` made of it (usually a table
    /// of function pointers). `bind` returns nil when it accepts the file, or
    /// why not ("it has no H5Fopen", "it is version 1.10.8; …"); a refused
    /// file is closed and the next one tried.
    public static func load<Table>(
        firstOf candidates: [String], bind: (DynamicLibrary) -> Result<Table, Refusal>
    ) throws(DynamicLibraryError) -> (library: DynamicLibrary, table: Table) {
        var attempts: [DynamicLibraryError.Attempt] = []
        for file in candidates {
            guard let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
                attempts.append(.init(file: file, reason: Self.lastError(about: file)))
                continue
            }
            let library = DynamicLibrary(file: file, handle: handle)
            switch bind(library) {
            case .success(let table): return (library, table)
            case .failure(let refusal):
                dlclose(handle)
                attempts.append(.init(file: file, reason: refusal.reason))
            }
        }
        throw DynamicLibraryError(attempts: attempts)
    }

    /// The address of `symbol` in this library, or nil when it has none.
    public func address(of symbol: String) -> UnsafeMutableRawPointer? { dlsym(handle, symbol) }

    /// Why a bind step refused a file that dlopen opened.
    public struct Refusal: Error, Equatable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// Why dlopen failed: "not found" for the usual case, else dlerror's
    /// text (a wrong architecture, a missing dependency) without the file
    /// name it starts with (the error names each file once).
    private static func lastError(about file: String) -> String {
        guard let text = dlerror() else { return "not found" }
        var message = String(cString: text)
        if message.hasPrefix(file + ": ") { message.removeFirst(file.count + 2) }
        return message == "cannot open shared object file: No such file or directory" ? "not found" : message
    }
}

/// No candidate file could be loaded: each one tried and why, in order, so
/// the user sees whether the library is missing or the wrong version.
public struct DynamicLibraryError: Error, Equatable, CustomStringConvertible {
    public struct Attempt: Equatable, Sendable {
        public var file: String
        public var reason: String
    }

    public var attempts: [Attempt]

    public var description: String {
        attempts.isEmpty ? "no library file was named" : attempts.map { "\($0.file): \($0.reason)" }.joined(separator: "; ")
    }
}
