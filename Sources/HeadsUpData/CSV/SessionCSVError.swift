import HeadsUpSystem

/// A problem with a session file, located precisely enough to open the file
/// and fix it: `path:line:column: what is wrong`.
public struct SessionCSVError: Error, Equatable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case wrongColumnCount(found: Int)
        case notANumber(String)
        case notFinite(String)
        case invalidLabel(String)
        case unknownHeader(String)
        case lineTooLong
        case unreadable(SystemCallError)
    }

    public var path: String
    /// 1-based line number; 0 when the problem is with the file as a whole.
    public var line: Int
    /// 1-based CSV column, when one column is at fault.
    public var column: Int?
    public var problem: Problem

    public init(path: String, line: Int, column: Int? = nil, problem: Problem) {
        self.path = path
        self.line = line
        self.column = column
        self.problem = problem
    }

    public var description: String {
        var location = path
        if line > 0 { location += ":\(line)" }
        if let column { location += ":\(column)" }
        let columnName = column.map { "column \($0) (\(SessionCSVFormat.columnNames[$0 - 1]))" } ?? ""
        switch problem {
        case .wrongColumnCount(let found):
            return "\(location): expected \(SessionCSVFormat.columnCount) comma-separated columns "
                + "(\(SessionCSVFormat.header)), found \(found)"
        case .notANumber(let text):
            return "\(location): \(columnName): '\(text)' is not a number"
        case .notFinite(let text):
            return "\(location): \(columnName): '\(text)' is not a finite number"
        case .invalidLabel(let text):
            return "\(location): \(columnName): '\(text)' is not a label; use 1 (hands) or 0 (pocket)"
        case .unknownHeader(let text):
            return "\(location): the first line '\(text)' is neither a data row nor the header "
                + "'\(SessionCSVFormat.header)'"
        case .lineTooLong:
            return "\(location): line longer than \(LineReader.sessionLineLimit) bytes; is this a session CSV?"
        case .unreadable(let error):
            return error.description
        }
    }
}
