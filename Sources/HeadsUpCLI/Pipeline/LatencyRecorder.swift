/// Keeps the latest scoring latencies for percentiles (bounded memory).
struct LatencyRecorder {
    private var samples: [Double] = []
    private var next = 0
    let capacity = 10_000

    mutating func add(_ seconds: Double) {
        if samples.count < capacity { samples.append(seconds) } else { samples[next] = seconds }
        next = (next + 1) % capacity
    }

    /// The p-th percentile (0…100) in seconds, or nil with no samples.
    func percentile(_ p: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p / 100 + 0.5))]
    }
}
