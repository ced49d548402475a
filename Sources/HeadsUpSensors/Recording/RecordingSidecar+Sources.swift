import HeadsUpData

extension RecordingSidecar {
    /// The sidecar of a recording made from these sensor sources: their
    /// devices, the channels they measure, the grid rate and the axes the
    /// samples were converted to. `startTime` is the wall clock (Unix
    /// seconds) when recording began; ``finished(samples:firstTime:lastTime:labelChanges:)``
    /// replaces it by the first row's time.
    public init(
        session: String, position: PhonePosition, context: String, sources: [SensorSource], rate: Int, convention: AxisConvention,
        startTime: Double
    ) {
        self.init(
            session: session, position: position, context: context,
            devices: sources.map {
                Device(
                    kinds: $0.kinds.map(\.rawValue).sorted(), name: $0.deviceName, id: $0.deviceID, rateHz: $0.rate, mode: $0.mode.rawValue)
            },
            channels: Self.channels(measuredBy: Set(sources.flatMap(\.kinds))), sampleRateHz: rate,
            axisConvention: convention.rawValue, startTime: startTime)
    }

    /// The same sidecar once the recording has ended: rows, seconds covered
    /// (first to last row, as the CSV's times say) and label switches.
    public func finished(samples: Int, firstTime: Double?, lastTime: Double?, labelChanges: Int) -> RecordingSidecar {
        var done = self
        done.samples = samples
        done.labelChanges = labelChanges
        if let firstTime, let lastTime {
            done.seconds = ((lastTime - firstTime) * 1000).rounded() / 1000
            done.startTime = firstTime
            done.startTimeUTC = Self.utc(firstTime)
        }
        return done
    }
}
