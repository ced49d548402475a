/// The crossings of a file in square cells of a fixed size, so finding
/// those near a fix looks at a few cells whatever the city's size: the
/// cost per lookup depends on the crossings around the fix, not on how
/// many the file holds.
///
/// Rows are bands of latitude; columns are bands of longitude as wide, at
/// the crossings' mean latitude, as the rows are high. The crossings are
/// stored sorted by cell, and each occupied cell keeps its range: one array
/// and one small table, no per-cell arrays. Crossings on the far side of
/// the 180° meridian from a fix are not found (no city straddles it).
public struct CrossingGrid: Sendable {
    /// Cell side, metres.
    public let cellSize: Double
    /// The crossings, sorted by cell.
    public let crossings: [Crossing]
    private let cellHeight: Double
    private let cellWidth: Double
    private let cells: [Cell: Range<Int>]

    struct Cell: Hashable, Sendable {
        var row: Int32
        var column: Int32
    }

    /// Indexes `crossings` (those at invalid positions are left out); `cellSize` in metres (clamped to 10…10,000).
    public init(_ crossings: [Crossing], cellSize: Double = 50) {
        let size = cellSize.isFinite ? min(max(cellSize, 10), 10_000) : 50
        self.cellSize = size
        let valid = crossings.filter { $0.position.isValid }
        let meanLatitude = valid.isEmpty ? 0 : valid.reduce(0) { $0 + $1.position.latitude } / Double(valid.count)
        cellHeight = size / Geodesy.metresPerDegree
        // At most 80° for the width's latitude, so a polar file still gets sane cells.
        cellWidth = size / Geodesy.metresPerDegreeLongitude(at: min(abs(meanLatitude), 80))
        let (height, width) = (cellHeight, cellWidth)
        let keyed = valid.map { (Self.cell(of: $0.position, height: height, width: width), $0) }
            .sorted { ($0.0.row, $0.0.column, $0.1.id) < ($1.0.row, $1.0.column, $1.1.id) }
        self.crossings = keyed.map(\.1)
        var cells: [Cell: Range<Int>] = [:]
        var start = 0
        for index in keyed.indices where index == keyed.count - 1 || keyed[index + 1].0 != keyed[index].0 {
            cells[keyed[index].0] = start..<(index + 1)
            start = index + 1
        }
        self.cells = cells
    }

    public var count: Int { crossings.count }

    /// Occupied cells, for the benchmark and `stats`.
    public var occupiedCells: Int { cells.count }

    private static func cell(of point: GeoPoint, height: Double, width: Double) -> Cell {
        // Valid points only: |latitude| ≤ 90 and |longitude| ≤ 180 keep these far inside Int32.
        Cell(row: Int32((point.latitude + 90) / height), column: Int32((point.longitude + 180) / width))
    }

    /// The crossings within `radius` metres of `point`, nearest first, with
    /// their distances; `kinds` keeps only those kinds (nil: all). An
    /// invalid point or radius finds nothing.
    public func near(_ point: GeoPoint, radius: Double, kinds: Set<CrossingKind>? = nil) -> [(crossing: Crossing, distance: Double)] {
        guard point.isValid, radius.isFinite, radius >= 0, !cells.isEmpty else { return [] }
        let center = Self.cell(of: point, height: cellHeight, width: cellWidth)
        let rowSpan = Int(min(radius / cellSize, 1_000_000).rounded(.up))
        // A column is narrower in metres away from the mean latitude.
        let metresPerColumn = cellWidth * Geodesy.metresPerDegreeLongitude(at: point.latitude)
        let columnSpan = metresPerColumn > 1e-3 ? Int(min(radius / metresPerColumn, 1_000_000).rounded(.up)) : Int(1_000_000)
        var found: [(crossing: Crossing, distance: Double)] = []
        func collect(_ range: Range<Int>) {
            for index in range {
                let crossing = crossings[index]
                if let kinds, !kinds.contains(crossing.kind) { continue }
                let distance = Geodesy.distance(point, crossing.position)
                if distance <= radius { found.append((crossing, distance)) }
            }
        }
        let boxCells = (2 * rowSpan + 1).multipliedReportingOverflow(by: 2 * columnSpan + 1)
        if boxCells.overflow || boxCells.partialValue > cells.count {
            // A search wider than the file: look at the occupied cells instead.
            for (cell, range) in cells
            where abs(Int(cell.row) - Int(center.row)) <= rowSpan && abs(Int(cell.column) - Int(center.column)) <= columnSpan {
                collect(range)
            }
        } else {
            for row in (Int(center.row) - rowSpan)...(Int(center.row) + rowSpan) {
                for column in (Int(center.column) - columnSpan)...(Int(center.column) + columnSpan) {
                    guard let range = cells[Cell(row: Int32(clamping: row), column: Int32(clamping: column))] else { continue }
                    collect(range)
                }
            }
        }
        return found.sorted { ($0.distance, $0.crossing.id) < ($1.distance, $1.crossing.id) }
    }
}
