"""Device profiles: real phones and boards as their mainline Linux drivers
present them under /sys/bus/iio (issue 32, part 2, "each phone and board as it is").

Each profile is a list of device specs in fake_iio.py's format (see
fake_iio.imu_spec for the keys).  The physical signals are fake_iio.SIGNALS for
every profile: what differs from board to board is what the kernel shows of
them (device names, channels, scales, rates, mount matrices, triggers, and
whether a buffer can run at all).  Each value names its source in the Linux
tree (torvalds/linux as stored in the search index, mainline v6.x; Raspberry Pi
overlays from raspberrypi/linux); where this emulation simplifies, the comment
says so.

Why the buffer-or-poll split matters: a buffered device delivers timestamped
samples from its FIFO or trigger.  A device whose IRQ is not wired gets no
trigger of its own.  Since v6.2 st_magn (always) and st_lsm6dsx (no IRQ, or no
hardware FIFO: the LSM9DS1) still create a triggered buffer, so scan_elements/,
buffer/ and /dev/iio:deviceN exist, but buffer/enable fails until userspace
attaches an external trigger (iio-trig-hrtimer/sysfs through configfs).
Such devices carry "needs_trigger": True: fake_iio gives them buffer/,
scan_elements/, /dev/iio:deviceN and an empty trigger/current_trigger, and
buffer/enable fails with EINVAL.  Note that iio-sensor-proxy's udev rule keys
on scan_elements/in_accel_x_en, so on the real device it tags such an
accelerometer iio-buffer-accel, not iio-poll-accel.

Keys beyond fake_iio.imu_spec's:
  "needs_trigger"       see above;
  rate["fmt"], rate["available_fmt"]  how the kernel prints sampling_frequency
      and sampling_frequency_available;
  rate["write"]         what the driver does with a written rate: "divider"
      (inv_mpu6050), "at_least" (st_lsm6dsx), "exact" (st_sensors);
      rate["write_rule"] says it in words for the truth file;
  "raw_read_periods", "raw_follows_rate"  a one-shot `_raw` read waits that
      many output periods and reads the sample of that instant.

Values checked on 2026-11-28 against the sources named in each comment.
"""

from iio_spec import ChanSpec, fmt_micro, fmt_nano


def fmt_int(v):
    """IIO_VAL_INT and the "%d " / "%u" sysfs formats."""
    return "%d" % v


def fmt_milli(v):
    """st_lsm6dsx_sysfs_sampling_frequency_avail: "%d.%03d " of milli-Hz."""
    return "%.3f" % v


# ---- drivers/iio/imu/inv_mpu6050 (MPU6050, MPU6500, MPU9250) ---------------
# inv_mpu_core.c: accel_scale[] = {598, 1196, 2392, 4785} (read_raw returns
# IIO_VAL_INT_PLUS_MICRO; +-2/4/8/16 g); gyro_scale_6050[] = {133090, 266181,
# 532362, 1064724} (IIO_VAL_INT_PLUS_NANO; 250..2000 dps).  Both are
# info_mask_shared_by_type (INV_MPU6050_CHAN), so in_accel_scale and
# in_anglvel_scale; in_accel_scale_available "0.000598 0.001196 0.002392
# 0.004785" and in_anglvel_scale_available "0.000133090 ... 0.001064724" are
# IIO_CONST_ATTRs.  chip_config_6050 / chip_config_6500: .fsr =
# INV_MPU6050_FSR_2000DPS, .accl_fs = INV_MPU6050_FS_02G at probe.
INV_ACCEL_SCALES = [0.000598, 0.001196, 0.002392, 0.004785]
INV_GYRO_SCALES = [0.000133090, 0.000266181, 0.000532362, 0.001064724]
# inv_mpu_core.c: IIO_CONST_ATTR_SAMP_FREQ_AVAIL("10 20 50 100 200 500"), one
# device attribute (IIO_DEV_ATTR_SAMP_FREQ, shown by inv_fifo_rate_show "%u");
# chip_config .divider = INV_MPU6050_FIFO_RATE_TO_DIVIDER(50): 50 Hz at probe.
# inv_mpu6050_fifo_rate_store takes any integer 4..1000 and truncates it to
# 1000 / (divider + 1).  The same list on the MPU9250: there is no
# in_magn_sampling_frequency.
INV_RATES = [10.0, 20.0, 50.0, 100.0, 200.0, 500.0]
INV_RATE_WRITE_RULE = ("any integer 4..1000 Hz, truncated to 1000/(d+1), d = 1000/rate - 1"
                       " (inv_mpu6050_fifo_rate_store)")
# inv_mpu_magn.h INV_MPU_MAGN_FREQ_HZ_MAX 50: inv_mpu_magn_set_rate slows the
# AK8963 reads to at most 50 Hz; above that the magn samples repeat.
INV_MAGN_FREQ_HZ_MAX = 50.0
# inv_mpu_magn.c inv_magn_init: 16-bit mode sensitivity 1500 (0.15 uT = 0.0015
# G), times (ASA + 128) / 256 from the fuse ROM (emulated ASA 128: factor 1).
# inv_mpu_magn.h inv_mpu_magn_get_scale: IIO_VAL_INT_PLUS_MICRO, per axis
# (INV_MPU9X50_MAGN_CHAN: SCALE in info_mask_separate), no _available list.
INV_AK8963_SCALE = 0.0015


def _inv_mpu(dev_id, name, matrix, with_magn=False, chrdev=(244, 0)):
    """inv_mpu6050: one IIO device, accel + gyro (+ magn on the MPU9250),
    triggered buffer driven by the chip's data-ready IRQ (inv_mpu_core_probe
    sets up buffer and trigger only with irq > 0; trigger "%s-dev%d" of name
    and device id, inv_mpu_trigger.c), big-endian FIFO words.  The name is
    the DT compatible without "invensense," (inv_mpu_i2c.c: client->name).
    Scan indexes as inv_mpu_iio.h enum inv_mpu6050_scan: ACCL 0..2, TEMP 3,
    GYRO 4..6, TIMESTAMP 7, MAGN 7..9 and TIMESTAMP 10 on the MPU9x50.  The
    temp channel (index 3) and the deprecated in_accel_matrix /
    in_gyro_matrix attributes are not emulated."""
    # INV_MPU6050_CHAN: sign 's', realbits 16, storagebits 16, IIO_BE.
    chans = [ChanSpec("accel", a, i, "be:s16/16>>0") for i, a in enumerate("xyz")]
    chans += [ChanSpec("anglvel", a, 4 + i, "be:s16/16>>0") for i, a in enumerate("xyz")]
    # inv_mpu_core.c inv_ext_info: IIO_MOUNT_MATRIX(IIO_SHARED_BY_TYPE, ...):
    # one matrix per channel type (in_accel_/in_anglvel_/in_magn_mount_matrix).
    matrices = [("in_accel_mount_matrix", matrix, ["accel"]),
                ("in_anglvel_mount_matrix", matrix, ["anglvel"])]
    scales = {"accel": {"attr": "in_accel_scale", "value": INV_ACCEL_SCALES[0],
                        "available": INV_ACCEL_SCALES, "fmt": fmt_micro},
              "anglvel": {"attr": "in_anglvel_scale", "value": INV_GYRO_SCALES[3],
                          "available": INV_GYRO_SCALES, "fmt": fmt_nano}}
    if with_magn:
        # inv_mpu_core.c INV_MPU9X50_MAGN_CHAN(_, 16, INV_MPU9X50_SCAN_MAGN_X..Z):
        # sign 's', realbits 16 (13 on the MPU9150), storagebits 16, IIO_BE
        # (the MPU's I2C master stores the AK8963 words byte-swapped).
        chans += [ChanSpec("magn", a, 7 + i, "be:s16/16>>0") for i, a in enumerate("xyz")]
        # inv_mpu_magn.c inv_mpu_magn_set_orient: magn row x <- mount row y,
        # row y <- row x, row z <- -row z.
        magn_m = (matrix[1], matrix[0], tuple(-v for v in matrix[2]))
        matrices.append(("in_magn_mount_matrix", magn_m, ["magn"]))
        for a in "xyz":
            scales["magn_" + a] = {"attr": "in_magn_%s_scale" % a, "value": INV_AK8963_SCALE,
                                   "available": None, "fmt": fmt_micro}
    chans.append(ChanSpec("timestamp", None, 10 if with_magn else 7, "le:s64/64>>0"))
    return {"id": dev_id, "name": name, "buffered": True,
            "trigger": {"id": "trigger0", "name": "%s-dev%s" % (name, dev_id[-1])},
            "chrdev": chrdev, "channels": chans, "scales": scales, "offsets": {},
            "rate": {"default": 50.0, "available": INV_RATES, "fmt": fmt_int,
                     "available_fmt": fmt_int, "write": "divider",
                     "write_rule": INV_RATE_WRITE_RULE},
            "matrices": matrices}


# ---- drivers/iio/imu/st_lsm6dsx (LSM9DS1 accel + gyro) ---------------------
# st_lsm6dsx.h: ST_LSM9DS1_DEV_NAME "lsm9ds1-imu"; st_lsm6dsx_core.c
# st_lsm6dsx_alloc_iiodev names the two IIO devices "%s_accel" and "%s_gyro":
# "lsm9ds1-imu_accel", "lsm9ds1-imu_gyro".  The LSM9DS1 settings have no
# fifo_ops.read_fifo, so st_lsm6dsx_probe never sets up the hardware FIFO; it
# calls st_lsm6dsx_sw_buffers_setup (since v6.2, "introduce sw trigger
# support"): a triggered buffer with no trigger of its own (see the module
# docstring), so HeadsUp polls it.  st_lsm6dsx_read_oneshot: enable the
# sensor, usleep_range(3 * period, 4 * period), read, disable.
# st_lsm6dsx_core.c LSM9DS1 odr_table (milli-Hz): ACC {10000, 50000, 119000,
# 238000, 476000, 952000}, GYRO {14900, 59500, 119000, 238000, 476000, 952000};
# sampling_frequency is IIO_VAL_INT_PLUS_MICRO ("10.000000"), the _available
# list "%d.%03d " ("10.000 50.000 ...").  st_lsm6dsx_alloc_iiodev: odr and gain
# start at odr_avl[0] and fs_avl[0].  st_lsm6dsx_write_raw / check_odr: a
# written rate becomes the first ODR >= it (EINVAL above the last).
LSM9DS1_ACCEL_RATES = [10.0, 50.0, 119.0, 238.0, 476.0, 952.0]
LSM9DS1_GYRO_RATES = [14.9, 59.5, 119.0, 238.0, 476.0, 952.0]
LSM6DSX_RATE_WRITE_RULE = "the first available rate >= the written one (st_lsm6dsx_check_odr)"
# st_lsm6dsx_core.c LSM9DS1 fs_table, gains in nano-units (IIO_VAL_INT_PLUS_NANO,
# st_lsm6dsx_sysfs_scale_avail "0.%09u "): ACC IIO_G_TO_M_S_2(61000, 122000,
# 244000, 732000) = 598205, 1196411, 2392822, 7178467 (+-2/4/8/16 g; the 16 g
# step is 0.732 mg/LSB on this chip); GYRO IIO_DEGREE_TO_RAD(8750000, 17500000,
# 70000000) = 152716, 305432, 1221729 (245/500/2000 dps; fs_len 3).
# include/linux/iio/iio.h: IIO_G_TO_M_S_2(g) = g * 980665 / 100000,
# IIO_DEGREE_TO_RAD(d) = (d * 314159 + 9000000) / 18000000 (integer division).
LSM9DS1_ACCEL_SCALES = [0.000598205, 0.001196411, 0.002392822, 0.007178467]
LSM9DS1_GYRO_SCALES = [0.000152716, 0.000305432, 0.001221729]
LSM9DS1_IMU_NAME = "lsm9ds1-imu"


def _lsm6dsx(dev_id, kind, matrix):
    ctype, rates, scales = (("accel", LSM9DS1_ACCEL_RATES, LSM9DS1_ACCEL_SCALES)
                            if kind == "accel" else
                            ("anglvel", LSM9DS1_GYRO_RATES, LSM9DS1_GYRO_SCALES))
    # st_lsm6dsx.h ST_LSM6DSX_CHANNEL(_ACC): scan 0..2 le:s16/16>>0, timestamp 3
    # (only in the untriggered buffer); SCALE shared by type: in_<type>_scale.
    chans = [ChanSpec(ctype, a, i) for i, a in enumerate("xyz")]
    chans.append(ChanSpec("timestamp", None, 3, "le:s64/64>>0"))
    return {"id": dev_id, "name": "%s_%s" % (LSM9DS1_IMU_NAME, kind), "buffered": True,
            "needs_trigger": True, "trigger": None,
            "chrdev": (244, int(dev_id[-1])), "channels": chans,
            "raw_read_periods": 3.5, "raw_follows_rate": True,
            "scales": {ctype: {"attr": "in_%s_scale" % ctype, "value": scales[0],
                               "available": scales, "fmt": fmt_nano}},
            "offsets": {},
            "rate": {"default": rates[0], "available": rates, "fmt": fmt_micro,
                     "available_fmt": fmt_milli, "write": "at_least",
                     "write_rule": LSM6DSX_RATE_WRITE_RULE},
            # st_lsm6dsx.h st_lsm6dsx_ext_info: IIO_MOUNT_MATRIX(IIO_SHARED_BY_ALL)
            # on accel and gyro channels alike: "mount_matrix" on each device.
            "matrices": [("mount_matrix", matrix, [ctype])]}


# ---- drivers/iio/magnetometer/st_magn_core.c (LIS3MDL, LSM9DS1 magn) -------
# st_magn_sensors_settings, the .wai = 0x3d entry (LIS3MDL_MAGN_DEV_NAME
# "lis3mdl", LSM9DS1_MAGN_DEV_NAME "lsm9ds1_magn"): odr_avl .hz 1, 2, 3, 5,
# 10, 20, 40, 80 (st_sensors_sysfs_sampling_frequency_avail "%d "; read_raw
# SAMP_FREQ is IIO_VAL_INT; st_sensors_set_odr takes only an exact listed
# value, else EINVAL); fs_avl gain 146/292/438/584 ugauss/LSB (4/8/12/16 G;
# read_raw SCALE is IIO_VAL_INT_PLUS_MICRO; st_sensors_sysfs_scale_avail
# "0.%06u").  st_magn_common_probe starts at odr_avl[0] (1 Hz) and fs_avl[0].
ST_MAGN_RATES = [1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 40.0, 80.0]
ST_MAGN_SCALES = [0.000146, 0.000292, 0.000438, 0.000584]
ST_MAGN_RATE_WRITE_RULE = "exactly one of the available rates, else EINVAL (st_sensors_set_odr)"


def _st_magn(dev_id, name, matrix, irq=False, chrdev=None, trigger_id="trigger0"):
    """st_magn: st_magn_common_probe always allocates the triggered buffer
    (st_magn_allocate_ring) and a trigger "%s-trigger" only with an IRQ
    (st_sensors_allocate_trigger).  With irq=True: buffered, trigger
    "<name>-trigger".  Without: a buffer that needs a trigger (module
    docstring), so HeadsUp polls it.  st_sensors_read_info_raw: enable,
    msleep(bootime * 1000 / odr) (bootime 2 for these parts), read, disable."""
    # st_magn_2_16bit_channels: ST_SENSORS_LSM_CHANNELS_EXT(..., 's', IIO_LE,
    # 16, 16, ...) scan 0..2, IIO_CHAN_SOFT_TIMESTAMP(3).  The macro puts SCALE
    # in info_mask_separate: in_magn_x_scale, _y_, _z_ (one value for all three
    # on this chip, gain2 = 0), plus one device attribute
    # in_magn_scale_available; writing any axis's scale sets the full scale of
    # all three.  fake_iio cannot show a shared _available for per-axis
    # scales, so the axes are read-only here.
    scales = {"magn_" + a: {"attr": "in_magn_%s_scale" % a, "value": ST_MAGN_SCALES[0],
                            "available": None, "fmt": fmt_micro} for a in "xyz"}
    chans = [ChanSpec("magn", a, i, "le:s16/16>>0") for i, a in enumerate("xyz")]
    chans.append(ChanSpec("timestamp", None, 3, "le:s64/64>>0"))
    trigger = {"id": trigger_id, "name": name + "-trigger"} if irq else None
    return {"id": dev_id, "name": name, "buffered": True, "needs_trigger": not irq,
            "trigger": trigger, "chrdev": chrdev or (244, int(dev_id[-1])), "channels": chans,
            "scales": scales, "offsets": {},
            "raw_read_periods": 2.0, "raw_follows_rate": True,
            "rate": {"default": 1.0, "available": ST_MAGN_RATES, "fmt": fmt_int,
                     "available_fmt": fmt_int, "write": "exact",
                     "write_rule": ST_MAGN_RATE_WRITE_RULE},
            # st_magn_core.c st_magn_mount_matrix_ext_info:
            # IIO_MOUNT_MATRIX(IIO_SHARED_BY_ALL) = "mount_matrix".
            "matrices": [("mount_matrix", matrix, ["magn"])]}


# iio_read_mount_matrix (industrialio-core.c) falls back to the identity when
# the DT node has no mount-matrix property.
IDENTITY = ((1, 0, 0), (0, 1, 0), (0, 0, 1))

# arch/arm64/boot/dts/allwinner/sun50i-a64-pinephone.dtsi (all revisions),
# &i2c1: accelerometer@68 "invensense,mpu6050", interrupts PH5
# IRQ_TYPE_EDGE_RISING, mount-matrix "0", "1", "0", "-1", "0", "0", "0", "0", "1".
PINEPHONE_MPU_MATRIX = ((0, 1, 0), (-1, 0, 0), (0, 0, 1))
# Same file: lis3mdl: magnetometer@1e "st,lis3mdl-magn", no mount-matrix
# (identity) and no interrupts.  sun50i-a64-pinephone-1.1.dts adds nothing to
# it; sun50i-a64-pinephone-1.2.dts adds interrupts PB1 IRQ_TYPE_EDGE_RISING
# ("Board revision 1.2 fixed routing of the interrupt to DRDY pin"), so on a
# 1.2 the lis3mdl is buffered with trigger "lis3mdl-trigger":
# _st_magn("iio:device1", "lis3mdl", IDENTITY, irq=True, chrdev=(244, 1),
# trigger_id="trigger1").  The AF8133J of the 1.2b boards (af8133j.c) is not
# described in the mainline dts files in the index (a 2024 patch adds it to
# sun50i-a64-pinephone.dtsi, status "disabled", fixed up by U-Boot): not
# modelled.
PINEPHONE_MAGN_MATRIX = IDENTITY
# arch/arm64/boot/dts/rockchip/rk3399-pinephone-pro.dts, &i2c4: mpu6500@68
# "invensense,mpu6500", interrupts RK_PC6 IRQ_TYPE_LEVEL_LOW, no mount-matrix
# (identity).  No magnetometer node (2025 patches adding the AF8133J as
# compass@1c on &i2c4 are not in the file in the index).
PINEPHONE_PRO_MATRIX = IDENTITY
# arch/arm64/boot/dts/freescale/imx8mq-librem5.dtsi, &i2c2: accel_gyro:
# accel-gyro@6a "st,lsm9ds1-imu", no interrupts; magnetometer@1e
# "st,lsm9ds1-magn", interrupts gpio3 22 IRQ_TYPE_LEVEL_HIGH, no mount-matrix
# (identity).  imx8mq-librem5-r3.dtsi (r3 "Dogwood", included by r4
# "Evergreen") sets &accel_gyro mount-matrix "1", "0", "0", "0", "1", "0",
# "0", "0", "-1"; imx8mq-librem5-r2.dts has "1", "0", "0", "0", "-1", "0",
# "0", "0", "1" instead.  Modelled: r4.
LIBREM5_IMU_MATRIX = ((1, 0, 0), (0, 1, 0), (0, 0, -1))
LIBREM5_MAGN_MATRIX = IDENTITY

PROFILES = {
    "pinephone": lambda: [
        _inv_mpu("iio:device0", "mpu6050", PINEPHONE_MPU_MATRIX),
        _st_magn("iio:device1", "lis3mdl", PINEPHONE_MAGN_MATRIX)],
    "pinephone_pro": lambda: [
        _inv_mpu("iio:device0", "mpu6500", PINEPHONE_PRO_MATRIX)],
    # Device numbers follow probe order, which the sources do not fix.
    "librem5": lambda: [
        _lsm6dsx("iio:device0", "accel", LIBREM5_IMU_MATRIX),
        _lsm6dsx("iio:device1", "gyro", LIBREM5_IMU_MATRIX),
        _st_magn("iio:device2", "lsm9ds1_magn", LIBREM5_MAGN_MATRIX, irq=True,
                 chrdev=(244, 2))],
    # Raspberry Pi + MPU-9250 breakout: no overlay in raspberrypi/linux
    # describes an MPU-9250 (arch/arm/boot/dts/overlays/mpu6050-overlay.dts is
    # "invensense,mpu6050" with interrupts <4 1>, GPIO4 rising; a 9250 behind
    # it probes as "mpu6050" with a whoami warning and no magnetometer).
    # Modelled: a user overlay like that one with "invensense,mpu9250", INT on
    # a GPIO, no mount-matrix (identity).
    "rpi_mpu9250": lambda: [
        _inv_mpu("iio:device0", "mpu9250", IDENTITY, with_magn=True)],
    # Sense HAT: raspberrypi/linux arch/arm/boot/dts/overlays/rpi-sense-overlay.dts
    # (the HAT's own overlay) has lsm9ds1-magn@1c "st,lsm9ds1-magn" and
    # lsm9ds1-accel6a "st,lsm9ds1-accel", neither with interrupts nor
    # mount-matrix; the only interrupt is the joystick's GPIO23.  No mainline
    # driver matches "st,lsm9ds1-accel" (st_lsm6dsx wants "st,lsm9ds1-imu";
    # st_accel_i2c.c lists no LSM9DS1), so with that overlay alone only
    # lsm9ds1_magn appears.  Modelled: a user overlay with 0x6a as
    # "st,lsm9ds1-imu" (accel + gyro through st_lsm6dsx), identity matrices,
    # everything polled.
    "sense_hat": lambda: [
        _lsm6dsx("iio:device0", "accel", IDENTITY),
        _lsm6dsx("iio:device1", "gyro", IDENTITY),
        _st_magn("iio:device2", "lsm9ds1_magn", IDENTITY)],
    # The Sense HAT with only its own overlay: the magnetometer alone.
    "sense_hat_stock": lambda: [
        _st_magn("iio:device0", "lsm9ds1_magn", IDENTITY)],
}
PROFILE_HELP = {
    "pinephone": "PinePhone 1.1: mpu6050 buffered (IRQ, trigger mpu6050-dev0) + lis3mdl polled",
    "pinephone_pro": "PinePhone Pro: mpu6500 buffered (IRQ); no magnetometer in mainline",
    "librem5": "Librem 5 r4: lsm9ds1-imu_accel, lsm9ds1-imu_gyro polled (no IRQ);"
               " lsm9ds1_magn buffered (IRQ, trigger lsm9ds1_magn-trigger)",
    "rpi_mpu9250": "Raspberry Pi + MPU-9250: one buffered device with accel, gyro, magn at 50 Hz",
    "sense_hat": "Raspberry Pi Sense HAT with an st,lsm9ds1-imu overlay:"
                 " accel, gyro, magn, all polled",
    "sense_hat_stock": "Raspberry Pi Sense HAT with only rpi-sense-overlay: lsm9ds1_magn alone (no accelerometer driver)",
}
