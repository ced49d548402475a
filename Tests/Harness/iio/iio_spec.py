"""The vocabulary device descriptions are written in, shared by fake_iio.py's
own scenarios and profiles.py's phones and boards: a channel (ChanSpec) and
the two ways drivers print values (IIO_VAL_INT_PLUS_NANO / _MICRO)."""


def fmt_nano(v):
    return "%.9f" % v


def fmt_micro(v):
    return "%.6f" % v


class ChanSpec:
    """One channel: type ("accel"...) + axis, or the timestamp."""

    def __init__(self, ctype, axis=None, index=None, fmt="le:s16/16>>0"):
        self.ctype, self.axis, self.index, self.fmt = ctype, axis, index, fmt
        self.id = ctype if axis is None else "%s_%s" % (ctype, axis)   # libiio channel id
        self.prefix = "in_" + self.id                                     # sysfs prefix
        self.is_timestamp = ctype == "timestamp"
        # le:s16/16>>0 -> endian, signed, realbits, storagebits, shift
        endian, rest = fmt.split(":")
        sign, rest = rest[0], rest[1:]
        bits, rest = rest.split("/")
        storage, shift = rest.split(">>")
        self.big_endian = endian == "be"
        self.signed = sign in "sS"
        self.realbits, self.storagebits, self.shift = int(bits), int(storage), int(shift)
        self.nbytes = self.storagebits // 8
        half = 1 << (self.realbits - 1)
        self.raw_range = (-half, half - 1) if self.signed else (0, 2 * half - 1)
