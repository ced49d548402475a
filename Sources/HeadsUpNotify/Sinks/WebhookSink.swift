import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP POST of the warning as a JSON object.
public final class WebhookSink: NotificationSink {
    public let name: String
    public let url: URL
    public let timeout: Double

    public init(url: URL, timeout: Double = 5) {
        self.url = url
        self.timeout = timeout
        name = "webhook \(url.host ?? url.absoluteString)"
    }

    public func deliver(_ notification: NotificationMessage) throws {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONLinesSink.line(notification).utf8)
        final class Box: @unchecked Sendable {
            var status: Int?
            var error: Error?
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, error in
            box.status = (response as? HTTPURLResponse)?.statusCode
            box.error = error
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + timeout + 1) == .success else {
            throw SinkError(sink: name, message: "no answer within \(timeout) s")
        }
        if let error = box.error { throw SinkError(sink: name, message: error.localizedDescription) }
        guard let status = box.status, (200..<300).contains(status) else {
            throw SinkError(sink: name, message: "HTTP status \(box.status.map(String.init) ?? "none")")
        }
    }
}
