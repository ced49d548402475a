/// The crossings of a file in square cells of a fixed size, so finding
/// those near a fix looks at a few cells whatever the city's size: the
/// cost per lookup depends on the crossings around the fix, not on how
/// many the file holds.
///
/// Rows are bands of latitude; columns are bands of longitude as wide, at
/// the crossings' mean latitude, as the rows are high. The crossings are
/// stored sorted by cell, column by column (ids, positions in OSM's own
/// fixed point of 1e-7°, kinds; the few kerbs apart), and each occupied
/// cell keeps its range: about 17 bytes a crossing plus the cell table, so
/// a city of 100,000 costs the daemon a few MB. Crossings on the far side
/// of the 180° meridian from a fix are not found (no city straddles it).
public struct CrossingGrid: Sendable {
    /// Cell side, metres.
    public let cellSize: Double
    private let cellHeight: Double
    private let cellWidth: Double
    private let ids: [Int64]
    private let latitudes: [Int32]
    private let longitudes: [Int32]
    private let kinds: [CrossingKind]
    /// Kerbs by index into the columns (most crossings have none).
    private let kerbs: [Int32: [GeoPoint]]
    private let cells: [Cell: Span]

    struct Cell: Hashable, Sendable {
        var row: Int32
        var column: Int32
    }

    struct Span: Sendable {
        var start: Int32
        var count: Int32
    }

    /// OSM's fixed point: 1e-7 degrees.
    static let scale = 1e7

    /// Indexes `crossings` (those at invalid positions are left out); `cellSize` in metres (clamped to 10…10,000).
    public init(_ crossings: [Crossing], cellSize: Double = 50) {
        let size = cellSize.isFinite ? min(max(cellSize, 10), 10_000) : 50
        self.cellSize = size
        let valid = crossings.indices.filter { crossings[$0].position.isValid }
        let meanLatitude = valid.isEmpty ? 0 : valid.reduce(0) { $0 + crossings[$1].position.latitude } / Double(valid.count)
        let height = size / Geodesy.metresPerDegree
        // At most 80° for the width's latitude, so a polar file still gets sane cells.
        let width = size / Geodesy.metresPerDegreeLongitude(at: min(abs(meanLatitude), 80))
        (cellHeight, cellWidth) = (height, width)
        let keys = valid.map { Self.cell(of: crossings[$0].position, height: height, width: width) }
        let order = keys.indices.sorted {
            (keys[$0].row, keys[$0].column, crossings[valid[$0]].id) < (keys[$1].row, keys[$1].column, crossings[valid[$1]].id)
        }
        ids = order.map { crossings[valid[$0]].id }
        latitudes = order.map { Int32((crossings[valid[$0]].position.latitude * Self.scale).rounded()) }
        longitudes = order.map { Int32((crossings[valid[$0]].position.longitude * Self.scale).rounded()) }
        kinds = order.map { crossings[valid[$0]].kind }
        var kerbs: [Int32: [GeoPoint]] = [:]
        var cells: [Cell: Span] = [:]
        var start = 0
        for (position, index) in order.enumerated() {
            let crossing = crossings[valid[index]]
            if !crossing.kerbs.isEmpty { kerbs[Int32(position)] = crossing.kerbs }
            if position == order.count - 1 || keys[order[position + 1]] != keys[index] {
                cells[keys[index]] = Span(start: Int32(start), count: Int32(position + 1 - start))
                start = position + 1
            }
        }
        self.kerbs = kerbs
        self.cells = cells
    }

    public var count: Int { ids.count }

    /// Occupied cells, for the benchmark and `stats`.
    public var occupiedCells: Int { cells.count }

    /// The crossing at `index` of the columns.
    private func crossing(at index: Int) -> Crossing {
        Crossing(
            id: ids[index], kind: kinds[index],
            position: GeoPoint(latitude: Double(latitudes[index]) / Self.scale, longitude: Double(longitudes[index]) / Self.scale),
            kerbs: kerbs[Int32(index)] ?? [])
    }

    private static func cell(of point: GeoPoint, height: Double, width: Double) -> Cell {
        // Valid points only: |latitude| ≤ 90 and |longitude| ≤ 180 keep these far inside Int32.
        Cell(row: Int32((point.latitude + 90) / height), column: Int32((point.longitude + 180) / width))
    }

    /// The crossings within `radius` metres of `point`, nearest first, with
    /// their distances; `kinds` keeps only those kinds (nil: all). An
    /// invalid point or radius finds nothing.
    public func near(_ point: GeoPoint, radius: Double, kinds wanted: Set<CrossingKind>? = nil) -> [(crossing: Crossing, distance: Double)] {
        guard point.isValid, radius.isFinite, radius >= 0, !cells.isEmpty else { return [] }
        let center = Self.cell(of: point, height: cellHeight, width: cellWidth)
        let rowSpan = Int(min(radius / cellSize, 1_000_000).rounded(.up))
        // A column is narrower in metres away from the mean latitude.
        let metresPerColumn = cellWidth * Geodesy.metresPerDegreeLongitude(at: point.latitude)
        let columnSpan = metresPerColumn > 1e-3 ? Int(min(radius / metresPerColumn, 1_000_000).rounded(.up)) : Int(1_000_000)
        var found: [(crossing: Crossing, distance: Double)] = []
        func collect(_ span: Span) {
            for index in Int(span.start)..<Int(span.start + span.count) {
                if let wanted, !wanted.contains(kinds[index]) { continue }
                let position = GeoPoint(latitude: Double(latitudes[index]) / Self.scale, longitude: Double(longitudes[index]) / Self.scale)
                let distance = Geodesy.distance(point, position)
                if distance <= radius { found.append((crossing(at: index), distance)) }
            }
        }
        let boxCells = (2 * rowSpan + 1).multipliedReportingOverflow(by: 2 * columnSpan + 1)
        if boxCells.overflow || boxCells.partialValue > cells.count {
            // A search wider than the file: look at the occupied cells instead.
            for (cell, span) in cells
            where abs(Int(cell.row) - Int(center.row)) <= rowSpan && abs(Int(cell.column) - Int(center.column)) <= columnSpan {
                collect(span)
            }
        } else {
            for row in (Int(center.row) - rowSpan)...(Int(center.row) + rowSpan) {
                for column in (Int(center.column) - columnSpan)...(Int(center.column) + columnSpan) {
                    guard let span = cells[Cell(row: Int32(clamping: row), column: Int32(clamping: column))] else { continue }
                    collect(span)
                }
            }
        }
        return found.sorted { ($0.distance, $0.crossing.id) < ($1.distance, $1.crossing.id) }
    }
}
