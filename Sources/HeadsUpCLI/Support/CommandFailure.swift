/// An error already worded for the user: printed as it is, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
