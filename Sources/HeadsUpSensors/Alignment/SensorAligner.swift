import HeadsUpData

/// Puts separately clocked sensors on one 50 Hz grid.
///
/// Each sensor's readings (in model units, with their timestamps) go
/// through their own ``Resampler`` onto the grid `k / 50` s, which is
/// aligned to the clock, so an accelerometer at 52 Hz and a magnetometer at
/// 80 Hz land on the same instants. A grid point is emitted once every
/// sensor has it. A point some sensor skipped (a gap) is dropped and
/// counted, which the windower sees as a break; a sensor that falls more
/// than `maximumLag` grid points behind the others is treated as stalled and
/// its missing points are dropped too. Pure logic: no clock, no I/O.
public struct SensorAligner: Sendable {
    public let kinds: [SensorKind]
    public let configuration: ResamplingConfiguration
    /// Grid points a lagging sensor may fall behind before they are dropped.
    public let maximumLag: Int64
    private var resamplers: [SensorKind: Resampler]
    private var pending: [SensorKind: [Int64: SIMD3<Double>]]
    private var latest: [SensorKind: Int64] = [:]
    private var cursor: Int64?

    public private(set) var emittedCount = 0
    /// Grid points dropped because a sensor lacked them.
    public private(set) var droppedCount = 0

    public init(kinds: [SensorKind], configuration: ResamplingConfiguration = .init(), maximumLag: Int64 = 50) {
        precondition(!kinds.isEmpty)
        self.kinds = kinds
        self.configuration = configuration
        self.maximumLag = maximumLag
        resamplers = Dictionary(uniqueKeysWithValues: kinds.map { ($0, Resampler(configuration: configuration)) })
        pending = Dictionary(uniqueKeysWithValues: kinds.map { ($0, [:]) })
    }

    /// Feeds one reading; `emit` receives the aligned grid samples it completes.
    public mutating func push(_ kind: SensorKind, time: Double, values: SIMD3<Double>, emit: (ResampledEvent) -> Void) {
        guard var resampler = resamplers[kind] else { return }
        let reading = MotionSample(time: time, acceleration: values, rotationRate: .zero, magneticField: .zero)
        resampler.push(reading) { event in
            if case .sample(let sample, let index) = event {
                pending[kind]![index] = sample.acceleration
                latest[kind] = index
            }
        }
        resamplers[kind] = resampler
        drain(emit: emit)
    }

    private mutating func drain(emit: (ResampledEvent) -> Void) {
        guard latest.count == kinds.count else { return }
        if cursor == nil { cursor = kinds.compactMap { pending[$0]!.keys.min() }.max() }
        guard var next = cursor else { return }
        let front = latest.values.max()!
        while true {
            let available = kinds.map { pending[$0]![next] }
            if available.allSatisfy({ $0 != nil }) {
                var sample = MotionSample(
                    time: configuration.time(ofGridIndex: next), acceleration: .zero, rotationRate: .zero, magneticField: .zero)
                for (kind, values) in zip(kinds, available) {
                    switch kind {
                    case .accelerometer: sample.acceleration = values!
                    case .gyroscope: sample.rotationRate = values!
                    case .magnetometer: sample.magneticField = values!
                    }
                }
                emit(.sample(sample, gridIndex: next))
                emittedCount += 1
            } else {
                // Wait for a sensor that may still deliver this point, unless it is
                // past it (a gap) or too far behind the others (stalled).
                let stillComing = kinds.contains { kind in
                    pending[kind]![next] == nil && latest[kind]! < next && front - latest[kind]! <= maximumLag
                }
                if stillComing { break }
                if next > front { break }
                droppedCount += 1
            }
            for kind in kinds { pending[kind]![next] = nil }
            next += 1
            if next > front { break }
        }
        cursor = next
        // Forget points older than the cursor (a sensor that delivered late).
        for kind in kinds where pending[kind]!.keys.contains(where: { $0 < next }) {
            pending[kind] = pending[kind]!.filter { $0.key >= next }
        }
    }
}
