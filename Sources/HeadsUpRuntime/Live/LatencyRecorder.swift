/// Keeps the latest scoring latencies for percentiles (bounded memory).
public struct LatencyRecorder: Sendable {
    private var samples: [Double] = []
    private var next = 0
    public let capacity = 10_000

    public init() {}

    public mutating func add(_ seconds: Double) {
        if samples.count < capacity { samples.append(seconds) } else { samples[next] = seconds }
        next = (next + 1) % capacity
    }

    /// The p-th percentile (0…100) in seconds, or nil with no samples.
    public func percentile(_ p: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p / 100 + 0.5))]
    }
}
