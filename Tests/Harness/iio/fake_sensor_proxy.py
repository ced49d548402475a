#!/usr/bin/python3
"""A stand-in for iio-sensor-proxy's accelerometer drivers, for tests in the
fake kernel (run it inside run_in_fake_kernel.sh beside the command tested).

It cycles as iio-sensor-proxy 3.9 does (src/drv-iio-buffer-accel.c,
src/drv-iio-poll-accel.c, src/iio-buffer-utils.c):

  buffer: enable every accel scan element and the timestamp, buffer/length=128,
          buffer/enable=1; then every 700 ms open /dev/iio:deviceN O_NONBLOCK,
          read up to 127 scans, close it. buffer/enable=0 on release.
  poll:   read in_accel_{x,y,z}_raw every 700 ms.

and counts what it is served and what is refused (EBUSY and others), so a
test can check that HeadsUp never starves it. SIGUSR1 releases the sensor
(as Phosh does when the screen blanks), SIGUSR2 claims it again, SIGTERM
releases and exits. The counters are written to --stats after every cycle
(JSON, replaced atomically), and once more at exit.

    fake_sensor_proxy.py --mode buffer|poll [--device iio:device0]
                         [--period 0.7] --stats FILE [--ready FILE] [--lifetime 600]
"""

import argparse
import errno
import json
import os
import signal
import sys
import time

SYS = "/sys/bus/iio/devices"


class Proxy:
    def __init__(self, args):
        self.args = args
        self.dir = os.path.join(SYS, args.device)
        self.claimed = True
        self.buffer_on = False
        self.stop = False
        self.stats = {"mode": args.mode, "device": args.device, "cycles": 0, "reads_served": 0,
                      "bytes_read": 0, "refused": {}, "claimed": True, "buffer_on": False,
                      "claims": 0, "releases": 0}

    def refused(self, what, error):
        key = "%s %s" % (what, errno.errorcode.get(error.errno, str(error.errno)))
        self.stats["refused"][key] = self.stats["refused"].get(key, 0) + 1

    def write(self, attribute, value):
        with open(os.path.join(self.dir, attribute), "w") as f:
            f.write(value)

    def read(self, attribute):
        with open(os.path.join(self.dir, attribute)) as f:
            return f.read().strip()

    # ---- buffer driver -----------------------------------------------------
    def claim_buffer(self):
        """iio_fixup_sampling_frequency / enable_sensors / build_channel_array:
        every accel scan element and the timestamp on, length 128, enable 1."""
        try:
            scan = os.path.join(self.dir, "scan_elements")
            for name in sorted(os.listdir(scan)):
                if name.endswith("_en") and (name.startswith("in_accel") or name == "in_timestamp_en"):
                    self.write(os.path.join("scan_elements", name), "1")
            self.write("buffer/length", "128")
            self.write("buffer/enable", "1")
            self.buffer_on = True
        except OSError as e:
            self.refused("enable", e)

    def release_buffer(self):
        if self.buffer_on:
            try:
                self.write("buffer/enable", "0")
            except OSError as e:
                self.refused("disable", e)
            self.buffer_on = False

    def buffer_cycle(self):
        if not self.buffer_on:
            self.claim_buffer()
            if not self.buffer_on:
                return
        try:
            fd = os.open("/dev/" + self.args.device, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as e:
            self.refused("open", e)
            return
        try:
            data = os.read(fd, 127 * 64)
            self.stats["reads_served"] += 1
            self.stats["bytes_read"] += len(data)
        except BlockingIOError:
            self.stats["reads_served"] += 1       # served, nothing queued yet
        except OSError as e:
            self.refused("read", e)
        finally:
            os.close(fd)

    # ---- poll driver -------------------------------------------------------
    def poll_cycle(self):
        try:
            for axis in "xyz":
                int(self.read("in_accel_%s_raw" % axis))
            self.stats["reads_served"] += 1
        except OSError as e:
            self.refused("raw", e)

    # ---- main loop ---------------------------------------------------------
    def save(self):
        self.stats.update(claimed=self.claimed, buffer_on=self.buffer_on)
        tmp = self.args.stats + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.stats, f)
        os.replace(tmp, self.args.stats)

    def run(self):
        # A parent may hand down blocked signals (Foundation's Process does):
        # unblock them, or SIGTERM and SIGUSR1/2 would never arrive.
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stop", True))
        signal.signal(signal.SIGINT, lambda *_: setattr(self, "stop", True))
        signal.signal(signal.SIGUSR1, lambda *_: setattr(self, "claimed", False))
        signal.signal(signal.SIGUSR2, lambda *_: setattr(self, "claimed", True))
        self.stats["claims"] = 1
        if self.args.mode == "buffer":
            self.claim_buffer()
        self.save()
        if self.args.ready:
            open(self.args.ready, "w").close()
        deadline = time.monotonic()
        was_claimed = True
        end = time.monotonic() + self.args.lifetime
        while not self.stop and time.monotonic() < end:
            if self.claimed != was_claimed:
                was_claimed = self.claimed
                self.stats["claims" if self.claimed else "releases"] += 1
                if not self.claimed:
                    self.release_buffer()
            if self.claimed:
                self.stats["cycles"] += 1
                if self.args.mode == "buffer":
                    self.buffer_cycle()
                else:
                    self.poll_cycle()
            self.save()
            deadline += self.args.period
            time.sleep(max(0.0, deadline - time.monotonic()))
        self.release_buffer()
        self.save()
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("buffer", "poll"), required=True)
    parser.add_argument("--device", default="iio:device0")
    parser.add_argument("--period", type=float, default=0.7)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--ready", help="created once the sensor is claimed")
    parser.add_argument("--lifetime", type=float, default=600, help="exit after this many seconds (a guard for tests)")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(SYS, args.device)):
        print("fake-sensor-proxy: no %s/%s (run it in the fake kernel)" % (SYS, args.device), file=sys.stderr)
        return 2
    return Proxy(args).run()


if __name__ == "__main__":
    sys.exit(main())
