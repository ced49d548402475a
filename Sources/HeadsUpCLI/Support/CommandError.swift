/// An error already worded for the user: printed as it is, exit status 1.
struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
