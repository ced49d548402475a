import Glibc

/// A failed libiio operation, worded so the user knows what to do.
public struct IIOError: Error, Equatable, CustomStringConvertible {
    public var operation: String
    /// Device and attribute or channel involved.
    public var target: String
    public var errno: Int32

    public init(operation: String, target: String, errno: Int32) {
        self.operation = operation
        self.target = target
        self.errno = abs(errno)
    }

    /// The device or attribute is gone (unplugged, driver unbound).
    public var meansDeviceVanished: Bool { [ENOENT, ENODEV, ENXIO, ETIMEDOUT, EBADF, ESHUTDOWN].contains(errno) }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch errno {
        case EACCES, EPERM:
            return "\(target): \(operation): permission denied. Give your user access to IIO devices: a udev rule such as "
                + "SUBSYSTEM==\"iio\", GROUP=\"iio\", MODE=\"0660\" (and for /dev/iio:device*: KERNEL==\"iio:device*\", GROUP=\"iio\", MODE=\"0660\"), "
                + "then add yourself to the group (sudo usermod -aG iio $USER) and log in again"
        case ETIMEDOUT:
            return "\(target): \(operation): no data within the timeout (device stalled or unplugged?)"
        case ENOENT,
            ENODEV where operation == "opening the IIO context":
            return
                "IIO context \(target) has no devices (no /sys/bus/iio/devices): is the sensor driver loaded? For a board running iiod use --uri ip:HOST"
        case ENOENT, ENODEV:
            return "\(target): \(operation): device or attribute not found (unplugged?)"
        default:
            return "\(target): \(operation): \(reason)"
        }
    }
}
