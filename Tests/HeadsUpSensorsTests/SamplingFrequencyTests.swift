import Testing

@testable import HeadsUpSensors

/// A driver's `sampling_frequency` is input like any other: 0, negative,
/// NaN or infinite is no rate, and the reader sizes its buffer for 50 Hz
/// instead of dividing by it (which trapped).
@Suite("sampling_frequency from sysfs")
struct SamplingFrequencyTests {
    @Test func unusableRatesAreNoRate() {
        for text in ["0", "-52", "nan", "inf", "-inf", "1e300", "", "fast", "0.000"] {
            #expect(SensorDiscovery.rate(fromAttribute: text) == nil, "\(text)")
        }
        #expect(SensorDiscovery.rate(fromAttribute: "52.000000\n") == 52)
        #expect(SensorDiscovery.rate(fromAttribute: nil) == nil)
    }

    @Test func theBufferAndTimeoutNeverTrapWhateverTheRate() {
        for rate: Double? in [nil, 0, -5, .nan, .infinity, -.infinity, 1e300, 1e-300] {
            #expect(DeviceStreamer.bufferSamples(rate: rate) == 13, "\(String(describing: rate))")
            #expect(DeviceStreamer.timeoutMilliseconds(samples: 13, rate: rate) == 1040)
        }
        #expect(DeviceStreamer.bufferSamples(rate: 100) == 25)
        #expect(DeviceStreamer.bufferSamples(rate: 12.5) == 10)
        #expect(DeviceStreamer.timeoutMilliseconds(samples: 10, rate: 12.5) == 3200)
    }

    @Test func availableRatesAreCheckedToo() {
        #expect(AvailableRates(parsing: "[-inf 1 inf]") == nil)
        #expect(AvailableRates(parsing: "[nan 1 100]") == nil)
        #expect(AvailableRates(parsing: "12.5 nan 52") == .list([12.5, 52]))
        #expect(AvailableRates(parsing: "[1 0.5 200]") == .range(minimum: 1, step: 0.5, maximum: 200))
    }
}
