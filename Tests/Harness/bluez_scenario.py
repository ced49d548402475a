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
  adapter   {"powered": bool}                 add /org/bluez/hci0
  power     {"powered": bool}                 PropertiesChanged Powered
  device    {"id": name, "ibeacon": [uuid, major, minor, power], "rssi": n}
  rssi      {"id": name, "rssi": n}           one advertisement
  odd       {"id": name}                      RSSI sent as a string, ManufacturerData as aa{qv}
  remove    {"id": name}                      InterfacesRemoved
  restart   {}                                org.bluez leaves and returns (adapter re-added)
  noop      {}                                nothing (holds the mock until then)
  crowd     {"devices": n, "rate": r, "seconds": s, "rotate": l, "remove_fraction": f,
             "linger": s, "seed": n}               a crowd beside the steps (bluez_crowd.py)

A crowd step is not run in turn: its devices are on the bus before READY,
and it advertises from its "at" for "seconds" (default: until the last
step) in a process of its own (bluez_crowd.py --attach), beside the other
steps and through a restart. Its totals are printed as a {"crowd": …} line
before the calls line.
"""
import json
import os
import subprocess
import sys
import time
import uuid as uuidlib

import dbus

ADAPTER = "/org/bluez/hci0"
MOCK = "org.freedesktop.DBus.Mock"
OM = "org.freedesktop.DBus.ObjectManager"


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

    def root(self):
        return dbus.Interface(self.bus.get_object("org.bluez", "/"), MOCK)

    def add_adapter(self, powered):
        not_ready = ("if not self.props['org.bluez.Adapter1']['Powered']:\n"
                     "    raise dbus.exceptions.DBusException('Not Ready', name='org.bluez.Error.NotReady')\n")
        props = {"Address": dbus.String("00:11:22:33:44:55"), "Powered": dbus.Boolean(powered),
                 "Discovering": dbus.Boolean(False)}
        self.root().AddObject(ADAPTER, "org.bluez.Adapter1", props, [
            ("SetDiscoveryFilter", "a{sv}", "", not_ready),
            ("StartDiscovery", "", "", not_ready + "self.Set('org.bluez.Adapter1', 'Discovering', True)"),
            ("StopDiscovery", "", "", "self.Set('org.bluez.Adapter1', 'Discovering', False)"),
        ])
        self.emit_added(ADAPTER, "org.bluez.Adapter1", props)

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
        self.root().AddObject(path, "org.bluez.Device1", props, [])
        self.emit_added(path, "org.bluez.Device1", props)
        self.devices[name] = path

    def advertise(self, name, rssi):
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
        self.root().RemoveObject(path)
        self.root().EmitSignal(OM, "InterfacesRemoved", "oas", [dbus.ObjectPath(path), dbus.Array(["org.bluez.Device1"], signature="s")])

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
        self.process, self.bus = start_mock()
        self.add_adapter(powered)

    def stop(self):
        self.record_calls()
        # dbusmock's GLib loop does not stop on SIGTERM; SIGKILL is a crash of bluetoothd.
        self.process.kill()
        self.process.wait(timeout=5)


CROWD_OPTIONS = {"devices": "--devices", "rate": "--rate", "rotate": "--rotate", "remove_fraction": "--remove-fraction",
                 "linger": "--linger", "seed": "--seed", "tick": "--tick"}


def start_crowd(step, last_at):
    """bluez_crowd.py on the same mock, populated now, advertising from step["at"] once told to go."""
    at = step.get("at", 0)
    arguments = ["--attach", "--wait", "--start-after", str(at), "--seconds", str(step.get("seconds", max(0, last_at - at)))]
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
        bluez.add_adapter(first.get("powered", True))
        steps = steps[1:]
    last_at = max((step.get("at", 0) for step in steps), default=0)
    crowds = [start_crowd(step, last_at) for step in steps if step["do"] == "crowd"]
    steps = [step for step in steps if step["do"] != "crowd"]
    print("READY", flush=True)
    sys.stdin.readline()
    start = time.monotonic()
    for crowd in crowds:
        crowd.stdin.write("go\n")
        crowd.stdin.flush()
    print(json.dumps({"do": "start", "monotonic": start}), flush=True)
    for step in steps:
        delay = start + step["at"] - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        action = step["do"]
        if action == "adapter":
            bluez.add_adapter(step.get("powered", True))
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
        elif action == "noop":
            pass
        else:
            raise SystemExit(f"unknown step {action}")
        print(json.dumps({"do": action, "at": step["at"], "monotonic": time.monotonic()}), flush=True)
    finish_crowds(crowds)
    bluez.stop()
    print(json.dumps({"calls": bluez.calls}), flush=True)


if __name__ == "__main__":
    main()
