import Glibc

/// One data row as written in the file, before unit conversion.
struct RawSessionRow {
    var label: ActivityLabel
    var timestamp: Double
    var acceleration: SIMD3<Double>
    var rotationRate: SIMD3<Double>
    var magneticField: SIMD3<Double>
}

/// Splits and validates one CSV line of the session format. Pure: bytes in,
/// a row or a located problem out.
enum SessionRowParser {
    struct RowError: Error {
        var column: Int?
        var problem: SessionCSVError.Problem
    }

    enum Line {
        case blank
        case row(RawSessionRow)
        /// A line of names, not numbers (allowed once, as the first line).
        case header([String])
    }

    static func parse(_ line: UnsafeRawBufferPointer) throws(RowError) -> Line {
        var fields: [Double] = []
        fields.reserveCapacity(SessionCSVFormat.columnCount)
        var fieldCount = 0
        var fieldStart = 0
        var texts: [String] = []
        var labelText = UnsafeRawBufferPointer(start: nil, count: 0)
        if isBlank(line) { return .blank }
        for index in 0...line.count where index == line.count || line[index] == UInt8(ascii: ",") {
            fieldCount += 1
            let field = trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<index]))
            fieldStart = index + 1
            if fieldCount == 1 { labelText = field }
            guard fieldCount <= SessionCSVFormat.columnCount else { continue }
            if fieldCount == 1, let first = field.first, !isNumberStart(first) {
                texts.append(String(decoding: field, as: UTF8.self))
                continue
            }
            if !texts.isEmpty {
                texts.append(String(decoding: field, as: UTF8.self))
                continue
            }
            fields.append(try number(field, column: fieldCount))
        }
        guard fieldCount == SessionCSVFormat.columnCount else {
            throw RowError(column: nil, problem: .wrongColumnCount(found: fieldCount))
        }
        if !texts.isEmpty { return .header(texts) }
        let label: ActivityLabel
        switch fields[0] {
        case 0: label = .pocket
        case 1: label = .hands
        default: throw RowError(column: 1, problem: .invalidLabel(String(decoding: labelText, as: UTF8.self)))
        }
        return .row(
            RawSessionRow(
                label: label, timestamp: fields[1],
                acceleration: SIMD3(fields[2], fields[3], fields[4]),
                rotationRate: SIMD3(fields[5], fields[6], fields[7]),
                magneticField: SIMD3(fields[8], fields[9], fields[10])))
    }

    /// Parses a decimal number exactly as `strtod` (correctly rounded, so a
    /// value written with `%.6f` reads back to the same double everywhere).
    static func number(_ field: UnsafeRawBufferPointer, column: Int) throws(RowError) -> Double {
        let text = { String(decoding: field, as: UTF8.self) }
        var sawDigit = false
        for byte in field {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default:
                let lowered = text().lowercased().trimmingPrefix { $0 == "+" || $0 == "-" }
                if ["nan", "inf", "infinity"].contains(String(lowered)) {
                    throw RowError(column: column, problem: .notFinite(text()))
                }
                throw RowError(column: column, problem: .notANumber(text()))
            }
        }
        guard sawDigit, field.count < 64 else { throw RowError(column: column, problem: .notANumber(text())) }
        // The closure does not throw: Swift 6.2's withUnsafeTemporaryAllocation
        // rethrows untyped errors (6.3's passes a typed one through), and
        // Debian's Swift 6.2.3 builds the arm64 package (tools/cross/).
        let (value, consumed) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { scratch in
            field.withMemoryRebound(to: CChar.self) { source in
                _ = scratch.initialize(fromContentsOf: source)
            }
            scratch[field.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(scratch.baseAddress!, &end)
            return (value, end.map { scratch.baseAddress!.distance(to: $0) })
        }
        guard consumed == field.count else { throw RowError(column: column, problem: .notANumber(text())) }
        guard value.isFinite else { throw RowError(column: column, problem: .notFinite(text())) }
        return value
    }

    private static func isNumberStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func isBlank(_ line: UnsafeRawBufferPointer) -> Bool {
        line.allSatisfy(isSpace)
    }

    private static func trimmed(_ field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var lower = field.startIndex
        var upper = field.endIndex
        while lower < upper, isSpace(field[lower]) { lower += 1 }
        while upper > lower, isSpace(field[upper - 1]) { upper -= 1 }
        return UnsafeRawBufferPointer(rebasing: field[lower..<upper])
    }
}
