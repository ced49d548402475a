#!/usr/bin/python3
"""A crowded street for the BlueZ mock: N Bluetooth devices of mixed kinds
advertising at a total rate, their addresses rotating, for a bounded time,
on a private bus only.

    bluez_crowd.py [--devices N] [--rate ADV_PER_S] [--seconds S]
                   [--rotate SECONDS] [--remove-fraction F] [--linger SECONDS]
                   [--walker UUID:MAJOR:MINOR] [--walker-rate HZ] [--walker-cycle S]
                   [--start-mock | --attach] [--wait] [--start-after S]
                   [--progress] [--seed N] [--exclude-uuid UUID ...]
                   [--rssi-only] [--one-at-a-time] [--monitor]

The bus is DBUS_SYSTEM_BUS_ADDRESS, and it must be a private one (a unix
socket that is not the machine's system bus, or TCP on loopback): the script
refuses the real system bus. The devices live in python-dbusmock playing
bluetoothd (org.bluez): with --start-mock the script starts that mock and
its adapter itself (as bluez_scenario.py does), with --attach (the default)
it joins the one already on the bus (bluez_scenario.py's "crowd" step does
that), and survives it leaving and returning (a "restart" step): its
devices are added again.

What a listener sees is what bluetoothd sends with DuplicateData on:
InterfacesAdded for each new address (org.bluez.Device1 with Address,
AddressType, RSSI and ManufacturerData or ServiceData), one PropertiesChanged
per advertisement carrying RSSI and the advertised data, and
InterfacesRemoved when bluetoothd drops a device. To keep the mock's
per-call overhead small, the script installs three methods on the mock's
root object (interface org.headsup.test.Crowd: Appear, Advertise, Vanish,
each taking a batch) and sends the advertisements due every tick (5 ms) in
one call; every signal still comes from org.bluez, one per device.

Two options make it look like a plain bluetoothd instead: --rssi-only
sends PropertiesChanged with RSSI alone after a device's InterfacesAdded
(bluetoothd without DuplicateData, or a payload that did not change, sends
no ManufacturerData again), and --one-at-a-time makes each advertisement
its own call, sent at its own time (1/rate apart), so a listener receives
the signals one by one instead of in bursts of a tick's worth.

The crowd (the kinds' shares of N, rounded; each device keeps its kind):
  25 %  iBeacons of other venues' UUIDs (a pool of 16, never --exclude-uuid)
  10 %  Eddystone: UID frames of random namespaces, every third a TLM frame
  25 %  phones: Apple Continuity "nearby info" (company 0x004C, type 0x10)
  15 %  earbuds: Apple proximity pairing (0x004C, type 0x07, 25 bytes)
  10 %  Samsung phones (company 0x0075)
   5 %  Windows Swift Pair (company 0x0006)
  10 %  watches and trackers (Garmin, company 0x0087)
Only the first two kinds carry beacon frames (and a third of the Eddystone
advertisements do not). Each advertisement goes to a device drawn at
random, so the total is --rate a second whatever N is; RSSI wanders around
a per-device level between -95 and -60 dBm.

Rotation (--rotate L, 0 = never): each address lives L seconds on average
(L/2 to 3L/2; the first ones are staggered), then is replaced by a new
address of the same kind. A retired address is removed at once
(InterfacesRemoved) with probability --remove-fraction, otherwise it just
goes silent and bluetoothd drops it --linger seconds later (30 s, its
TemporaryTimeout; a negative value keeps it). N·seconds/L new addresses in
all.

Walker (--walker UUID:MAJOR:MINOR): the beacon a pedestrian walks past,
--walker-rate advertisements a second (10), RSSI a triangle from -95 up to
-55 dBm and back every --walker-cycle seconds (20), never rotating. With
--devices 0 it is the walk-by baseline.

Advertisement monitor (--monitor, with --wait): bluetoothd with an
or_patterns monitor registered scans passively and creates, updates and
removes Device1 objects only for devices whose advertising data matches a
pattern. With --attach, the stdin line that starts the crowd carries the
patterns as JSON after "go" ([[start, ad_type, [bytes]], ...], what the
client registered; bluez_scenario.py sends them); with --start-mock the
adapter offers AdvertisementMonitorManager1 and this script activates the
client's monitor itself while it waits for the line. Until then nothing is on the bus, and after it every Appear,
Advertise and Vanish of a device that matches none is dropped here (counted
as "filtered"), so the crowd sends no D-Bus traffic at all.

Protocol: prints "READY" once the initial devices are on the bus; with
--wait, then waits for a line on stdin. Advertising starts --start-after
seconds later and lasts --seconds. With --progress, one JSON line a second
{"t": CLOCK_MONOTONIC, "sent": advertisements so far, ...}; at the end one
{"crowd": {...}} line with the totals, the rate achieved, the largest
backlog (advertisements due but not yet sent at a tick), failed calls
("errors") and the advertisements not delivered while org.bluez was away
("lost").
"""
import argparse
import collections
import heapq
import json
import os
import random
import select
import signal
import sys
import time
import uuid as uuidlib

import dbus

ADAPTER = "/org/bluez/hci0"
DEVICE = "org.bluez.Device1"
MOCK = "org.freedesktop.DBus.Mock"
OM = "org.freedesktop.DBus.ObjectManager"
CROWD = "org.headsup.test.Crowd"
EDDYSTONE = "0000feaa-0000-1000-8000-00805f9b34fb"
SYSTEM_SOCKETS = ("/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket")

# Python run inside the mock (dbusmock's AddMethod): "self" is the root
# object, "objects" every mock object by path, "args" the call's arguments.
APPEAR = """
for path, props in args[0]:
    if path in objects:
        continue
    self.AddObject(path, 'org.bluez.Device1', props, [])
    self.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesAdded', 'oa{sa{sv}}',
                    [path, dbus.Dictionary({'org.bluez.Device1': props}, signature='sa{sv}')])
self.call_log.clear()
"""
ADVERTISE = """
for path, props in args[0]:
    device = objects.get(path)
    if device is None:
        continue
    device.props['org.bluez.Device1'].update(props)
    device.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as',
                      ['org.bluez.Device1', props, dbus.Array([], signature='s')])
self.call_log.clear()
"""
VANISH = """
for path in args[0]:
    if path not in objects:
        continue
    self.RemoveObject(path)
    self.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', 'oas',
                    [path, dbus.Array(['org.bluez.Device1'], signature='s')])
self.call_log.clear()
"""

KINDS = [  # (kind, share of N)
    ("ibeacon", 0.25), ("eddystone", 0.10), ("phone", 0.25), ("earbuds", 0.15),
    ("samsung", 0.10), ("swiftpair", 0.05), ("watch", 0.10),
]


def check_private_bus():
    address = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS", "")
    if not address:
        raise SystemExit("bluez_crowd.py: DBUS_SYSTEM_BUS_ADDRESS is not set; run it on a private dbus-daemon, never the system bus")
    for part in address.split(";"):
        transport, _, rest = part.partition(":")
        keys = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)
        if transport == "unix" and keys.get("path") in SYSTEM_SOCKETS:
            raise SystemExit(f"bluez_crowd.py: {address} is the system bus; refusing (private bus only)")
        if transport == "tcp" and keys.get("host") not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"bluez_crowd.py: {address} is not on loopback; refusing")
        if transport not in ("unix", "tcp"):
            raise SystemExit(f"bluez_crowd.py: unsupported bus address {address}")


def kinds_for(count, rng):
    """Each kind's share of `count` (largest remainders), shuffled."""
    exact = [(kind, share * count) for kind, share in KINDS]
    counts = {kind: int(value) for kind, value in exact}
    rest = count - sum(counts.values())
    for kind, value in sorted(exact, key=lambda e: e[1] - int(e[1]), reverse=True)[:rest]:
        counts[kind] += 1
    kinds = [kind for kind, _ in KINDS for _ in range(counts[kind])]
    rng.shuffle(kinds)
    return kinds


def byte_array(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature="y")


def manufacturer(company, data):
    return dbus.Dictionary({dbus.UInt16(company): byte_array(data)}, signature="qv")


def ibeacon_bytes(uuid, major, minor, power=-59):
    return bytes([0x02, 0x15]) + uuidlib.UUID(uuid).bytes + major.to_bytes(2, "big") + minor.to_bytes(2, "big") + (power & 0xFF).to_bytes(1, "big")


class Device:
    """One address: its kind, path, level and the data it advertises."""

    def __init__(self, kind, address, rng, venue_uuids):
        self.kind = kind
        self.address = address
        self.path = f"{ADAPTER}/dev_{address.replace(':', '_')}"
        self.level = rng.uniform(-95, -60)
        self.count = 0
        self.expires = float("inf")
        r = lambda n: bytes(rng.randrange(256) for _ in range(n))  # noqa: E731
        self.data_key = "ManufacturerData"
        if kind == "ibeacon":
            self.data = manufacturer(0x004C, ibeacon_bytes(rng.choice(venue_uuids), rng.randrange(1, 200), rng.randrange(65536)))
        elif kind == "eddystone":
            self.data_key = "ServiceData"
            uid = bytes([0x00, 0xEE]) + r(10) + r(6) + bytes(2)
            tlm = bytes([0x20, 0x00, 0x0B, 0xB8, 0x17, 0x00]) + r(4) + r(4)
            self.frames = [dbus.Dictionary({EDDYSTONE: byte_array(uid)}, signature="sv"),
                           dbus.Dictionary({EDDYSTONE: byte_array(tlm)}, signature="sv")]
            self.data = self.frames[0]
        elif kind == "phone":
            self.data = manufacturer(0x004C, bytes([0x10, 0x05, 0x01 | (rng.randrange(8) << 4)]) + r(4))
        elif kind == "earbuds":
            self.data = manufacturer(0x004C, bytes([0x07, 0x19, 0x01, 0x0E, 0x20]) + r(22))
        elif kind == "samsung":
            self.data = manufacturer(0x0075, bytes([0x42, 0x09, 0x81, 0x02, 0x14]) + r(20))
        elif kind == "swiftpair":
            self.data = manufacturer(0x0006, bytes([0x03, 0x00, 0x80]) + r(8))
        else:
            self.data = manufacturer(0x0087, r(8))

    def rssi(self, rng):
        return max(-127, min(-1, int(round(self.level + rng.gauss(0, 3)))))

    def initial_props(self, rng):
        return dbus.Dictionary({
            "Address": dbus.String(self.address), "AddressType": dbus.String("random"),
            "RSSI": dbus.Int16(self.rssi(rng)), self.data_key: self.data,
        }, signature="sv")

    def advertisement(self, rng, rssi_only=False):
        self.count += 1
        if rssi_only:
            return dbus.Struct((dbus.ObjectPath(self.path), dbus.Dictionary(
                {"RSSI": dbus.Int16(self.rssi(rng))}, signature="sv")), signature="oa{sv}")
        data = self.data
        if self.kind == "eddystone":
            data = self.frames[1] if self.count % 3 == 0 else self.frames[0]
        return dbus.Struct((dbus.ObjectPath(self.path), dbus.Dictionary(
            {"RSSI": dbus.Int16(self.rssi(rng)), self.data_key: data}, signature="sv")), signature="oa{sv}")


class Walker:
    """The monitored beacon: a triangle of RSSI every `cycle` seconds."""

    def __init__(self, spec, rate, cycle):
        uuid, major, minor = spec.split(":")
        self.address = "AA:BB:CC:DD:EE:F0"
        self.path = f"{ADAPTER}/dev_{self.address.replace(':', '_')}"
        self.data = manufacturer(0x004C, ibeacon_bytes(uuid, int(major), int(minor)))
        self.rate, self.cycle = rate, cycle
        self.sent = 0

    def rssi_at(self, t, rng):
        phase = (t % self.cycle) / self.cycle
        level = -95 + 40 * (1 - abs(2 * phase - 1))
        return int(round(level + rng.gauss(0, 1.5)))

    def props(self, t, rng):
        return dbus.Dictionary({"Address": dbus.String(self.address), "AddressType": dbus.String("public"),
                                "RSSI": dbus.Int16(self.rssi_at(t, rng)), "ManufacturerData": self.data}, signature="sv")

    def advertisement(self, t, rng, rssi_only=False):
        self.sent += 1
        props = {"RSSI": dbus.Int16(self.rssi_at(t, rng))}
        if not rssi_only:
            props["ManufacturerData"] = self.data
        return dbus.Struct((dbus.ObjectPath(self.path), dbus.Dictionary(props, signature="sv")), signature="oa{sv}")


class Crowd:
    def __init__(self, options):
        self.options = options
        self.rng = random.Random(options.seed)
        excluded = {u.lower() for u in options.exclude_uuid}
        self.venue_uuids = []
        while len(self.venue_uuids) < 16:
            candidate = str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))
            if candidate not in excluded:
                self.venue_uuids.append(candidate)
        self.used_addresses = set()
        self.alive = []          # advertising devices (each knows its index)
        self.expiries = []       # heap of (expires, sequence, device)
        self.sequence = 0
        self.lingering = collections.deque()  # (remove at, path): silent, bluetoothd drops them later
        self.walker = Walker(options.walker, options.walker_rate, options.walker_cycle) if options.walker else None
        self.totals = {"advertisements": 0, "walker_advertisements": 0, "addresses": 0, "removed": 0,
                       "silenced": 0, "calls": 0, "errors": 0, "lost": 0, "reconnects": 0, "max_backlog": 0}
        self.bus = dbus.SystemBus()
        self.root = None
        self.down = False
        # --monitor: the or-patterns (None until the go line), the paths that
        # match, and the calls held until the patterns are known.
        self.patterns = None
        self.matching = set()
        self.held = []
        self.totals["filtered"] = 0

    # -- the advertisement monitor ----------------------------------------

    @staticmethod
    def ad_structures(props):
        """(AD type, data) of a device's advertised data, as on the air."""
        for company, data in dict(props.get("ManufacturerData", {})).items():
            yield 0xFF, bytes([int(company) & 0xFF, int(company) >> 8]) + bytes(int(b) for b in data)
        for uuid, data in dict(props.get("ServiceData", {})).items():
            short = int(str(uuid)[4:8], 16)
            yield 0x16, bytes([short & 0xFF, short >> 8]) + bytes(int(b) for b in data)

    def matches(self, props):
        return any(ad_type == pattern_type and data[start:start + len(content)] == bytes(content)
                   for ad_type, data in self.ad_structures(props) for start, pattern_type, content in self.patterns)

    def monitor_filter(self, method, batch):
        """The batch as bluetoothd with the monitor would send it: matching devices only."""
        kept = []
        for item in batch:
            if method == "Vanish":
                path = str(item)
                if path in self.matching:
                    self.matching.discard(path)
                    kept.append(item)
                    continue
            else:
                path, props = str(item[0]), item[1]
                if method == "Appear" and self.matches(props):
                    self.matching.add(path)
                if path in self.matching:
                    kept.append(item)
                    continue
            self.totals["filtered"] += 1
        return kept

    def start_monitor(self, patterns):
        """The client's patterns, or None when it registered no monitor (bluetoothd discovers: everything is sent)."""
        if patterns is None:
            self.options.monitor = False
        self.patterns = [(int(s), int(t), [int(b) for b in c]) for s, t, c in patterns or []]
        held, self.held = self.held, []
        for method, batch in held:
            self.call(method, batch)

    # -- the mock ---------------------------------------------------------

    def install(self):
        root = dbus.Interface(self.bus.get_object("org.bluez", "/"), MOCK)
        for name, code, signature in (("Appear", APPEAR, "a(oa{sv})"), ("Advertise", ADVERTISE, "a(oa{sv})"), ("Vanish", VANISH, "ao")):
            root.AddMethod(CROWD, name, signature, "", code)
        self.root = dbus.Interface(self.bus.get_object("org.bluez", "/"), CROWD)

    def call(self, method, batch):
        """One batch call; when org.bluez is gone, waits for it and adds the crowd again."""
        if self.options.monitor:
            if self.patterns is None:
                self.held.append((method, batch))
                return
            batch = self.monitor_filter(method, batch)
        if not batch:
            return
        if not (self.down and not self.reconnect()):
            try:
                getattr(self.root, method)(batch, timeout=10)
                self.totals["calls"] += 1
                return
            except dbus.exceptions.DBusException:
                self.totals["errors"] += 1
                self.down = True
        if method == "Advertise":
            self.totals["lost"] += len(batch)

    def reconnect(self):
        try:
            if not self.bus.name_has_owner("org.bluez"):
                return False
            self.install()
        except dbus.exceptions.DBusException:
            return False
        self.down = False
        self.totals["reconnects"] += 1
        self.appear(self.alive)
        if self.walker:
            self.call("Appear", [dbus.Struct((dbus.ObjectPath(self.walker.path), self.walker.props(0, self.rng)))])
        return not self.down

    # -- devices ----------------------------------------------------------

    def new_address(self):
        while True:
            # A resolvable private address: the two top bits 01.
            value = (0x40 << 40) | self.rng.getrandbits(46)
            address = ":".join(f"{(value >> s) & 0xFF:02X}" for s in range(40, -8, -8))
            if address not in self.used_addresses:
                self.used_addresses.add(address)
                return address

    def new_device(self, kind, now, staggered=False):
        device = Device(kind, self.new_address(), self.rng, self.venue_uuids)
        rotate = self.options.rotate
        if rotate > 0:
            device.expires = now + (self.rng.uniform(0, rotate) if staggered else self.rng.uniform(0.5 * rotate, 1.5 * rotate))
        self.totals["addresses"] += 1
        return device

    def appear(self, devices):
        for start in range(0, len(devices), 200):
            chunk = devices[start:start + 200]
            self.call("Appear", [dbus.Struct((dbus.ObjectPath(d.path), d.initial_props(self.rng)), signature="oa{sv}") for d in chunk])

    def populate(self):
        now = time.monotonic()
        devices = [self.new_device(kind, now, staggered=True) for kind in kinds_for(self.options.devices, self.rng)]
        self.appear(devices)
        for device in devices:
            self.enlist(device)
        if self.walker:
            self.call("Appear", [dbus.Struct((dbus.ObjectPath(self.walker.path), self.walker.props(0, self.rng)), signature="oa{sv}")])

    def rotate(self, now, shift):
        """Retires expired addresses (removed or silent) and adds their successors."""
        born, gone = [], []
        while self.expiries and self.expiries[0][0] + shift <= now:
            _, _, device = heapq.heappop(self.expiries)
            last = self.alive.pop()
            if last is not device:
                self.alive[device.index] = last
                last.index = device.index
            if self.rng.random() < self.options.remove_fraction:
                gone.append(dbus.ObjectPath(device.path))
                self.totals["removed"] += 1
            else:
                self.totals["silenced"] += 1
                if self.options.linger >= 0:
                    self.lingering.append((now + self.options.linger, device.path))
            born.append(self.new_device(device.kind, now - shift))
        while self.lingering and self.lingering[0][0] <= now:
            gone.append(dbus.ObjectPath(self.lingering.popleft()[1]))
            self.totals["removed"] += 1
        self.call("Vanish", gone)
        self.appear(born)
        for device in born:
            self.enlist(device)

    def enlist(self, device):
        device.index = len(self.alive)
        self.alive.append(device)
        if device.expires != float("inf"):
            self.sequence += 1
            heapq.heappush(self.expiries, (device.expires, self.sequence, device))

    # -- the run ----------------------------------------------------------

    def run(self):
        options = self.options
        tick = options.tick
        if options.one_at_a_time:
            # One advertisement per call, each at its own time.
            tick = min(tick, 1.0 / max(1e-9, options.rate + (options.walker_rate if self.walker else 0)))
        rssi_only = options.rssi_only
        start = time.monotonic() + options.start_after
        while time.monotonic() < start:
            time.sleep(min(tick, start - time.monotonic()) if start > time.monotonic() else 0)
        # Device expiry times were set at populate; shift them by the wait.
        shift = start - self.populated_at
        end = start + options.seconds
        sent_crowd = 0
        next_progress = start + 1
        now = start
        while now < end and not self.stopping:
            now = time.monotonic()
            elapsed = min(now, end) - start
            batch = []
            due = int(options.rate * elapsed) - sent_crowd if self.alive else 0
            self.totals["max_backlog"] = max(self.totals["max_backlog"], due)
            for _ in range(due):
                batch.append(self.rng.choice(self.alive).advertisement(self.rng, rssi_only))
            sent_crowd += max(0, due)
            if self.walker:
                for _ in range(int(self.walker.rate * elapsed) - self.walker.sent):
                    batch.append(self.walker.advertisement(elapsed, self.rng, rssi_only))
            if options.one_at_a_time:
                self.rng.shuffle(batch)
                spacing = tick / max(1, len(batch))
                for index, advertisement in enumerate(batch):
                    self.call("Advertise", [advertisement])
                    pause = now + (index + 1) * spacing - time.monotonic()
                    if pause > 0 and index + 1 < len(batch):
                        time.sleep(pause)
            else:
                for first in range(0, len(batch), 100):
                    self.call("Advertise", batch[first:first + 100])
            if options.rotate > 0:
                self.rotate(now, shift)
            if options.progress and now >= next_progress:
                self.progress(now, sent_crowd)
                next_progress += 1
            sleep = tick - (time.monotonic() - now)
            if sleep > 0:
                time.sleep(sleep)
        self.totals["advertisements"] = sent_crowd
        self.totals["walker_advertisements"] = self.walker.sent if self.walker else 0
        self.totals["seconds"] = round(time.monotonic() - start, 3)
        self.totals["rate"] = round(sent_crowd / max(1e-9, self.totals["seconds"]), 1)
        self.totals["alive"] = len(self.alive)
        self.totals["devices"] = options.devices

    def progress(self, now, sent):
        walker = self.walker.sent if self.walker else 0
        print(json.dumps({"t": now, "sent": sent, "walker": walker, "alive": len(self.alive),
                          "addresses": self.totals["addresses"], "removed": self.totals["removed"]}), flush=True)


def start_mock(monitor=False):
    """The mock and a powered adapter, as bluez_scenario.py makes them; with
    `monitor`, the adapter offers AdvertisementMonitorManager1 too."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bluez_scenario  # noqa: E402
    bluez = bluez_scenario.Bluez()
    bluez.add_adapter(True, True if monitor else None)
    return bluez


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=400, help="devices advertising at any time (400)")
    parser.add_argument("--rate", type=float, default=300, help="advertisements a second, all devices together (300)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to advertise (60; at most 3600)")
    parser.add_argument("--rotate", type=float, default=0, help="mean life of an address in seconds (0: no rotation)")
    parser.add_argument("--remove-fraction", type=float, default=0.5, help="retired addresses removed at once (0.5); the rest go silent")
    parser.add_argument("--linger", type=float, default=30, help="seconds a silent address stays in bluetoothd (30; negative: for ever)")
    parser.add_argument("--walker", help="UUID:MAJOR:MINOR of the monitored beacon walked past")
    parser.add_argument("--walker-rate", type=float, default=10, help="its advertisements a second (10)")
    parser.add_argument("--walker-cycle", type=float, default=20, help="seconds of one approach and retreat (20)")
    parser.add_argument("--exclude-uuid", action="append", default=["b9407f30-f5f8-466e-aff9-25556b57fe6d"],
                        help="a UUID the crowd's iBeacons never use (repeatable; the harness's region UUID is always excluded)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--start-mock", action="store_true", help="start the bluetoothd mock and its adapter here")
    mode.add_argument("--attach", action="store_true", help="use the mock already on the bus (default)")
    parser.add_argument("--wait", action="store_true", help="after READY, wait for a line on stdin")
    parser.add_argument("--start-after", type=float, default=0, help="seconds between the start (or the stdin line) and the first advertisement")
    parser.add_argument("--tick", type=float, default=0.005, help="seconds between batches (0.005)")
    parser.add_argument("--progress", action="store_true", help="a JSON line of counts every second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rssi-only", action="store_true", help="advertisements carry RSSI alone (the data only in InterfacesAdded)")
    parser.add_argument("--monitor", action="store_true",
                        help="as bluetoothd with an or_patterns monitor: only matching devices reach the bus (the go line carries the patterns)")
    parser.add_argument("--one-at-a-time", action="store_true", help="each advertisement its own call, 1/rate apart")
    options = parser.parse_args(argv)
    if not 0 <= options.seconds <= 3600:
        parser.error("--seconds must be between 0 and 3600")
    if options.devices < 0 or options.rate < 0 or not 0 <= options.remove_fraction <= 1:
        parser.error("--devices and --rate must be >= 0, --remove-fraction in [0, 1]")
    return options


def main(argv=None):
    options = parse(sys.argv[1:] if argv is None else argv)
    check_private_bus()
    mock = start_mock(options.monitor) if options.start_mock else None
    crowd = Crowd(options)
    crowd.stopping = False

    def stop(*_):
        crowd.stopping = True
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    deadline = time.monotonic() + 15
    while not crowd.bus.name_has_owner("org.bluez"):
        if time.monotonic() > deadline:
            raise SystemExit("bluez_crowd.py: no org.bluez on the bus (start the mock, or pass --start-mock)")
        time.sleep(0.02)
    crowd.install()
    crowd.populate()
    crowd.populated_at = time.monotonic()
    print("READY", flush=True)
    if options.wait:
        if mock and options.monitor:
            # This script is bluetoothd: it activates the client's monitor while waiting for the line.
            while not select.select([sys.stdin], [], [], 0.02)[0]:
                mock.serve_monitor()
        line = sys.stdin.readline()
        if mock and options.monitor:
            crowd.start_monitor(mock.patterns if mock.client else None)
        elif options.monitor:
            crowd.start_monitor(json.loads(line.split(" ", 1)[1]) if " " in line.strip() else None)
        crowd.populated_at = time.monotonic()
    try:
        crowd.run()
    finally:
        if mock:
            mock.stop()
    print(json.dumps({"crowd": crowd.totals}), flush=True)


if __name__ == "__main__":
    main()
