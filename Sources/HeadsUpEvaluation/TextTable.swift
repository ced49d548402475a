/// A plain table for terminals and for Markdown, with right-aligned numbers.
public struct TextTable: Sendable {
    public var header: [String]
    public var rows: [[String]] = []
    /// Columns aligned right (numbers).
    public var rightAligned: Set<Int> = []

    public init(header: [String], rows: [[String]] = [], rightAligned: Set<Int> = []) {
        (self.header, self.rows, self.rightAligned) = (header, rows, rightAligned)
    }

    public func renderedForTerminal() -> String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    public func renderedAsMarkdown() -> String {
        func line(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
        let rule = "|" + header.map { _ in "---|" }.joined()
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
