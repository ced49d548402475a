#!/usr/bin/python3
"""Drives the REAL libiio 0.24 (libiio.so.0, through ctypes) against the fake
kernel and records what a long-lived reader observes.  Run inside
run_in_fake_kernel.sh; prints one JSON object.  Used by selftest.sh; the
observations are the facts the Swift reader has to cope with.

  libiio_probe.py stream  [--uri URI] [--device bmi160] [--rate 50] [--samples 26]
      set sampling_frequency, stream through iio_buffer_refill, decode with
      iio_buffer_first/step, report values and timestamps.
  libiio_probe.py unplug  [--uri URI]
      open a buffer on bmi160, refill, unplug iio:device0 through
      $FAKE_IIO_CONTROL, and record: refill result and duration, attribute
      reads on the old context, iio_device_create_buffer while unplugged and
      after replug (old context), and a fresh context after replug.
"""
import argparse
import ctypes
import json
import os
import struct
import sys
import time

lib = ctypes.CDLL("libiio.so.0", use_errno=True)
P = ctypes.c_void_p


def fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


create_ctx = fn("iio_create_context_from_uri", P, ctypes.c_char_p)
destroy_ctx = fn("iio_context_destroy", None, P)
set_timeout = fn("iio_context_set_timeout", ctypes.c_int, P, ctypes.c_uint)
find_dev = fn("iio_context_find_device", P, P, ctypes.c_char_p)
dev_count = fn("iio_context_get_devices_count", ctypes.c_uint, P)
find_chn = fn("iio_device_find_channel", P, P, ctypes.c_char_p, ctypes.c_bool)
chn_enable = fn("iio_channel_enable", None, P)
create_buf = fn("iio_device_create_buffer", P, P, ctypes.c_size_t, ctypes.c_bool)
destroy_buf = fn("iio_buffer_destroy", None, P)
refill = fn("iio_buffer_refill", ctypes.c_ssize_t, P)
buf_start = fn("iio_buffer_start", P, P)
buf_end = fn("iio_buffer_end", P, P)
buf_step = fn("iio_buffer_step", ctypes.c_ssize_t, P)
buf_first = fn("iio_buffer_first", P, P, P)
set_blocking = fn("iio_buffer_set_blocking_mode", ctypes.c_int, P, ctypes.c_bool)
dev_attr_read = fn("iio_device_attr_read", ctypes.c_ssize_t, P, ctypes.c_char_p,
                   ctypes.c_char_p, ctypes.c_size_t)
dev_attr_write = fn("iio_device_attr_write", ctypes.c_ssize_t, P, ctypes.c_char_p,
                    ctypes.c_char_p)
chn_attr_read = fn("iio_channel_attr_read", ctypes.c_ssize_t, P, ctypes.c_char_p,
                   ctypes.c_char_p, ctypes.c_size_t)
sample_size = fn("iio_device_get_sample_size", ctypes.c_ssize_t, P)


def read_attr(dev, name):
    b = ctypes.create_string_buffer(1024)
    r = dev_attr_read(dev, name.encode(), b, 1024)
    return b.value.decode() if r > 0 else r


def read_chn_attr(chn, name):
    b = ctypes.create_string_buffer(1024)
    r = chn_attr_read(chn, name.encode(), b, 1024)
    return b.value.decode() if r > 0 else r


def control(cmd):
    with open(os.environ["FAKE_IIO_CONTROL"], "w") as f:
        f.write(cmd + "\n")


def open_ctx(uri, timeout_ms):
    ctx = create_ctx(uri.encode())
    if not ctx:
        raise SystemExit("cannot create context %s: errno %d" % (uri, ctypes.get_errno()))
    set_timeout(ctx, timeout_ms)
    return ctx


def make_buffer(ctx, devname, channels, samples):
    dev = find_dev(ctx, devname.encode())
    if not dev:
        return None, None, {}, "device not found"
    chans = {}
    for c in channels:
        ch = find_chn(dev, c.encode(), False)
        chn_enable(ch)
        chans[c] = ch
    ctypes.set_errno(0)
    buf = create_buf(dev, samples, False)
    if not buf:
        return dev, None, chans, -ctypes.get_errno()
    return dev, buf, chans, None


def decode(buf, chans):
    """Per sample: {channel: int} via iio_buffer_first / iio_buffer_step."""
    start, end, step = buf_start(buf), buf_end(buf), buf_step(buf)
    firsts = {c: buf_first(buf, ch) for c, ch in chans.items()}
    out = []
    n = (end - start) // step
    for i in range(n):
        s = {}
        for c, p in firsts.items():
            addr = p + i * step
            if c == "timestamp":
                s[c] = ctypes.c_int64.from_address(addr).value
            else:
                s[c] = ctypes.c_int16.from_address(addr).value
        out.append(s)
    return out


def cmd_stream(a):
    ctx = open_ctx(a.uri, 5000)
    dev = find_dev(ctx, a.device.encode())
    res = {"uri": a.uri}
    if a.rate is not None:
        r = dev_attr_write(dev, b"sampling_frequency", str(a.rate).encode())
        res["write_rate"] = {"requested": a.rate, "ret": r,
                             "read_back": read_attr(dev, "sampling_frequency")}
    chans = a.channels.split(",")
    dev, buf, chmap, err = make_buffer(ctx, a.device, chans, a.buffer)
    if err is not None:
        res["error"] = err
        print(json.dumps(res))
        return 1
    res["sample_size"] = sample_size(dev)
    samples, refills = [], []
    t0 = time.monotonic()
    while len(samples) < a.samples:
        r = refill(buf)
        refills.append(r)
        if r < 0:
            break
        samples += decode(buf, chmap)
    res["refills"] = refills
    res["elapsed_s"] = round(time.monotonic() - t0, 3)
    res["samples"] = samples[:a.samples]
    # nonblocking mode: a refill that cannot be satisfied at once
    set_blocking(buf, False)
    res["nonblocking_refill"] = refill(buf)
    destroy_buf(buf)
    destroy_ctx(ctx)
    print(json.dumps(res))
    return 0


def cmd_unplug(a):
    res = {"uri": a.uri}
    ctx = open_ctx(a.uri, a.timeout_ms)
    chans = ["accel_x", "accel_y", "accel_z", "timestamp"]
    dev, buf, chmap, err = make_buffer(ctx, "bmi160", chans, 13)
    res["refill_before"] = [refill(buf) for _ in range(2)]
    control("unplug iio:device0")          # stays away until "replug"
    t = time.monotonic()
    res["refill_after_unplug"] = refill(buf)
    res["refill_after_unplug_s"] = round(time.monotonic() - t, 3)
    t = time.monotonic()
    res["refill_again"] = refill(buf)
    res["refill_again_s"] = round(time.monotonic() - t, 3)
    res["attr_read_sampling_frequency"] = read_attr(dev, "sampling_frequency")
    res["chn_attr_read_accel_x_scale"] = read_chn_attr(chmap["accel_x"], "scale")
    t = time.monotonic()
    destroy_buf(buf)
    res["destroy_buffer_s"] = round(time.monotonic() - t, 3)
    _d, buf2, _c, err = make_buffer(ctx, "bmi160", chans, 13)
    res["create_buffer_while_unplugged"] = "ok" if buf2 else err
    if buf2:
        destroy_buf(buf2)
    ctx_new = create_ctx(a.uri.encode())
    res["new_context_while_unplugged"] = (
        {"devices": dev_count(ctx_new), "bmi160": bool(find_dev(ctx_new, b"bmi160"))}
        if ctx_new else -ctypes.get_errno())
    if ctx_new:
        destroy_ctx(ctx_new)
    control("replug iio:device0")
    time.sleep(0.1)
    # the OLD context again (same device id and paths after replug)
    _d, buf3, chmap3, err = make_buffer(ctx, "bmi160", chans, 13)
    if buf3:
        r = refill(buf3)
        res["old_context_after_replug"] = {"refill": r, "first": decode(buf3, chmap3)[0]
                                           if r > 0 else None}
        destroy_buf(buf3)
    else:
        res["old_context_after_replug"] = {"create_buffer": err}
    res["attr_read_after_replug"] = read_attr(dev, "sampling_frequency")
    destroy_ctx(ctx)
    ctx = open_ctx(a.uri, a.timeout_ms)
    _d, buf4, chmap4, err = make_buffer(ctx, "bmi160", chans, 13)
    r = refill(buf4) if buf4 else err
    res["new_context_after_replug"] = {"refill": r}
    if buf4:
        destroy_buf(buf4)
    destroy_ctx(ctx)
    print(json.dumps(res))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stream")
    s.add_argument("--uri", default=os.environ.get("FAKE_IIO_URI", "local:"))
    s.add_argument("--device", default="bmi160")
    s.add_argument("--channels", default="accel_x,accel_y,accel_z,timestamp")
    s.add_argument("--rate", type=float)
    s.add_argument("--buffer", type=int, default=13)
    s.add_argument("--samples", type=int, default=26)
    u = sub.add_parser("unplug")
    u.add_argument("--uri", default=os.environ.get("FAKE_IIO_URI", "local:"))
    u.add_argument("--timeout-ms", type=int, default=1000)
    a = p.parse_args()
    return {"stream": cmd_stream, "unplug": cmd_unplug}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
