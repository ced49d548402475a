#!/usr/bin/env python3
"""Plays bluetoothd (org.bluez) on a private bus with python-dbusmock and
runs a timed beacon scenario against whoever is listening.

The bus is DBUS_SYSTEM_BUS_ADDRESS. The mock is a separate process
(`python3 -m dbusmock --system -m org.bluez / org.freedesktop.DBus.ObjectManager`),
so a "restart" step really makes org.bluez leave and re-join the bus
(NameOwnerChanged), as a bluetoothd restart does. Devices are built with
AddObject and announced with InterfacesAdded by hand: the bluez5 template's
AddDevice declares ManufacturerData as aa{qv}, not BlueZ's a{qv}.

Protocol with the test: prints "READY" once the mock and adapter are up,
waits for a line on stdin, runs the steps, and prints one JSON line per step
with its CLOCK_MONOTONIC time, then a final {"calls": …} line listing the
adapter method calls the mock received.

Scenario (JSON): {"steps": [{"at": seconds, "do": ..., ...}, ...]} with
  adapter   {"powered": bool, "monitor": m}   add /org/bluez/hci0; with "monitor": true it also offers
                                              org.bluez.AdvertisementMonitorManager1 (or_patterns),
                                              with "refuse" its RegisterMonitor fails
  release   {}                                bluetoothd releases the client's monitor (Release)
  power     {"powered": bool}                 PropertiesChanged Powered
  device    {"id": name, "ibeacon": [uuid, major, minor, power], "rssi": n}
  rssi      {"id": name, "rssi": n}           one advertisement
  odd       {"id": name}                      RSSI sent as a string, ManufacturerData as aa{qv}
  remove    {"id": name}                      InterfacesRemoved
  restart   {}                                org.bluez leaves and returns (adapter re-added)
  noop      {}                                nothing (holds the mock until then)
  spoof     {"ibeacon": [uuid, major, minor, power], "rssi": n, "count": k}
                                              another client (not org.bluez) sends unicast signals to every other
                                              client on the bus: InterfacesAdded and k PropertiesChanged of a made-up
                                              device with that iBeacon, 0.1 s apart, then NameOwnerChanged saying
                                              org.bluez left; it prints {"spoofed": [names]}
  crowd     {"devices": n, "rate": r, "seconds": s, "rotate": l, "remove_fraction": f,
             "linger": s, "seed": n}               a crowd beside the steps (bluez_crowd.py)

With a monitor manager, the mock plays bluetoothd's side of
AdvertisementMonitor1: when the client calls RegisterMonitor(root), it
finds the client on the bus, reads its monitors with GetManagedObjects,
calls Activate, and from then on reports only devices whose advertising
data matches one of the or-patterns (DeviceFound, then their Device1
objects and updates); a device step that matches none puts nothing on the
bus, and a crowd gets the patterns with its go line (bluez_crowd.py
--monitor). Registration is served while the script waits for the test's
line and between steps. A {"monitor": …} line before the calls line says
what happened.

A crowd step is not run in turn: its devices are on the bus before READY,
and it advertises from its "at" for "seconds" (default: until the last
step) in a process of its own (bluez_crowd.py --attach), beside the other
steps and through a restart. Its totals are printed as a {"crowd": …} line
before the calls line.
"""
import json
import os
import select
import subprocess
import sys
import time
import uuid as uuidlib

import dbus
import dbus.bus
import dbus.lowlevel

ADAPTER = "/org/bluez/hci0"
MOCK = "org.freedesktop.DBus.Mock"
OM = "org.freedesktop.DBus.ObjectManager"
MANAGER = "org.bluez.AdvertisementMonitorManager1"
MONITOR = "org.bluez.AdvertisementMonitor1"


def start_mock():
    process = subprocess.Popen(
        [sys.executable, "-m", "dbusmock", "--system", "-m", "org.bluez", "/", OM],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    bus = dbus.SystemBus()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if bus.name_has_owner("org.bluez"):
            return process, bus
        time.sleep(0.02)
    raise SystemExit("dbusmock did not claim org.bluez: " + process.stderr.read().decode(errors="replace"))


class Bluez:
    def __init__(self):
        self.process, self.bus = start_mock()
        self.devices = {}
        self.calls = []
        self.monitor_mode = None   # None: no manager; True; "refuse"
        self.registered = None     # the client's application root, once RegisterMonitor came
        self.registrations = 0     # RegisterMonitor calls already served
        self.client = None         # (unique name, [monitor paths]) once activated
        self.patterns = None
        self.hidden = set()        # devices the monitor filtered out
        self.monitor_log = {"registered": 0, "activated": 0, "found": 0, "filtered": 0, "released": 0}

    def root(self):
        return dbus.Interface(self.bus.get_object("org.bluez", "/"), MOCK)

    def add_adapter(self, powered, monitor=None):
        not_ready = ("if not self.props['org.bluez.Adapter1']['Powered']:\n"
                     "    raise dbus.exceptions.DBusException('Not Ready', name='org.bluez.Error.NotReady')\n")
        props = {"Address": dbus.String("00:11:22:33:44:55"), "Powered": dbus.Boolean(powered),
                 "Discovering": dbus.Boolean(False)}
        self.root().AddObject(ADAPTER, "org.bluez.Adapter1", props, [
            ("SetDiscoveryFilter", "a{sv}", "", not_ready),
            ("StartDiscovery", "", "", not_ready + "self.Set('org.bluez.Adapter1', 'Discovering', True)"),
            ("StopDiscovery", "", "", "self.Set('org.bluez.Adapter1', 'Discovering', False)"),
        ])
        interfaces = {"org.bluez.Adapter1": props}
        self.monitor_mode = monitor
        if monitor:
            adapter = dbus.Interface(self.bus.get_object("org.bluez", ADAPTER), MOCK)
            manager = {"SupportedMonitorTypes": dbus.Array(["or_patterns"], signature="s"),
                       "SupportedFeatures": dbus.Array([], signature="s")}
            adapter.AddProperties(MANAGER, manager)
            refuse = ("raise dbus.exceptions.DBusException('Failed', name='org.bluez.Error.Failed')\n"
                      if monitor == "refuse" else "")
            adapter.AddMethod(MANAGER, "RegisterMonitor", "o", "", refuse)
            adapter.AddMethod(MANAGER, "UnregisterMonitor", "o", "", "")
            interfaces[MANAGER] = manager
        self.root().EmitSignal(OM, "InterfacesAdded", "oa{sa{sv}}", [
            dbus.ObjectPath(ADAPTER),
            dbus.Dictionary({i: dbus.Dictionary(p, signature="sv") for i, p in interfaces.items()}, signature="sa{sv}")])

    # -- the advertisement monitor (bluetoothd's side) ---------------------

    def serve_monitor(self):
        """Activates the client's monitor once it has registered (as bluetoothd does, asynchronously)."""
        if not self.monitor_mode or self.monitor_mode == "refuse" or self.client:
            return
        if self.registered is None:
            adapter = dbus.Interface(self.bus.get_object("org.bluez", ADAPTER), MOCK)
            calls = adapter.GetMethodCalls("RegisterMonitor")
            if len(calls) <= self.registrations:
                return
            self.registrations = len(calls)
            self.registered = str(calls[-1][1][0])
            self.monitor_log["registered"] += 1
        mine = {self.bus.get_unique_name(), self.bus.get_name_owner("org.bluez")}
        driver = self.bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
        names = [str(n) for n in driver.ListNames(dbus_interface="org.freedesktop.DBus") if n.startswith(":") and n not in mine]
        # The client connected last; python peers with no main loop never answer, so each gets a short timeout.
        for name in sorted(names, key=lambda n: [int(p) for p in n[1:].split(".")], reverse=True):
            try:
                objects = self.bus.get_object(name, self.registered, introspect=False).GetManagedObjects(
                    dbus_interface=OM, timeout=1)
            except dbus.exceptions.DBusException:
                continue
            monitors = {str(p): i[MONITOR] for p, i in objects.items() if MONITOR in i}
            if not monitors:
                continue
            self.patterns = [[int(s), int(t), [int(b) for b in c]]
                             for m in monitors.values() if str(m["Type"]) == "or_patterns" for s, t, c in m["Patterns"]]
            for path in monitors:
                self.bus.get_object(name, path, introspect=False).Activate(dbus_interface=MONITOR, timeout=5)
                self.monitor_log["activated"] += 1
            self.client = (name, list(monitors))
            return

    def matches(self, props):
        for company, data in dict(props.get("ManufacturerData", {})).items():
            ad = bytes([int(company) & 0xFF, int(company) >> 8]) + bytes(int(b) for b in data)
            if any(t == 0xFF and ad[s:s + len(c)] == bytes(c) for s, t, c in self.patterns):
                return True
        return False

    def monitor_call(self, member, *arguments):
        name, paths = self.client
        for path in paths:
            getattr(self.bus.get_object(name, path, introspect=False), member)(*arguments, dbus_interface=MONITOR, timeout=5)

    def release(self):
        if self.client:
            self.monitor_call("Release")
            self.monitor_log["released"] += 1
        self.client = None
        self.registered = None

    def wait_serving(self, until):
        """Sleeps until the monotonic time `until`, serving the monitor meanwhile."""
        while True:
            self.serve_monitor()
            left = until - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.02, left))

    def emit_added(self, path, interface, props):
        self.root().EmitSignal(OM, "InterfacesAdded", "oa{sa{sv}}", [
            dbus.ObjectPath(path), dbus.Dictionary({interface: dbus.Dictionary(props, signature="sv")}, signature="sa{sv}")])

    def set_powered(self, powered):
        adapter = dbus.Interface(self.bus.get_object("org.bluez", ADAPTER), MOCK)
        adapter.UpdateProperties("org.bluez.Adapter1", {"Powered": dbus.Boolean(powered)})

    @staticmethod
    def ibeacon_data(uuid, major, minor, power):
        payload = bytes([0x02, 0x15]) + uuidlib.UUID(uuid).bytes + major.to_bytes(2, "big") + minor.to_bytes(2, "big") \
            + (power & 0xFF).to_bytes(1, "big")
        return dbus.Dictionary({dbus.UInt16(0x004C): dbus.Array(payload, signature="y", variant_level=1)}, signature="qv")

    def add_device(self, name, ibeacon, rssi):
        number = len(self.devices) + 1
        path = f"{ADAPTER}/dev_AA_BB_CC_DD_EE_{number:02X}"
        props = {"Address": dbus.String(f"AA:BB:CC:DD:EE:{number:02X}"), "RSSI": dbus.Int16(rssi),
                 "ManufacturerData": self.ibeacon_data(*ibeacon)}
        self.devices[name] = path
        if self.client and not self.matches(props):
            self.hidden.add(path)
            self.monitor_log["filtered"] += 1
            return
        self.root().AddObject(path, "org.bluez.Device1", props, [])
        self.emit_added(path, "org.bluez.Device1", props)
        if self.client:
            self.monitor_call("DeviceFound", dbus.ObjectPath(path))
            self.monitor_log["found"] += 1

    def advertise(self, name, rssi):
        if self.devices[name] in self.hidden:
            return
        device = dbus.Interface(self.bus.get_object("org.bluez", self.devices[name]), MOCK)
        device.UpdateProperties("org.bluez.Device1", {"RSSI": dbus.Int16(rssi)})

    def odd(self, name):
        device = dbus.Interface(self.bus.get_object("org.bluez", self.devices[name]), MOCK)
        device.EmitSignal("org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", [
            "org.bluez.Device1", dbus.Dictionary({"RSSI": dbus.String("-40")}, signature="sv"), dbus.Array([], signature="s")])
        device.EmitSignal("org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", [
            "org.bluez.Device1",
            dbus.Dictionary({"ManufacturerData": dbus.Array([dbus.Dictionary({dbus.UInt16(76): dbus.Array([1, 2], signature="y", variant_level=1)}, signature="qv")], signature="a{qv}")}, signature="sv"),
            dbus.Array([], signature="s")])

    def remove(self, name):
        path = self.devices.pop(name)
        if path in self.hidden:
            return
        self.root().RemoveObject(path)
        self.root().EmitSignal(OM, "InterfacesRemoved", "oas", [dbus.ObjectPath(path), dbus.Array(["org.bluez.Device1"], signature="s")])

    def spoof(self, ibeacon, rssi, count):
        """Plays bluetoothd from a connection of its own, as any local user may:
        signals addressed to each client's unique name, which a match rule's
        sender= does not filter."""
        spoofer = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
        ours = {spoofer.get_unique_name(), self.bus.get_unique_name(), self.bus.get_name_owner("org.bluez")}
        driver = dbus.Interface(spoofer.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
        targets = [str(name) for name in driver.ListNames() if name.startswith(":") and name not in ours]
        path = f"{ADAPTER}/dev_66_66_66_66_66_66"
        props = {"Address": dbus.String("66:66:66:66:66:66"), "RSSI": dbus.Int16(rssi),
                 "ManufacturerData": self.ibeacon_data(*ibeacon)}

        def send(target, path, interface, member, signature, args):
            message = dbus.lowlevel.SignalMessage(path, interface, member)
            message.set_destination(target)
            message.append(*args, signature=signature)
            spoofer.send_message(message)

        for target in targets:
            send(target, "/", OM, "InterfacesAdded", "oa{sa{sv}}", [
                dbus.ObjectPath(path), dbus.Dictionary({"org.bluez.Device1": dbus.Dictionary(props, signature="sv")}, signature="sa{sv}")])
        for _ in range(count):
            for target in targets:
                send(target, path, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as", [
                    "org.bluez.Device1", dbus.Dictionary(props, signature="sv"), dbus.Array([], signature="s")])
            spoofer.flush()
            time.sleep(0.1)
        for target in targets:
            send(target, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", "sss",
                 ["org.bluez", self.bus.get_name_owner("org.bluez"), ""])
        spoofer.flush()
        print(json.dumps({"spoofed": targets}), flush=True)
        spoofer.close()

    def record_calls(self):
        try:
            adapter = dbus.Interface(self.bus.get_object("org.bluez", ADAPTER), MOCK)
            for _, method, args in adapter.GetCalls():
                self.calls.append({"method": str(method), "args": json.loads(json.dumps(args, default=str))})
        except dbus.exceptions.DBusException:
            pass

    def restart(self, powered=True):
        self.record_calls()
        # dbusmock's GLib loop does not stop on SIGTERM; SIGKILL is a crash of bluetoothd.
        self.process.kill()
        self.process.wait(timeout=5)
        self.devices = {}
        self.hidden = set()
        self.client = None
        self.registered = None
        self.registrations = 0
        self.process, self.bus = start_mock()
        self.add_adapter(powered, self.monitor_mode)

    def stop(self):
        self.record_calls()
        # dbusmock's GLib loop does not stop on SIGTERM; SIGKILL is a crash of bluetoothd.
        self.process.kill()
        self.process.wait(timeout=5)


CROWD_OPTIONS = {"devices": "--devices", "rate": "--rate", "rotate": "--rotate", "remove_fraction": "--remove-fraction",
                 "linger": "--linger", "seed": "--seed", "tick": "--tick"}


def start_crowd(step, last_at, monitor):
    """bluez_crowd.py on the same mock, populated now, advertising from step["at"] once told to go."""
    at = step.get("at", 0)
    arguments = ["--attach", "--wait", "--start-after", str(at), "--seconds", str(step.get("seconds", max(0, last_at - at)))]
    if monitor:
        arguments.append("--monitor")
    for key, option in CROWD_OPTIONS.items():
        if key in step:
            arguments += [option, str(step[key])]
    crowd = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bluez_crowd.py")] + arguments,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if crowd.stdout.readline().strip() != "READY":
        raise SystemExit("the crowd did not start")
    return crowd


def finish_crowds(crowds):
    for crowd in crowds:
        try:
            output, _ = crowd.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            crowd.kill()
            output, _ = crowd.communicate()
        for line in output.splitlines():
            if line.startswith("{"):
                print(line, flush=True)


def main():
    scenario = json.load(open(sys.argv[1]))
    bluez = Bluez()
    steps = scenario["steps"]
    first = steps[0] if steps and steps[0]["do"] == "adapter" and steps[0].get("at", 0) == 0 else None
    if first:
        bluez.add_adapter(first.get("powered", True), first.get("monitor"))
        steps = steps[1:]
    last_at = max((step.get("at", 0) for step in steps), default=0)
    crowds = [start_crowd(step, last_at, bluez.monitor_mode) for step in steps if step["do"] == "crowd"]
    steps = [step for step in steps if step["do"] != "crowd"]
    print("READY", flush=True)
    # The test's line comes once the client is set up, which with a monitor needs the mock's Activate.
    while not select.select([sys.stdin], [], [], 0.02)[0]:
        bluez.serve_monitor()
    sys.stdin.readline()
    start = time.monotonic()
    go = "go " + json.dumps(bluez.patterns) if bluez.client else "go"
    for crowd in crowds:
        crowd.stdin.write(go + "\n")
        crowd.stdin.flush()
    print(json.dumps({"do": "start", "monotonic": start}), flush=True)
    for step in steps:
        bluez.wait_serving(start + step["at"])
        action = step["do"]
        if action == "adapter":
            bluez.add_adapter(step.get("powered", True), step.get("monitor"))
        elif action == "power":
            bluez.set_powered(step["powered"])
        elif action == "device":
            bluez.add_device(step["id"], step["ibeacon"], step["rssi"])
        elif action == "rssi":
            bluez.advertise(step["id"], step["rssi"])
        elif action == "odd":
            bluez.odd(step["id"])
        elif action == "remove":
            bluez.remove(step["id"])
        elif action == "restart":
            bluez.restart()
        elif action == "release":
            bluez.release()
        elif action == "noop":
            pass
        elif action == "spoof":
            bluez.spoof(step["ibeacon"], step["rssi"], step.get("count", 10))
        else:
            raise SystemExit(f"unknown step {action}")
        print(json.dumps({"do": action, "at": step["at"], "monotonic": time.monotonic()}), flush=True)
    finish_crowds(crowds)
    if bluez.monitor_mode:
        print(json.dumps({"monitor": bluez.monitor_log}), flush=True)
    bluez.stop()
    print(json.dumps({"calls": bluez.calls}), flush=True)


if __name__ == "__main__":
    main()
