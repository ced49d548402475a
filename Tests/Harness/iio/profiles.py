"""Device profiles: real phones and boards as their mainline Linux drivers
present them under /sys/bus/iio (issue 32, part 2, "each phone and board as it is").

Each profile is a list of device specs in fake_iio.py's format (see
fake_iio.imu_spec for the keys).  The physical signals are fake_iio.SIGNALS for
every profile: what differs from board to board is what the kernel shows of
them (device names, channels, scales, rates, mount matrices, triggers, and
whether a buffer can run at all).  Each value names its source in the Linux
tree (mainline, v6.x); where this emulation simplifies, the comment says so.

Why the buffer-or-poll split matters: a buffered device delivers timestamped
samples from its FIFO or trigger; a device without an IRQ wired has no
trigger, so its buffer cannot be enabled and HeadsUp must poll `_raw`.

STATUS (unfinished, see the profiles branch report): not yet registered in
fake_iio.SCENARIOS, so nothing uses it.  The values and mount matrices were
written from memory of the named sources and must be checked against them
(the `search` tool on the Linux tree) before the profiles are wired in.
"""

from fake_iio import ChanSpec, fmt_micro, fmt_nano

# ---- drivers/iio/imu/inv_mpu6050 (MPU6050, MPU6500, MPU9250) ---------------
# inv_mpu_core.c: accel_scale[] = {598, 1196, 2392, 4785} (IIO_VAL_INT_PLUS_MICRO,
# +-2/4/8/16 g); gyro_scale_6050[] = {133090, 266181, 532362, 1064724}
# (IIO_VAL_INT_PLUS_NANO, 250..2000 dps); chip_config_*: fsr 2000 dps, accl_fs 2 g.
INV_ACCEL_SCALES = [0.000598, 0.001196, 0.002392, 0.004785]
INV_GYRO_SCALES = [0.000133090, 0.000266181, 0.000532362, 0.001064724]
# inv_mpu_core.c: sampling_frequency_available "10 20 50 100 200 500";
# chip_config divider = INV_MPU6050_FIFO_RATE_TO_DIVIDER(50): 50 Hz at probe.
INV_RATES = [10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
# inv_mpu_magn.h: INV_MPU_MAGN_FREQ_HZ_MAX 50: with the MPU9250's AK8963 on,
# inv_mpu6050 caps the rate it offers at 50 Hz.
INV_MAGN_RATES = [10.0, 20.0, 50.0]
# inv_mpu_magn.c: AK8963 16-bit mode, 0.15 uT/LSB = 0.0015 G, times the fuse-ROM
# sensitivity adjustment (emulated ASA 128 on every axis: factor 1).
INV_AK8963_SCALE = 0.0015


def _inv_mpu(dev_id, name, matrix, with_magn=False, chrdev=(244, 0)):
    """inv_mpu6050: one IIO device, accel + gyro (+ magn on the MPU9250),
    triggered buffer driven by the chip's data-ready IRQ (trigger
    "<name>-dev<N>", inv_mpu_trigger.c), big-endian FIFO words
    (INV_MPU6050_CHAN: IIO_BE).  Scan indexes as inv_mpu_iio.h's enum
    inv_mpu6050_scan (temp is index 3; not emulated)."""
    chans = [ChanSpec("accel", a, i, "be:s16/16>>0") for i, a in enumerate("xyz")]
    chans += [ChanSpec("anglvel", a, 4 + i, "be:s16/16>>0") for i, a in enumerate("xyz")]
    matrices = [("in_mount_matrix", matrix, ["accel", "anglvel"])]   # IIO_SHARED_BY_DIR
    scales = {"accel": {"attr": "in_accel_scale", "value": INV_ACCEL_SCALES[0],
                        "available": INV_ACCEL_SCALES, "fmt": fmt_micro},
              "anglvel": {"attr": "in_anglvel_scale", "value": INV_GYRO_SCALES[3],
                          "available": INV_GYRO_SCALES, "fmt": fmt_nano}}
    rates = INV_RATES
    if with_magn:
        # inv_mpu_iio.h INV_MPU9X50_SCAN_MAGN_X..Z = 7..9; magn words are CPU
        # order after the driver's conversion (INV_MPU9X50_MAGN_CHAN: IIO_CPU).
        chans += [ChanSpec("magn", a, 7 + i, "le:s16/16>>0") for i, a in enumerate("xyz")]
        # inv_mpu_magn.c inv_mpu_magn_set_orient: the AK8963's axes are the
        # MPU's with x and y swapped and z negated: shown as in_magn_mount_matrix.
        magn_m = tuple(tuple(x for x in row) for row in (matrix[1], matrix[0],
                                                          tuple(-v for v in matrix[2])))
        matrices.append(("in_magn_mount_matrix", magn_m, ["magn"]))
        scales["magn"] = {"attr": "in_magn_scale", "value": INV_AK8963_SCALE,
                          "available": None, "fmt": fmt_nano}
        rates = INV_MAGN_RATES
    chans.append(ChanSpec("timestamp", None, 10 if with_magn else 7, "le:s64/64>>0"))
    return {"id": dev_id, "name": name, "buffered": True,
            "trigger": {"id": "trigger0", "name": "%s-dev%s" % (name, dev_id[-1])},
            "chrdev": chrdev, "channels": chans, "scales": scales, "offsets": {},
            "rate": {"default": 50.0, "available": rates}, "matrices": matrices}


# ---- drivers/iio/imu/st_lsm6dsx (LSM9DS1 accel + gyro) ---------------------
# st_lsm6dsx_core.c, LSM9DS1 settings: two IIO devices "lsm9ds1_accel" and
# "lsm9ds1_gyro"; no fifo_ops for this chip, and st_lsm6dsx_probe sets up a
# buffer only with hw->irq > 0: neither board wires one, so no buffer: polled.
# odr_table ACC {10, 50, 119, 238, 476, 952} Hz, GYRO {14.9, 59.5, 119, 238,
# 476, 952} Hz (odr_len 6).  fs_table ACC gain IIO_G_TO_M_S_2(61000) nano =
# 0.000598550 (2 g) ...; GYRO IIO_DEGREE_TO_RAD(8750000) = 0.000152716 (245 dps).
LSM9DS1_ACCEL_RATES = [10.0, 50.0, 119.0, 238.0, 476.0, 952.0]
LSM9DS1_GYRO_RATES = [14.9, 59.5, 119.0, 238.0, 476.0, 952.0]
LSM9DS1_ACCEL_SCALES = [0.000598550, 0.001197100, 0.002394200, 0.004788400]
LSM9DS1_GYRO_SCALES = [0.000152716, 0.000305432, 0.001221730]


def _lsm6dsx(dev_id, kind, matrix):
    ctype, rates, scales = (("accel", LSM9DS1_ACCEL_RATES, LSM9DS1_ACCEL_SCALES)
                            if kind == "accel" else
                            ("anglvel", LSM9DS1_GYRO_RATES, LSM9DS1_GYRO_SCALES))
    return {"id": dev_id, "name": "lsm9ds1_" + kind, "buffered": False, "trigger": None,
            "chrdev": None, "channels": [ChanSpec(ctype, a, None) for a in "xyz"],
            "scales": {ctype: {"attr": "in_%s_scale" % ctype, "value": scales[0],
                               "available": scales, "fmt": fmt_nano}},
            "offsets": {},
            # st_lsm6dsx_init_device leaves the sensor at the first ODR until enabled.
            "rate": {"default": rates[0], "available": rates},
            # st_lsm6dsx_ext_info: IIO_MOUNT_MATRIX(IIO_SHARED_BY_ALL) = "mount_matrix".
            "matrices": [("mount_matrix", matrix, [ctype])]}


# ---- drivers/iio/magnetometer/st_magn_core.c (LIS3MDL, LSM9DS1 magn) -------
# lis3mdl/lsm9ds1-magn settings: odr_avl .hz 1, 2, 3, 5, 10, 20, 40, 80 (printed
# as integers by st_sensors_sysfs_sampling_frequency_avail; there is no 50),
# fs_avl gain 146 ugauss/LSB at 4 G (IIO_VAL_INT_PLUS_MICRO).  Mount matrix:
# IIO_MOUNT_MATRIX(IIO_SHARED_BY_DIR) = "in_mount_matrix".  The core always
# makes a triggered buffer, but the trigger exists only with an IRQ
# (st_sensors_allocate_trigger): with none wired the buffer cannot be enabled.
# Emulated as no buffer at all, so HeadsUp polls it (see README).
ST_MAGN_RATES = [1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 40.0, 80.0]
ST_MAGN_SCALES = [0.000146, 0.000292, 0.000438, 0.000584]


def _st_magn(dev_id, name, matrix):
    return {"id": dev_id, "name": name, "buffered": False, "trigger": None,
            "chrdev": None, "channels": [ChanSpec("magn", a, None) for a in "xyz"],
            "scales": {"magn": {"attr": "in_magn_scale", "value": ST_MAGN_SCALES[0],
                                "available": ST_MAGN_SCALES, "fmt": fmt_micro}},
            "offsets": {},
            "rate": {"default": 1.0, "available": ST_MAGN_RATES},
            "matrices": [("in_mount_matrix", matrix, ["magn"])]}


IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))

# arch/arm64/boot/dts/allwinner/sun50i-a64-pinephone.dtsi: accelerometer@68
# "invensense,mpu6050" with interrupts on PH5; mount-matrix
# "-1","0","0", "0","1","0", "0","0","-1" (the chip faces the back).
PINEPHONE_MPU_MATRIX = ((-1, 0, 0), (0, 1, 0), (0, 0, -1))
# sun50i-a64-pinephone-1.1.dts: magnetometer@1e "st,lis3mdl-magn", no
# interrupts, mount-matrix "0","1","0", "-1","0","0", "0","0","1".
PINEPHONE_MAGN_MATRIX = ((0, 1, 0), (-1, 0, 0), (0, 0, 1))
# arch/arm64/boot/dts/rockchip/rk3399-pinephone-pro.dts: imu@68
# "invensense,mpu6500", interrupts RK_PC6; mount-matrix "1","0","0", "0","-1","0",
# "0","0","-1".  No magnetometer node in mainline (the AF8133J is not described).
PINEPHONE_PRO_MATRIX = ((1, 0, 0), (0, -1, 0), (0, 0, -1))
# arch/arm64/boot/dts/freescale/imx8mq-librem5.dtsi: accel-gyro@6a
# "st,lsm9ds1-imu" and magnetometer@1e "st,lsm9ds1-magn", neither with
# interrupts; mount-matrix of both "1","0","0", "0","1","0", "0","0","-1".
LIBREM5_MATRIX = ((1, 0, 0), (0, 1, 0), (0, 0, -1))

PROFILES = {
    "pinephone": lambda: [
        _inv_mpu("iio:device0", "mpu6050", PINEPHONE_MPU_MATRIX),
        _st_magn("iio:device1", "lis3mdl", PINEPHONE_MAGN_MATRIX)],
    "pinephone_pro": lambda: [
        _inv_mpu("iio:device0", "mpu6500", PINEPHONE_PRO_MATRIX)],
    "librem5": lambda: [
        _lsm6dsx("iio:device0", "accel", LIBREM5_MATRIX),
        _lsm6dsx("iio:device1", "gyro", LIBREM5_MATRIX),
        _st_magn("iio:device2", "lsm9ds1_magn", LIBREM5_MATRIX)],
    # Raspberry Pi + MPU-9250 breakout: arch/arm/boot/dts/overlays mpu6050 style
    # node with compatible "invensense,mpu9250" and its INT pin wired to a GPIO;
    # no mount-matrix property, so inv_mpu6050 reports the identity.
    "rpi_mpu9250": lambda: [
        _inv_mpu("iio:device0", "mpu9250", IDENTITY, with_magn=True)],
    # Sense HAT: LSM9DS1 at 0x6a/0x1c on the HAT's I2C, INT pins not routed to
    # the Pi; loaded with an "st,lsm9ds1-imu"/"st,lsm9ds1-magn" overlay (no
    # mount-matrix: identity).  Everything is polled.
    "sense_hat": lambda: [
        _lsm6dsx("iio:device0", "accel", IDENTITY),
        _lsm6dsx("iio:device1", "gyro", IDENTITY),
        _st_magn("iio:device2", "lsm9ds1_magn", IDENTITY)],
}
PROFILE_HELP = {
    "pinephone": "PinePhone 1.1: mpu6050 buffered (IRQ, trigger mpu6050-dev0) + lis3mdl polled",
    "pinephone_pro": "PinePhone Pro: mpu6500 buffered (IRQ); no magnetometer in mainline",
    "librem5": "Librem 5: lsm9ds1_accel, lsm9ds1_gyro, lsm9ds1_magn, all polled (no IRQ wired)",
    "rpi_mpu9250": "Raspberry Pi + MPU-9250: one buffered device with accel, gyro, magn at 50 Hz",
    "sense_hat": "Raspberry Pi Sense HAT: LSM9DS1 accel, gyro, magn, all polled",
}
