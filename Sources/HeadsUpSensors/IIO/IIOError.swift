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
    /// Someone else holds the device: its character device is open, or its
    /// buffer is on and raw reads are refused (`iio_device_claim_direct_mode`).
    public var meansBusy: Bool { errno == EBUSY }

    public var meansDeviceVanished: Bool { [ENOENT, ENODEV, ENXIO, ETIMEDOUT, EBADF, ESHUTDOWN].contains(errno) }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch errno {
        case EACCES, EPERM:
            // The package's udev rule gives group headsup the device node and, through iio-permissions, the sysfs
            // attributes HeadsUp writes (udev's GROUP/MODE reach /dev only).
            return "\(target): \(operation): permission denied. HeadsUp's package gives group headsup the IIO sensors "
                + "(its udev rule and /usr/libexec/headsup/iio-permissions): add yourself to it (sudo adduser $USER headsup) and log in "
                + "again; for a sensor plugged in before the package, sudo udevadm trigger --subsystem-match=iio --action=add"
        case EBUSY:
            return "\(target): \(operation): busy: another program (iio-sensor-proxy?) holds the device's buffer. "
                + "HeadsUp waits and retries; sensors.mode: poll shares the device with it"
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
