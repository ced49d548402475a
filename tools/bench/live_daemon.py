#!/usr/bin/env python3
"""What `headsup live` costs as a daemon: CPU, memory and wake-ups while it
scores 50 Hz motion with the shipped model and watches a few beacons.

    python3 -m tools.bench.live_daemon                       # 60 s measured, after 5 s of warm-up
    python3 -m tools.bench.live_daemon --seconds 20 --json out.json
    HEADSUP_KERNELS=baseline python3 -m tools.bench.live_daemon

It starts, all private to this run:
  * a dbus-daemon playing both the system and the session bus (a unix
    socket in a temporary directory; DBUS_SYSTEM_BUS_ADDRESS and
    DBUS_SESSION_BUS_ADDRESS point at it, never at the machine's buses);
  * python-dbusmock's bluez5 template as bluetoothd, with adapter hci0 and
    --beacons iBeacons (AddObject + InterfacesAdded, as the field notes say),
    each advertising once a second (UpdateProperties: one PropertiesChanged
    with the new RSSI, as the tests' bluez_scenario.py does);
    the first is in the crossing region and walks past (RSSI a triangle from
    -95 up to -55 dBm and back every --beacon-cycle seconds), the others are
    other venues' beacons at a steady level;
  * python-dbusmock's notification_daemon template on the session bus (the
    default configuration sends desktop notifications);
  * the emulated IIO kernel (Tests/Harness/iio/run_in_fake_kernel.sh, FUSE
    sysfs and FIFO device nodes in a private mount namespace: root only)
    with its bmi160 IMU (HeadsUp asks for 50 Hz and gets 52 Hz) and lis3mdl
    magnetometer (80 Hz), playing a recorded session (--session);
  * `headsup live --region crossing=UUID:1` with the default configuration
    otherwise (the shipped model and its card's hop; no config file of the
    user's: XDG_CONFIG_HOME is an empty directory), its output to a file.

After --warmup seconds it reads /proc for --seconds: CPU (utime + stime of
/proc/PID/stat, and the threads' schedstat run time in ns), RSS (VmHWM,
VmRSS), wake-ups (voluntary + involuntary context switches summed over
/proc/PID/task/*/status) and the threads, and asks the daemon for its
counters (SIGUSR1) at both ends for the windows it scored. Every process it
started is ended afterwards. When it cannot run here (not root, no FUSE, no
dbus-daemon or python3-dbusmock) it prints a 'skipped:' line and exits 0,
unless CI=true (then it fails). Standard library only; the mocks run with
/usr/bin/python3 (Debian's python3-dbus and python3-dbusmock, which
`make test` installs).
"""
import argparse
import functools
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.bench import procfs
from tools.bench.procfs import descendants, process_table, stat_fields

REPO = Path(__file__).resolve().parent.parent.parent
FAKE_KERNEL = REPO / "Tests/Harness/iio/run_in_fake_kernel.sh"
MOCK_PYTHON = "/usr/bin/python3"  # Debian's, with python3-dbus and python3-dbusmock (as the tests use)
REGION_UUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
OTHER_UUIDS = ["2f234454-cf6d-4a0f-adf2-f4911ba9ffa6", "e2c56db5-dffb-48d2-b060-d0f5a71096e0",
               "74278bda-b644-4520-8f0c-720eaf059935", "fda50693-a4e2-4fb1-afcf-c6eb07647825"]
TICK = os.sysconf("SC_CLK_TCK")


class Skip(Exception):
    """This machine cannot run the benchmark (not an error outside CI)."""


# --------------------------------------------------------------------------
# The beacons: run as `/usr/bin/python3 live_daemon.py --beacon-feeder ...`
# --------------------------------------------------------------------------

def beacon_feeder(count, cycle, region_uuid):
    """Adapter hci0 on the bluez5 mock already on DBUS_SYSTEM_BUS_ADDRESS, `count`
    iBeacons, one advertisement each a second until SIGTERM or stdin closes."""
    import random
    import threading
    import uuid as uuidlib

    import dbus

    om, mock, device1 = "org.freedesktop.DBus.ObjectManager", "org.freedesktop.DBus.Mock", "org.bluez.Device1"
    bus = dbus.SystemBus()
    deadline = time.monotonic() + 15
    while not bus.name_has_owner("org.bluez"):
        if time.monotonic() > deadline:
            raise SystemExit("beacon feeder: no org.bluez on the bus")
        time.sleep(0.02)
    root = bus.get_object("org.bluez", "/")
    dbus.Interface(root, "org.bluez.Mock").AddAdapter("hci0", "headsup-bench")
    rng = random.Random(1)

    def ibeacon(uuid, major, minor, power=-59):
        payload = bytes([0x02, 0x15]) + uuidlib.UUID(uuid).bytes + major.to_bytes(2, "big") + minor.to_bytes(2, "big") \
            + (power & 0xFF).to_bytes(1, "big")
        return dbus.Dictionary({dbus.UInt16(0x004C): dbus.Array(payload, signature="y", variant_level=1)}, signature="qv")

    beacons = []
    for index in range(count):
        address = f"C0:FF:EE:00:{(index + 1) >> 8:02X}:{(index + 1) & 0xFF:02X}"
        path = f"/org/bluez/hci0/dev_{address.replace(':', '_')}"
        walker = index == 0
        data = ibeacon(region_uuid if walker else OTHER_UUIDS[(index - 1) % len(OTHER_UUIDS)], 1 if walker else 10 + index, 2 if walker else index)
        level = -80.0 + 4 * ((index % 3) - 1)
        beacons.append({"path": path, "data": data, "walker": walker, "level": level})
        props = dbus.Dictionary({"Address": dbus.String(address), "AddressType": dbus.String("public"),
                                 "RSSI": dbus.Int16(-95 if walker else int(level)), "ManufacturerData": data}, signature="sv")
        dbus.Interface(root, mock).AddObject(path, device1, props, [])
        dbus.Interface(root, mock).EmitSignal(om, "InterfacesAdded", "oa{sa{sv}}", [
            dbus.ObjectPath(path), dbus.Dictionary({device1: props}, signature="sa{sv}")])
    print("READY", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    start = time.monotonic()
    sent = 0
    tick = start
    while not stop.is_set():
        t = time.monotonic() - start
        for index, beacon in enumerate(beacons):
            # Spread over the second, one signal at a time, as bluetoothd sends them.
            stop.wait(max(0.0, tick + index / len(beacons) - time.monotonic()))
            if beacon["walker"] and cycle > 0:
                phase = (t % cycle) / cycle
                rssi = -95 + 40 * (1 - abs(2 * phase - 1)) + rng.gauss(0, 1.5)
            else:
                rssi = beacon["level"] + rng.gauss(0, 2)
            if "device" not in beacon:  # made once: get_object would introspect on every call
                beacon["device"] = dbus.Interface(bus.get_object("org.bluez", beacon["path"], introspect=False), mock)
            device = beacon["device"]
            # RSSI only: dbusmock's UpdateProperties cannot wrap a dictionary (ManufacturerData) in a variant.
            device.UpdateProperties(device1, {"RSSI": dbus.Int16(max(-127, min(-1, int(round(rssi)))))})
            sent += 1
        tick += 1.0
        stop.wait(max(0.0, tick - time.monotonic()))
    print(json.dumps({"advertisements": sent, "seconds": round(time.monotonic() - start, 3)}), flush=True)


# --------------------------------------------------------------------------
# /proc
# --------------------------------------------------------------------------

@functools.cache
def iio_scenarios():
    """The emulated kernel's scenarios and what each holds (fake_iio.py scenarios)."""
    listing = subprocess.run([sys.executable, str(REPO / "Tests/Harness/iio/fake_iio.py"), "scenarios"],
                             capture_output=True, text=True, check=True).stdout
    return {line.split(None, 1)[0]: line.split(None, 1)[1].strip() for line in listing.splitlines() if line.strip()}


def binary_state(binary):
    """When the binary was built, and the newest files under Sources/ that are newer (a stale binary)."""
    built = Path(binary).stat().st_mtime
    newer = sorted((p for p in (REPO / "Sources").rglob("*.swift") if p.stat().st_mtime > built), key=lambda p: -p.stat().st_mtime)
    try:
        head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cd", "--date=iso"], capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        head = None
    return {"binary_built": time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(built)),
            "sources_newer_than_binary": [str(p.relative_to(REPO)) for p in newer], "commit": head}


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"




def status_fields(path):
    values = {}
    for line in Path(path).read_text().splitlines():
        key, _, rest = line.partition(":")
        values[key] = rest.strip()
    return values


def kb(value):
    return int(value.split()[0]) if value else 0


def snapshot(pid):
    """Everything read at one instant: process CPU, memory and per-thread counters."""
    fields = stat_fields(f"/proc/{pid}/stat")
    status = status_fields(f"/proc/{pid}/status")
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            tstatus = status_fields(task / "status")
            tfields = stat_fields(task / "stat")
            run_ns = int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # the thread ended while we read
        try:
            wchan = (task / "wchan").read_text().strip()
        except OSError:
            wchan = "?"
        threads[int(task.name)] = {
            "name": (task / "comm").read_text().strip() if (task / "comm").exists() else "?",
            "wchan": wchan,
            "wakeups": int(tstatus.get("voluntary_ctxt_switches", 0)) + int(tstatus.get("nonvoluntary_ctxt_switches", 0)),
            "voluntary": int(tstatus.get("voluntary_ctxt_switches", 0)),
            "nonvoluntary": int(tstatus.get("nonvoluntary_ctxt_switches", 0)),
            "cpu_ticks": int(tfields[11]) + int(tfields[12]),
            "run_ns": run_ns,
        }
    return {
        "time": time.monotonic(),
        "cpu_ticks": int(fields[11]) + int(fields[12]),
        "utime_ticks": int(fields[11]), "stime_ticks": int(fields[12]),
        "vm_hwm_kb": kb(status.get("VmHWM")), "vm_rss_kb": kb(status.get("VmRSS")),
        "rss_anon_kb": kb(status.get("RssAnon")), "rss_file_kb": kb(status.get("RssFile")), "rss_shmem_kb": kb(status.get("RssShmem")),
        "vm_size_kb": kb(status.get("VmSize")),
        "threads": threads,
    }


def mappings(pid, top=8):
    """The mappings holding the most resident memory: [(MB, name)], by file (anonymous ones together)."""
    totals = {}
    name = None
    try:
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            head = line.split()
            if head and re.match(r"^[0-9a-f]+-[0-9a-f]+$", head[0]):
                name = head[5] if len(head) > 5 else "[anonymous]"
            elif head and head[0] == "Rss:":
                totals[name] = totals.get(name, 0) + int(head[1])
    except OSError:
        return []
    return [(round(kb / 1024, 2), name) for name, kb in sorted(totals.items(), key=lambda item: -item[1])[:top]]






def find_headsup(wrapper, binary, deadline, process):
    """The `headsup live` process under the fake-kernel wrapper (not its model-check child); under
    valgrind, the valgrind process running it."""
    name = os.path.basename(binary)
    while time.monotonic() < deadline and process.poll() is None:
        for pid in descendants(wrapper):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            names = [os.path.basename(a.decode(errors="replace")) for a in argv]
            if len(argv) > 1 and names[0] == name and argv[1] == b"live":
                return pid
            if "valgrind" in names[0] or "callgrind" in names[0]:
                if name in names and names.index(name) + 1 < len(argv) and argv[names.index(name) + 1] == b"live":
                    return pid
        time.sleep(0.05)
    return None


# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------

class Run:
    """The processes of one run, ended in reverse order whatever happens."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="headsup-live-bench-"))
        self.processes = []  # (label, Popen), in start order
        self.seen = {}       # pid -> (starttime, label): everything started, children included

    def start(self, label, arguments, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        process = subprocess.Popen(arguments, start_new_session=True, **kwargs)
        self.processes.append((label, process))
        self.remember(process.pid, label)
        return process

    def remember(self, pid, label):
        try:
            self.seen[pid] = (int(stat_fields(f"/proc/{pid}/stat")[19]), label)
        except OSError:
            pass

    def remember_tree(self):
        table = process_table()
        for label, process in self.processes:
            for pid in descendants(process.pid, table):
                if pid not in self.seen and pid in table:
                    self.seen[pid] = (table[pid][1], label + " (child)")

    @staticmethod
    def stop(process, first, grace):
        if process.poll() is not None:
            return
        try:
            process.send_signal(first)
            process.wait(timeout=grace)
        except (subprocess.TimeoutExpired, OSError):
            pass
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # its own session: it and whatever it started
            except OSError:
                pass
            process.wait()

    def close(self):
        """Ends every process started (the last started first) and checks none is left."""
        self.remember_tree()
        for label, process in reversed(self.processes):
            # The fake kernel's wrapper forwards TERM to headsup, and removes its namespace and work directory.
            # dbusmock's GLib loop does not stop on SIGTERM: KILL at once.
            first, grace = (signal.SIGKILL, 5) if label.startswith("dbusmock") else (signal.SIGTERM, 20)
            self.stop(process, first, grace)
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream:
                    stream.close()
        left = []
        table = process_table()
        for pid, (start, label) in self.seen.items():
            if pid in table and table[pid][1] == start:
                left.append(f"{pid} ({label})")
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        shutil.rmtree(self.work, ignore_errors=True)
        return left


def preconditions(options):
    """Raises Skip with the reason when this machine cannot run it."""
    if os.geteuid() != 0:
        raise Skip("needs root (euid 0) for the emulated IIO kernel's mount namespace and FUSE mount")
    if options.iio_backend == "fuse" and not os.access("/dev/fuse", os.R_OK | os.W_OK):
        raise Skip("/dev/fuse is missing or not usable (the emulated IIO kernel's sysfs is a FUSE file system)")
    if shutil.which("unshare") is None:
        raise Skip("unshare (util-linux) is not installed")
    if not os.access("/usr/bin/dbus-daemon", os.X_OK) or shutil.which("dbus-send") is None:
        raise Skip("dbus-daemon or dbus-send is not installed (make test installs Debian's dbus)")
    if not os.access(MOCK_PYTHON, os.X_OK):
        raise Skip(f"{MOCK_PYTHON} is missing")
    check = subprocess.run([MOCK_PYTHON, "-c", "import dbus, dbusmock, dbusmock.templates.bluez5, dbusmock.templates.notification_daemon"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        raise Skip(f"python3-dbus and python3-dbusmock are not installed for {MOCK_PYTHON} (make test installs them): "
                   + (check.stderr.strip().splitlines() or ["?"])[-1])
    if not Path(options.binary).is_file() or not os.access(options.binary, os.X_OK):
        raise SystemExit(f"{options.binary} is missing: build it (make release)")
    if options.session and not Path(options.session).is_file():
        raise SystemExit(f"{options.session}: no such session file")


def settings_flags(arguments):
    """The flags among `live`'s extra arguments that `config show` takes too (the settings ones)."""
    with_value = {"--config", "--model", "--region", "--hop", "--threshold", "--webhook", "--notify-command"}
    kept, index = [], 0
    while index < len(arguments):
        name = arguments[index].split("=", 1)[0]
        if name in with_value:
            takes = 0 if "=" in arguments[index] else 1
            kept += arguments[index:index + 1 + takes]
            index += 1 + takes
        elif name == "--no-desktop":
            kept.append(arguments[index])
            index += 1
        else:
            index += 1
    return kept


def daemon_settings(options, environment):
    """The model, hop and kernel level `headsup live` will use here: from `config show` and `model inspect`."""
    found = {"model": None, "hop": None, "kernel_level": None}
    shown = subprocess.run([options.binary, "config", "show"] + options.extra_config, env=environment, capture_output=True, text=True, timeout=60)
    for line in shown.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "model":
            found["model"] = parts[1]
        elif len(parts) >= 2 and parts[0] == "windowing.hop":
            found["hop"] = parts[1]
    if found["model"]:
        inspected = subprocess.run([options.binary, "model", "inspect", found["model"]], env=environment, capture_output=True, text=True, timeout=120)
        for line in inspected.stdout.splitlines():
            if line.startswith("Kernels:"):
                found["kernel_level"] = line.split(":", 1)[1].split("(HEADSUP_KERNELS")[0].strip()
    return found


def private_bus(run):
    socket_dir = run.work / "bus"
    socket_dir.mkdir()
    bus = run.start("dbus-daemon", ["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1",
                                    f"--address=unix:dir={socket_dir}"],
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = bus.stdout.readline().strip()
    if not address.startswith("unix:"):
        raise SystemExit("dbus-daemon did not print its address")
    return address


def wait_for_name(environment, name, process, seconds=15):
    """Until `name` has an owner on the private bus (dbus-send from the bus's own package)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        result = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus.NameHasOwner", f"string:{name}"], env=environment, capture_output=True, text=True)
        if "boolean true" in result.stdout:
            return True
        time.sleep(0.05)
    return False


def wait_for_text(path, text, deadline, process):
    while time.monotonic() < deadline:
        if text in path.read_text(errors="replace"):
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.05)
    return False


COUNTERS = re.compile(r"counters: (.*)$", re.M)


def counters(log, index):
    """The numbers of the daemon's index-th SIGUSR1 counters line, or None."""
    lines = COUNTERS.findall(log)
    if len(lines) <= index:
        return None
    return parse_counters(lines[index])


def parse_counters(line):
    def number(pattern):
        match = re.search(pattern, line)
        return int(match.group(1)) if match else None
    return {"windows_scored": number(r"windows scored (\d+)"), "windows_skipped": number(r"skipped (\d+)"),
            "samples": number(r"samples (\d+)"), "advertisements": number(r"(\d+) advertisements"),
            "warnings": number(r"warnings (\d+)"), "line": line.strip()}


def wait_for_counters(path, index, deadline, process):
    while time.monotonic() < deadline and process.poll() is None:
        found = counters(path.read_text(errors="replace"), index)
        if found:
            return found
        time.sleep(0.02)
    return None


def measure(options):
    run = Run()
    result = {}
    load_before = [round(x, 2) for x in os.getloadavg()]
    try:
        address = private_bus(run)
        environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address, DBUS_SESSION_BUS_ADDRESS=address)
        environment.pop("DBUS_STARTER_ADDRESS", None)
        logs = run.work / "logs"
        logs.mkdir()

        bluez = run.start("dbusmock bluez5", [MOCK_PYTHON, "-m", "dbusmock", "--system", "-t", "bluez5"], env=environment,
                          stdout=subprocess.DEVNULL, stderr=(logs / "bluez.log").open("w"))
        notifications = run.start("dbusmock notification_daemon", [MOCK_PYTHON, "-m", "dbusmock", "--session", "-t", "notification_daemon"],
                                  env=environment, stdout=subprocess.DEVNULL, stderr=(logs / "notifications.log").open("w"))
        for name, process in (("org.bluez", bluez), ("org.freedesktop.Notifications", notifications)):
            if not wait_for_name(environment, name, process):
                raise SystemExit(f"the mock for {name} did not start:\n" + (logs / ("bluez.log" if name == "org.bluez" else "notifications.log")).read_text())
        feeder = run.start("beacon feeder", [MOCK_PYTHON, "-m", "tools.bench.live_daemon", "--beacon-feeder", "--beacons", str(options.beacons),
                                             "--beacon-cycle", str(options.beacon_cycle)],
                           env=dict(environment, PYTHONPATH=str(REPO)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=(logs / "feeder.log").open("w"), text=True)
        if feeder.stdout.readline().strip() != "READY":
            raise SystemExit("the beacon feeder did not start:\n" + (logs / "feeder.log").read_text())

        config_home = run.work / "config"
        config_home.mkdir()
        live_environment = dict(environment, XDG_CONFIG_HOME=str(config_home), HEADSUP_SYSTEM_CONFIG_DIR=str(config_home / "system"))
        if options.session:
            live_environment["FAKE_IIO_SESSION"] = str(Path(options.session).resolve())
        else:
            live_environment.pop("FAKE_IIO_SESSION", None)
        settings = daemon_settings(options, live_environment)
        out, err = run.work / "stdout.jsonl", run.work / "stderr.log"
        callgrind_out = run.work / "callgrind.out"
        valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={callgrind_out}"] if options.callgrind else []
        binary = options.binary
        if options.callgrind:
            binary, live_environment["LD_PRELOAD"] = callgrind_ready(options.binary, run.work)
        # --chardev fifo: the device nodes answer poll/read in the kernel, as real ones do (the
        # FUSE node with the one-opener rule costs the reader a switch per call).
        arguments = ["/bin/bash", str(FAKE_KERNEL), "--backend", options.iio_backend, "--chardev", "fifo",
                     "--scenario", options.iio_scenario, "--"] + valgrind + [
                     binary, "live",
                     "--region", f"crossing={REGION_UUID}:1"] + options.extra
        wrapper = run.start("fake IIO kernel + headsup live", arguments, env=live_environment, stdout=out.open("w"), stderr=err.open("w"))
        if not wait_for_text(err, "discovering on", time.monotonic() + 60, wrapper):
            wrapper.wait(timeout=30) if wrapper.poll() is None else None
            text = err.read_text(errors="replace")
            if wrapper.returncode == 77:
                raise Skip("the emulated IIO kernel cannot run here: " + (text.strip().splitlines() or ["exit 77"])[-1])
            raise SystemExit(f"headsup live did not start beacon discovery (exit status {wrapper.returncode}):\n{text}")
        pid = find_headsup(wrapper.pid, options.binary, time.monotonic() + 10, wrapper)
        if pid is None:
            raise SystemExit("cannot find the headsup live process under the fake kernel")
        run.remember_tree()

        started = time.monotonic()
        while time.monotonic() < started + options.warmup and wrapper.poll() is None:
            time.sleep(0.05)
        if wrapper.poll() is not None:
            raise SystemExit(f"headsup live ended during the warm-up:\n{err.read_text(errors='replace')}")
        if options.callgrind:
            # Counts from here on: start-up (the model's load and check) is left out.
            subprocess.run(["callgrind_control", "--zero", str(pid)], capture_output=True, timeout=60)
        first = snapshot(pid)
        felt_first = procfs.sample(pid)
        os.kill(pid, signal.SIGUSR1)
        counters_start = wait_for_counters(err, 0, time.monotonic() + 5, wrapper)
        rss_samples = []
        end = first["time"] + options.seconds
        while time.monotonic() < end and wrapper.poll() is None:
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
            try:
                rss_samples.append(kb(status_fields(f"/proc/{pid}/status").get("VmRSS")))
            except OSError:
                break
        if wrapper.poll() is not None:
            raise SystemExit(f"headsup live ended during the measurement:\n{err.read_text(errors='replace')}")
        last = snapshot(pid)
        felt_last = procfs.sample(pid)
        if options.callgrind:
            subprocess.run(["callgrind_control", "--dump=measured", str(pid)], capture_output=True, timeout=60)
        largest = mappings(pid)
        os.kill(pid, signal.SIGUSR1)
        counters_end = wait_for_counters(err, 1, time.monotonic() + 5, wrapper)
        run.remember_tree()

        os.kill(pid, signal.SIGTERM)
        try:
            wrapper.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        feeder.stdin.close()
        try:
            feeder_totals = json.loads(feeder.stdout.read().strip().splitlines()[-1])
            feeder.wait(timeout=10)
        except (ValueError, IndexError, subprocess.TimeoutExpired):
            feeder_totals = {}
        result = figures(options, pid, first, last, counters_start, counters_end, rss_samples)
        result["rss_by_mapping_mb"] = largest
        if options.callgrind:
            dumps = sorted(run.work.glob("callgrind.out*"), key=lambda p: p.stat().st_mtime)
            # The dump callgrind_control asked for (its trigger names it); the file at exit is the plain name.
            measured = [d for d in dumps if "measured" in d.read_text(errors="replace")[:4000]] \
                or [d for d in dumps if d.name != "callgrind.out"]
            result["callgrind"] = callgrind_figures(measured[-1] if measured else None, result, feeder_totals, options)
        result["felt"] = procfs.costs(felt_first, felt_last)
        result["iio_scenario"] = options.iio_scenario
        result.update(binary_state(options.binary))
        result["model"], result["hop"], result["kernel_level"] = settings["model"], settings["hop"], settings["kernel_level"]
        result["load_average_before"] = load_before
        result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        result["beacon_advertisements_sent"] = feeder_totals.get("advertisements")
        log = err.read_text(errors="replace")
        summary = [line for line in log.splitlines() if "headsup live: windows scored" in line]
        result["exit_summary"] = summary[-1].split("headsup live: ", 1)[1] if summary else None
        result["exit_status"] = wrapper.returncode
        events = {}
        for line in out.read_text(errors="replace").splitlines():
            try:
                kind = json.loads(line).get("event", "?")
            except ValueError:
                continue
            events[kind] = events.get(kind, 0) + 1
        result["output_events"] = events
        result["log_lines"] = len(log.splitlines())
    finally:
        left = run.close()
        result["left_running"] = left
        if left:
            print("cleanup: processes still running were killed: " + ", ".join(left), file=sys.stderr)
    return result


# What a phone core would spend: instructions counted by callgrind (whatever
# the load) turned into a share of a Cortex-A53 at 1.1 GHz (the PinePhone's).
A53_HZ = 1.1e9
# The Cortex-A53's IPC on the model's hot blocks from llvm-mca (LLVM 19's cortex-a53 model),
# docs/notes/2026-11-27-arm64-cost-on-paper.md; the daemon's other code is branchier, so
# the estimate is also given at half that IPC.
A53_IPC = 0.61
# Functions by parts of their (mangled) names, all of which must appear: a window is ModelScorer's
# WindowScorer.score (KerasModel.predict is inlined into it), a BLE update all of sd_bus_process.
PATTERNS = {"window": ("11ModelScorerV", "5score"), "ble": ("sd_bus_process",),
            # String.hash(into:): what a String-keyed (or String raw-valued) dictionary key costs.
            "string_hashing": ("$sSS4hash4intoys6HasherVz_tF",)}


def callgrind_ready(binary, work):
    """What valgrind 3.19 needs to run headsup: a copy without DWARF (it
    cannot read Swift's DWARF 5 and gives up), kept under .build/ so that the
    bundled model is found from it, and tools/bench/valgrind_spawn.c
    preloaded (the model check's child cannot be spawned under valgrind
    otherwise). Returns the copy and the preload."""
    copy = REPO / ".build/bench-callgrind" / os.path.basename(binary)
    copy.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["objcopy", "--strip-debug", binary, str(copy)], check=True)
    shim = work / "valgrind_spawn.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(Path(__file__).resolve().parent / "valgrind_spawn.c"), "-ldl"],
                   check=True)
    return str(copy), str(shim)


def callgrind_inclusive(path):
    """{function: inclusive instructions} from callgrind_annotate --inclusive=yes."""
    shown = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)], capture_output=True, text=True,
                           timeout=300).stdout
    return parse_inclusive(shown)


def parse_inclusive(text):
    found = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if match and ":" in match.group(2):
            count = int(match.group(1).replace(",", ""))
            name = match.group(2).strip()
            found[name] = max(found.get(name, 0), count)
    return found


def callgrind_totals(path):
    """The dump's total instructions (its 'summary:' or 'totals:' line)."""
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    return None


def callgrind_figures(path, result, feeder_totals, options):
    if path is None:
        return {"error": "no callgrind dump of the measured interval (callgrind_control failed?)"}
    seconds = result["seconds"]
    total = callgrind_totals(path)
    inclusive = callgrind_inclusive(path)

    def largest(patterns):
        hits = [count for name, count in inclusive.items() if all(p in name for p in patterns)]
        return max(hits) if hits else None
    windows = result.get("windows_scored")
    sent = options.beacons * seconds  # each beacon advertises once a second
    window_ir, ble_ir = largest(PATTERNS["window"]), largest(PATTERNS["ble"])
    per_second = total / seconds if total else None
    return {
        "instructions": total, "seconds": seconds, "instructions_per_s": round(per_second) if per_second else None,
        "instructions_per_window": round(window_ir / windows) if window_ir and windows else None,
        "instructions_per_ble_update": round(ble_ir / sent) if ble_ir and sent else None,
        "ble_updates_assumed": round(sent),
        "a53_percent": round(100 * per_second / (A53_IPC * A53_HZ), 3) if per_second else None,
        "a53_percent_half_ipc": round(100 * per_second / (A53_IPC / 2 * A53_HZ), 3) if per_second else None,
        "assumed": f"Cortex-A53 at {A53_HZ / 1e9:.1f} GHz, IPC {A53_IPC} (llvm-mca cortex-a53 on the model's hot blocks, "
                   "docs/notes/2026-11-27-arm64-cost-on-paper.md) and half that; x86-64 instruction counts stand in for aarch64's",
        "string_hashing_per_s": round(largest(PATTERNS["string_hashing"]) / seconds) if largest(PATTERNS["string_hashing"]) else 0,
        "top": sorted(inclusive.items(), key=lambda item: -item[1])[:12],
    }


def figures(options, pid, first, last, counters_start, counters_end, rss_samples):
    elapsed = last["time"] - first["time"]
    cpu = (last["cpu_ticks"] - first["cpu_ticks"]) / TICK
    both = set(first["threads"]) & set(last["threads"])
    wakeups_first = sum(t["wakeups"] for t in first["threads"].values())
    wakeups_last = sum(t["wakeups"] for t in last["threads"].values())
    run_ns = sum(last["threads"][t]["run_ns"] - first["threads"][t]["run_ns"] for t in both)
    threads = []
    for tid in sorted(last["threads"]):
        now = last["threads"][tid]
        before = first["threads"].get(tid, {"wakeups": 0, "voluntary": 0, "nonvoluntary": 0, "run_ns": 0, "cpu_ticks": 0})
        threads.append({"tid": tid, "name": now["name"], "main": tid == pid, "wchan": now["wchan"], "new": tid not in first["threads"],
                        "wakeups_per_s": round((now["wakeups"] - before["wakeups"]) / elapsed, 2),
                        "voluntary": now["voluntary"] - before["voluntary"], "nonvoluntary": now["nonvoluntary"] - before["nonvoluntary"],
                        "cpu_ms": round((now["run_ns"] - before["run_ns"]) / 1e6, 1)})
    windows = None
    samples = None
    advertisements = None
    if counters_start and counters_end:
        def delta(key):
            a, b = counters_start.get(key), counters_end.get(key)
            return b - a if a is not None and b is not None else None
        windows, samples, advertisements = delta("windows_scored"), delta("samples"), delta("advertisements")
    return {
        "cpu": cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(), "kernel_version": platform.version(),
        "kernels": os.environ.get("HEADSUP_KERNELS") or "auto",
        "binary": options.binary, "runtime_linking": procfs.runtime_linking(options.binary), "session": options.session or "synthetic signals", "beacons": options.beacons,
        "warmup_s": options.warmup, "seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
        "user_seconds": round((last["utime_ticks"] - first["utime_ticks"]) / TICK, 3),
        "system_seconds": round((last["stime_ticks"] - first["stime_ticks"]) / TICK, 3),
        "core_percent": round(100 * cpu / elapsed, 3),
        "run_seconds_schedstat": round(run_ns / 1e9, 4),
        "core_percent_schedstat": round(100 * run_ns / 1e9 / elapsed, 3),
        "rss_peak_mb": round(last["vm_hwm_kb"] / 1024, 2), "rss_peak_mb_at_start": round(first["vm_hwm_kb"] / 1024, 2),
        "rss_mb": round(last["vm_rss_kb"] / 1024, 2), "rss_mb_at_start": round(first["vm_rss_kb"] / 1024, 2),
        "rss_anon_mb": round(last["rss_anon_kb"] / 1024, 2), "rss_file_mb": round(last["rss_file_kb"] / 1024, 2),
        "rss_shmem_mb": round(last["rss_shmem_kb"] / 1024, 2), "vm_size_mb": round(last["vm_size_kb"] / 1024, 1),
        "rss_min_mb": round(min(rss_samples) / 1024, 2) if rss_samples else None,
        "rss_max_mb": round(max(rss_samples) / 1024, 2) if rss_samples else None,
        "wakeups_per_s": round((wakeups_last - wakeups_first) / elapsed, 2),
        "threads": len(last["threads"]), "threads_at_start": len(first["threads"]),
        "windows_scored": windows, "windows_per_s": round(windows / elapsed, 3) if windows is not None else None,
        "samples_50hz": samples, "advertisements_seen": advertisements,
        "per_thread": threads,
        "counters_start": counters_start and counters_start["line"], "counters_end": counters_end and counters_end["line"],
    }


def report(result):
    r = result
    print(f"CPU: {r['cpu']} ({r['cpus']} CPUs); kernel {r['kernel']} ({r.get('kernel_version', '?')})")
    print(f"kernels: {r['kernels']} (the model runs on: {r.get('kernel_level') or '?'})")
    print(f"emulated IIO kernel: scenario {r.get('iio_scenario')} ({iio_scenarios().get(r.get('iio_scenario'), '?')})"
          + "; device nodes are FIFOs (poll and read answered in the kernel)")
    print(f"binary: {r['binary']} ({r['runtime_linking']}), built {r['binary_built']}; tree at {r['commit']}"
          + (f"; WARNING: {len(r['sources_newer_than_binary'])} files under Sources/ are newer (stale binary?), e.g. "
             + ", ".join(r["sources_newer_than_binary"][:3]) if r["sources_newer_than_binary"] else ""))
    print(f"model: {r.get('model') or '?'}, hop {r.get('hop') or '?'}")
    print(f"motion: {r['session']}; beacons: {r['beacons']}, one advertisement each a second")
    print(f"measured: {r['seconds']:.1f} s after {r['warmup_s']:.0f} s of warm-up")
    f = r.get("felt")
    if f:
        print(f"as a phone feels it: {f['core_percent']:.3f} % of one core ({f['core_percent_schedstat']:.3f} % by schedstat), "
              f"{f['wakeups_per_s']:.1f} wake-ups/s (voluntary switches), {f['switches_per_s']:.1f} context switches/s, "
              f"{f['timeslices_per_s']:.1f} times on a CPU/s (schedstat); RSS {f['rss_mb']:.1f} MB (peak {f['rss_peak_mb']:.1f}), "
              f"PSS {f['pss_mb'] if f['pss_mb'] is not None else '?'} MB")
    print(f"CPU seconds: {r['cpu_seconds']:.2f} (user {r['user_seconds']:.2f}, system {r['system_seconds']:.2f}; "
          f"/proc stat ticks of 1/{TICK} s), {r['core_percent']:.3f} % of one core")
    print(f"  threads' run time (schedstat, ns): {r['run_seconds_schedstat']:.3f} s, {r['core_percent_schedstat']:.3f} % of one core")
    print(f"RSS: peak (VmHWM) {r['rss_peak_mb']:.1f} MB (at the start of the interval {r['rss_peak_mb_at_start']:.1f}), "
          f"current (VmRSS) {r['rss_mb']:.1f} MB (anon {r['rss_anon_mb']:.1f}, file {r['rss_file_mb']:.1f}, shmem {r['rss_shmem_mb']:.1f}); "
          f"at the start {r['rss_mb_at_start']:.1f} MB, sampled {r['rss_min_mb']}-{r['rss_max_mb']} MB; VmSize {r['vm_size_mb']:.0f} MB")
    if r.get("rss_by_mapping_mb"):
        print("  resident by mapping (MB): " + ", ".join(f"{os.path.basename(name) if name.startswith('/') else name} {mb:.1f}"
                                                        for mb, name in r["rss_by_mapping_mb"]))
    print(f"wake-ups: {r['wakeups_per_s']:.1f} per second (voluntary + involuntary context switches, all threads)")
    print(f"threads: {r['threads']}")
    for t in r["per_thread"]:
        print(f"  {t['tid']:>8} {t['name'] + (' (main)' if t['main'] else ''):<22} {t['wakeups_per_s']:>7.1f} wake-ups/s "
              f"({t['voluntary']} vol, {t['nonvoluntary']} invol), {t['cpu_ms']:>7.1f} ms CPU, waits in {t['wchan']}{' (new)' if t['new'] else ''}")
    if r["windows_scored"] is not None:
        print(f"windows scored: {r['windows_scored']} ({r['windows_per_s']:.2f}/s); 50 Hz samples {r['samples_50hz']}; "
              f"beacon advertisements seen {r['advertisements_seen']} (sent {r.get('beacon_advertisements_sent')} in the whole run)")
    else:
        print("windows scored: unknown (no counters from SIGUSR1)")
    print(f"output events (whole run): {json.dumps(r.get('output_events', {}), sort_keys=True)}")
    c = r.get("callgrind")
    if c:
        if c.get("error"):
            print(f"callgrind: {c['error']}")
        else:
            print(f"callgrind (the measured interval; CPU figures above are valgrind's, not the daemon's): {c['instructions']:,} instructions, "
                  f"{c['instructions_per_s']:,} a second; per window scored {c['instructions_per_window']}; per BLE update "
                  f"{c['instructions_per_ble_update']} (sd_bus_process inclusive over {c['ble_updates_assumed']} updates sent); "
                  f"String.hash(into:) {c.get('string_hashing_per_s', 0):,} a second")
            print(f"  a Cortex-A53 would spend {c['a53_percent']:.3f} % of one core ({c['a53_percent_half_ipc']:.3f} % at half the IPC); "
                  f"assumed: {c['assumed']}")
            for name, count in c["top"][:8]:
                print(f"    {count:>14,}  {name[:110]}")
    if r.get("exit_summary"):
        print(f"exit summary: {r['exit_summary']}")
    print(f"load average: {' '.join(map(str, r['load_average_before']))} before, {' '.join(map(str, r['load_average_after']))} after")
    print("cleanup: " + ("every process started has ended" if not r.get("left_running") else "KILLED leftovers: " + ", ".join(r["left_running"])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Arguments after -- go to `headsup live`.")
    parser.add_argument("--binary", default=procfs.default_binary(REPO),
                        help="the headsup executable (.build-dist/release/headsup, as installed, else .build/release/headsup)")
    parser.add_argument("--seconds", type=float, default=60, help="measured seconds (60)")
    parser.add_argument("--warmup", type=float, default=5, help="seconds after discovery started before measuring (5)")
    parser.add_argument("--beacons", type=int, default=4, help="iBeacons advertising once a second each; the first is in the region (4)")
    parser.add_argument("--beacon-cycle", type=float, default=20,
                        help="seconds of one walk past the region's beacon, 0 = steady (20)")
    parser.add_argument("--session", default=str(REPO / "datasets/scenarios/crossing-hands/session.csv"),
                        help="recorded session the emulated IMU plays (crossing-hands); '' = the emulator's synthetic signals")
    parser.add_argument("--iio-backend", choices=["fuse", "tmpfs", "auto"], default="fuse", help="the emulated sysfs (fuse)")
    parser.add_argument("--iio-scenario", choices=sorted(iio_scenarios()), default="standard",
                        help="the emulated devices: standard (IMU and magnetometer buffered), polled (the magnetometer an "
                             "ak8975 read through sysfs; the IMU stays buffered), or a phone or board (librem5, pinephone, ...: "
                             "Tests/Harness/iio/profiles.py; use --session '' with these, the recorded session is played through "
                             "the standard scenario's mount matrices)")
    parser.add_argument("--callgrind", action="store_true",
                        help="run headsup under valgrind's callgrind: instructions in the measured interval, per window, per BLE update, "
                             "and a Cortex-A53 estimate (slow: the /proc figures are valgrind's)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE", help="the figures as JSON, to FILE or (no FILE) to stdout instead of the text")
    parser.add_argument("--beacon-feeder", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("extra", nargs="*", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.beacon_feeder:
        beacon_feeder(options.beacons, options.beacon_cycle, REGION_UUID)
        return 0
    if options.beacons < 1:
        parser.error("--beacons must be at least 1")
    options.binary = str(Path(options.binary).resolve())
    options.extra_config = settings_flags(options.extra)
    ci = os.environ.get("CI", "").lower() == "true"

    interrupted = []

    def on_signal(number, _frame):
        # Once: the cleanup that follows must not be interrupted in turn.
        interrupted.append(number)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    try:
        preconditions(options)
        print(f"… headsup live for {options.warmup:.0f} + {options.seconds:.0f} s (HEADSUP_KERNELS={os.environ.get('HEADSUP_KERNELS') or 'auto'})",
              file=sys.stderr, flush=True)
        result = measure(options)
    except Skip as skip:
        if options.json:
            text = json.dumps({"skipped": str(skip)})
            print(text) if options.json == "-" else Path(options.json).write_text(text + "\n")
        if ci:
            print(f"error: cannot run (CI=true): {skip}", file=sys.stderr)
            return 1
        print(f"skipped: {skip}")
        return 0
    except KeyboardInterrupt:
        print("interrupted; the processes it started have been ended", file=sys.stderr)
        return 130
    if options.json == "-":
        print(json.dumps(result, indent=1))
    else:
        report(result)
        if options.json:
            Path(options.json).write_text(json.dumps(result, indent=1) + "\n")
    return 1 if result.get("left_running") else 0


if __name__ == "__main__":
    sys.exit(main())
