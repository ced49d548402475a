import CCurl
import Foundation

/// HTTP POST of the warning as a JSON object, through libcurl (loaded when
/// the first webhook sink is made; see CCurl/shim.h for why).
public final class WebhookSink: NotificationSink {
    public let name: String
    public let url: URL
    public let timeout: Double
    private let curl: CurlLibrary

    /// Fails when libcurl cannot be loaded, so a daemon configured with a
    /// webhook says so at start rather than at its first warning.
    /// Seconds a POST may take.
    public static let defaultTimeout = 5.0

    public init(url: URL, timeout: Double = defaultTimeout) throws(SinkError) {
        self.url = url
        self.timeout = timeout
        name = "webhook \(url.host ?? url.absoluteString)"
        switch CurlLibrary.loaded {
        case .success(let library): curl = library
        case .failure(let failure):
            throw SinkError(
                sink: name, message: "a webhook needs \(HEADSUP_LIBCURL) (Debian: apt install libcurl4), which could not be loaded: \(failure)"
            )
        }
    }

    public func deliver(_ notification: NotificationMessage) throws {
        let body = JSONLinesSink.line(notification)
        var status = 0
        var error = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let code = withUnsafePointer(to: curl.api) { api in
            headsup_curl_post_json(api, url.absoluteString, body, body.utf8.count, Int(timeout * 1000), &status, &error)
        }
        guard code == CURLE_OK.rawValue else {
            throw SinkError(sink: name, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard (200..<300).contains(status) else { throw SinkError(sink: name, message: "HTTP status \(status)") }
    }
}
