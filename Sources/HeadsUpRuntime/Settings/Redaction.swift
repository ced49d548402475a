import Foundation

/// Secrets in settings (a webhook URL with a token in its path or query, a
/// password) shown as much as a person needs to recognise them and no more.
public enum Redaction {
    public static let marker = "…(redacted)"

    /// A URL keeps its scheme and host; anything else becomes the marker.
    public static func redacted(_ text: String) -> String {
        guard let url = URLComponents(string: text), let scheme = url.scheme, let host = url.host, !host.isEmpty else { return marker }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)/\(marker)"
    }
}
