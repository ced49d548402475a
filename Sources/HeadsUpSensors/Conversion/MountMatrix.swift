import Foundation

/// How a sensor chip sits on the board: IIO's mount matrix, applied as
/// v' = M·v to bring chip axes into the device frame.
public struct MountMatrix: Sendable, Equatable, CustomStringConvertible {
    /// Rows of M.
    public var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    public static let identity = MountMatrix(rows: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)))

    public init(rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        self.rows = rows
    }

    /// Parses the kernel's format "x1, y1, z1; x2, y2, z2; x3, y3, z3".
    public init?(parsing text: String) {
        let rowTexts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";")
        guard rowTexts.count == 3 else { return nil }
        var rows: [SIMD3<Double>] = []
        for rowText in rowTexts {
            let numbers = rowText.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 3, numbers.allSatisfy(\.isFinite) else { return nil }
            rows.append(SIMD3(numbers[0], numbers[1], numbers[2]))
        }
        self.rows = (rows[0], rows[1], rows[2])
    }

    public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((rows.0 * v).sum(), (rows.1 * v).sum(), (rows.2 * v).sum())
    }

    public static func == (lhs: MountMatrix, rhs: MountMatrix) -> Bool {
        lhs.rows.0 == rhs.rows.0 && lhs.rows.1 == rhs.rows.1 && lhs.rows.2 == rhs.rows.2
    }

    public var description: String {
        func row(_ r: SIMD3<Double>) -> String { "\(r.x), \(r.y), \(r.z)" }
        return "\(row(rows.0)); \(row(rows.1)); \(row(rows.2))"
    }
}
