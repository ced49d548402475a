import CIIO
import Glibc

/// An IIO context (`local:`, `ip:HOST`, `usb:`): the devices one kernel
/// offers. Every libiio call of HeadsUp goes through this file's types.
/// A context is used from one thread at a time.
public final class IIOContext {
    let pointer: OpaquePointer
    public let uri: String

    public init(uri: String) throws(IIOError) {
        guard let context = iio_create_context_from_uri(uri) else {
            throw IIOError(operation: "opening the IIO context", target: uri, errno: headsup_iio_errno())
        }
        pointer = context
        self.uri = uri
    }

    deinit { iio_context_destroy(pointer) }

    /// Sets how long buffer refills wait (milliseconds).
    public func setTimeout(milliseconds: UInt32) throws(IIOError) {
        let status = iio_context_set_timeout(pointer, milliseconds)
        if status < 0 { throw IIOError(operation: "setting the timeout", target: uri, errno: status) }
    }

    public var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { index in
            iio_context_get_device(pointer, index).map { IIODevice(pointer: $0, context: self) }
        }
    }

    /// A device by name or id (iio:deviceN).
    public func device(named name: String) -> IIODevice? {
        devices.first { $0.name == name || $0.id == name }
    }
}

/// One IIO device (a sensor chip's function, or a trigger).
public struct IIODevice {
    let pointer: OpaquePointer
    /// Keeps the context alive while the device is in use.
    let context: IIOContext

    public var id: String { String(cString: iio_device_get_id(pointer)) }
    public var name: String { iio_device_get_name(pointer).map { String(cString: $0) } ?? id }
    public var label: String { name == id ? id : "\(name) (\(id))" }
    public var isTrigger: Bool { iio_device_is_trigger(pointer) }

    public var channels: [IIOChannel] {
        (0..<iio_device_get_channels_count(pointer)).compactMap { index in
            iio_device_get_channel(pointer, index).map { IIOChannel(pointer: $0, device: self) }
        }
    }

    public var attributes: [String] {
        (0..<iio_device_get_attrs_count(pointer)).compactMap { iio_device_get_attr(pointer, $0).map { String(cString: $0) } }
    }

    public func read(_ attribute: String) throws(IIOError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = iio_device_attr_read(pointer, attribute, &buffer, buffer.count)
        if count < 0 { throw IIOError(operation: "reading \(attribute)", target: label, errno: Int32(count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func write(_ attribute: String, _ value: String) throws(IIOError) {
        let count = iio_device_attr_write(pointer, attribute, value)
        if count < 0 { throw IIOError(operation: "writing \(attribute)=\(value)", target: label, errno: Int32(count)) }
    }

    /// A buffer attribute (`buffer/enable`, `buffer/length`).
    public func readBufferAttribute(_ attribute: String) throws(IIOError) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = iio_device_buffer_attr_read(pointer, attribute, &buffer, buffer.count)
        if count < 0 { throw IIOError(operation: "reading buffer/\(attribute)", target: label, errno: Int32(count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func writeBufferAttribute(_ attribute: String, _ value: String) throws(IIOError) {
        let count = iio_device_buffer_attr_write(pointer, attribute, value)
        if count < 0 { throw IIOError(operation: "writing buffer/\(attribute)=\(value)", target: label, errno: Int32(count)) }
    }

    /// Whether the device's buffer is on now (nil: the device has no buffer attributes).
    public var isBufferEnabled: Bool? { (try? readBufferAttribute("enable")).map { $0 == "1" } }

    /// The trigger currently driving this device, if any.
    public var trigger: IIODevice? {
        var trigger: OpaquePointer?
        guard iio_device_get_trigger(pointer, &trigger) == 0, let trigger else { return nil }
        return IIODevice(pointer: trigger, context: context)
    }

    /// True when the device takes a trigger (its `trigger/current_trigger`
    /// exists) and none is set: a triggered buffer with no trigger cannot
    /// start. (libiio's local backend answers 0 with no trigger then, and an
    /// error when the attribute does not exist: a FIFO-driven device.)
    public var lacksItsTrigger: Bool {
        var trigger: OpaquePointer?
        return iio_device_get_trigger(pointer, &trigger) == 0 && trigger == nil
    }

    public func setTrigger(_ trigger: IIODevice) throws(IIOError) {
        let status = iio_device_set_trigger(pointer, trigger.pointer)
        if status < 0 { throw IIOError(operation: "setting trigger \(trigger.name)", target: label, errno: status) }
    }
}

/// One IIO channel (an axis of a sensor, or the timestamp).
public struct IIOChannel {
    let pointer: OpaquePointer
    public let device: IIODevice

    public enum Axis: Sendable { case x, y, z }

    public var id: String { String(cString: iio_channel_get_id(pointer)) }
    public var isOutput: Bool { iio_channel_is_output(pointer) }
    public var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    public var scanIndex: Int { Int(iio_channel_get_index(pointer)) }

    /// The motion sensor this channel measures, by IIO channel type.
    public var kind: SensorKind? {
        switch iio_channel_get_type(pointer) {
        case IIO_ACCEL: .accelerometer
        case IIO_ANGL_VEL: .gyroscope
        case IIO_MAGN: .magnetometer
        default: nil
        }
    }

    public var isTimestamp: Bool { iio_channel_get_type(pointer) == IIO_TIMESTAMP }

    public var axis: Axis? {
        switch iio_channel_get_modifier(pointer) {
        case IIO_MOD_X: .x
        case IIO_MOD_Y: .y
        case IIO_MOD_Z: .z
        default: nil
        }
    }

    public var attributes: [String] {
        (0..<iio_channel_get_attrs_count(pointer)).compactMap { iio_channel_get_attr(pointer, $0).map { String(cString: $0) } }
    }

    public func read(_ attribute: String) throws(IIOError) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = iio_channel_attr_read(pointer, attribute, &buffer, buffer.count)
        if count < 0 { throw IIOError(operation: "reading \(id) \(attribute)", target: device.label, errno: Int32(count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func write(_ attribute: String, _ value: String) throws(IIOError) {
        let count = iio_channel_attr_write(pointer, attribute, value)
        if count < 0 { throw IIOError(operation: "writing \(id) \(attribute)=\(value)", target: device.label, errno: Int32(count)) }
    }

    func enable() { iio_channel_enable(pointer) }

    /// The sysfs file name of a channel attribute (`in_accel_x_raw` for `raw`).
    func attributeFilename(_ attribute: String) -> String? {
        iio_channel_attr_get_filename(pointer, attribute).map { String(cString: $0) }
    }
}

/// A kernel sample buffer on one device: refill, then read each sample's
/// channels converted from the wire format (endianness, shift, sign).
public final class IIOBuffer {
    let pointer: OpaquePointer
    let device: IIODevice

    public init(device: IIODevice, samples: Int) throws(IIOError) {
        guard let buffer = iio_device_create_buffer(device.pointer, samples, false) else {
            throw IIOError(operation: "creating a \(samples)-sample buffer", target: device.label, errno: headsup_iio_errno())
        }
        pointer = buffer
        self.device = device
    }

    private var destroyed = false

    deinit { destroy() }

    /// Frees the buffer now; libiio's local backend writes `buffer/enable=0`.
    /// The buffer must not be used after this.
    public func destroy() {
        guard !destroyed else { return }
        destroyed = true
        iio_buffer_destroy(pointer)
    }

    /// Blocks until the buffer is full (or the context's timeout).
    public func refill() throws(IIOError) -> Int {
        let count = iio_buffer_refill(pointer)
        if count < 0 { throw IIOError(operation: "reading samples", target: device.label, errno: Int32(count)) }
        return count
    }

    /// Samples in the buffer after the last refill.
    public var sampleCount: Int {
        let step = iio_buffer_step(pointer)
        guard step > 0, let start = iio_buffer_start(pointer), let end = iio_buffer_end(pointer) else { return 0 }
        return start.distance(to: end) / step
    }

    /// Calls `body` once per sample with a reader for its channels.
    public func forEachSample(_ body: (SampleView) -> Void) {
        for index in 0..<sampleCount { body(SampleView(buffer: self, index: index)) }
    }

    public struct SampleView {
        let buffer: IIOBuffer
        var index: Int

        /// The channel's value in this sample as a signed integer (before offset and scale).
        public func raw(_ channel: IIOChannel) -> Int64 {
            let step = iio_buffer_step(buffer.pointer)
            guard let base = iio_buffer_first(buffer.pointer, channel.pointer) else { return 0 }
            let source = base.advanced(by: index * step)
            var value: Int64 = 0
            withUnsafeMutableBytes(of: &value) { iio_channel_convert(channel.pointer, $0.baseAddress, source) }
            let format = iio_channel_get_data_format(channel.pointer).pointee
            let bits = Int64(format.bits)
            if format.is_signed, bits > 0, bits < 64 {
                // convert sign-extends into the channel's storage size; widen to 64 bits.
                let storage = Int64(format.length)
                let shift = 64 - storage
                value = (value << shift) >> shift
            }
            return value
        }
    }
}
