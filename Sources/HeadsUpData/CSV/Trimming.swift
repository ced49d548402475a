extension StringProtocol {
    /// Without leading and trailing white space (newlines too): Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` for modules that
    /// import only FoundationEssentials, which lacks it.
    public var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
