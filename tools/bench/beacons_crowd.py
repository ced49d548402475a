#!/usr/bin/env python3
"""HeadsUp's beacon monitoring in a crowded street: `headsup beacons watch`
and `headsup live` against a crowd of Bluetooth devices (python-dbusmock
playing bluetoothd on a private dbus-daemon, Tests/Harness/bluez_crowd.py),
timed from /proc.

    python3 -m tools.bench.beacons_crowd                  # 60 s per run, 8 runs
    python3 -m tools.bench.beacons_crowd --seconds 20     # shorter
    python3 -m tools.bench.beacons_crowd --churn          # 10 min, 10,000 addresses: RSS over time

Each run: a fresh private bus, the crowd (N devices, --rate advertisements
a second in all, plus the walker: the monitored beacon, 10 advertisements a
second, approached and left every 20 s), HeadsUp started and given
--warmup seconds, then --seconds measured: CPU from /proc/PID/stat
(utime + stime; 10 ms ticks), wake-ups (voluntary context switches) and
all context switches summed over the threads, times on a CPU (schedstat),
RSS from /proc/PID/status (VmRSS sampled every 0.5 s, VmHWM), PSS from
smaps_rollup, the advertisements sent in the window from the crowd's
progress lines. --rssi-only and --one-at-a-time make the crowd send what a
plain bluetoothd sends: RSSI alone, one signal at a time. Loads: the walk-by baseline (the walker alone) and
N = 50, 400, 2,000. `live` runs in the emulated IIO kernel
(Tests/Harness/iio/run_in_fake_kernel.sh, root only) on a recorded session,
as the live end-to-end test does. Targets are printed, never asserted.
Standard library only; needs dbus-daemon and python3-dbusmock for
/usr/bin/python3 (make test installs both).
"""
import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tools.bench import procfs
from tools.bench.procfs import descendants

REPO = Path(__file__).resolve().parent.parent.parent
CROWD = REPO / "Tests/Harness/bluez_crowd.py"
FAKE_KERNEL = REPO / "Tests/Harness/iio/run_in_fake_kernel.sh"
PYTHON = "/usr/bin/python3"  # Debian's, with python3-dbus and python3-dbusmock
UUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
REGION = f"crossing={UUID}:1"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

LIVE_CONFIG = f"""beacons:
  regions: ["{REGION}"]
notifications:
  desktop: false
"""


def git_head():
    try:
        return subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cd", "--date=iso"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def cpu_seconds(pid):
    """utime + stime of the process (all its threads), seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def memory(pid):
    """VmRSS and VmHWM in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)




def find_headsup(wrapper, binary, deadline):
    """The `headsup live` process under the fake-kernel wrapper (not its model-check child)."""
    while time.monotonic() < deadline:
        for pid in descendants(wrapper):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv and argv[0].decode(errors="replace").endswith("headsup") and b"live" in argv[1:2]:
                return pid
        time.sleep(0.05)
    return None


class PrivateBus:
    def __init__(self):
        self.directory = tempfile.TemporaryDirectory(prefix="headsup-crowd-bus-")
        self.process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1", f"--address=unix:dir={self.directory.name}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address.startswith("unix:"):
            raise SystemExit("dbus-daemon did not print its address")
        self.environment = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address, DBUS_SESSION_BUS_ADDRESS=self.address)

    def close(self):
        self.process.kill()
        self.process.wait()
        self.directory.cleanup()


def wait_for(path, text, deadline, process=None):
    while time.monotonic() < deadline:
        if text in Path(path).read_text(errors="replace"):
            return True
        if process is not None and process.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def summary_counters(log):
    """The numbers of headsup's 'beacons: …' exit line."""
    for line in reversed(log.splitlines()):
        if "beacons:" in line:
            return line[line.index("beacons:"):].strip()
    return ""


def run_once(options, command, devices, seconds, rotate=0.0, rss_every=0.5, label=None, path="discovery"):
    """One load, one command, one scan path (discovery: a bluetoothd with no
    advertisement monitor manager; monitor: one that offers it, and the
    crowd is what bluetoothd would then send): returns a dict of figures."""
    bus = PrivateBus()
    work = tempfile.TemporaryDirectory(prefix="headsup-crowd-")
    out, err = Path(work.name, "stdout"), Path(work.name, "stderr")
    crowd_seconds = options.warmup + seconds + 30
    crowd_arguments = [
        PYTHON, str(CROWD), "--start-mock", "--wait", "--progress", "--devices", str(devices), "--rate", str(options.rate if devices else 0),
        "--seconds", str(crowd_seconds), "--walker", f"{UUID.lower()}:1:2", "--seed", str(options.seed), "--rotate", str(rotate),
    ] + (["--rssi-only"] if options.rssi_only else []) + (["--one-at-a-time"] if options.one_at_a_time else []) \
        + (["--monitor"] if path == "monitor" else [])
    crowd = subprocess.Popen(crowd_arguments, env=bus.environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    result = {"command": command, "devices": devices, "rate": options.rate if devices else 0, "seconds": seconds, "label": label,
              "path": path}
    headsup = None
    lines = []
    try:
        if crowd.stdout.readline().strip() != "READY":
            raise SystemExit("the crowd did not start")
        if command == "watch":
            arguments = [options.binary, "beacons", "watch", "--region", REGION, "--json"] + (["--scan", "monitor"] if path == "monitor" else [])
            headsup = subprocess.Popen(arguments, env=bus.environment, stdout=out.open("w"), stderr=err.open("w"))
            pid = headsup.pid
        else:
            config = Path(work.name, "config.yaml")
            config.write_text(LIVE_CONFIG.replace("beacons:\n", "beacons:\n  scan: monitor\n") if path == "monitor" else LIVE_CONFIG)
            environment = dict(bus.environment, FAKE_IIO_SESSION=str(REPO / "datasets/scenarios/crossing-hands/session.csv"))
            arguments = ["/bin/bash", str(FAKE_KERNEL), "--chardev", "fifo", "--", options.binary, "live", "--config", str(config), "--json",
                         "--model", str(REPO / "weights/model.h5")]
            headsup = subprocess.Popen(arguments, env=environment, stdout=out.open("w"), stderr=err.open("w"))
            pid = None
        ready = "scan path: advertisement monitor (or_patterns) on /org/bluez/hci0, active" if path == "monitor" else "discovering on"
        if not wait_for(err, ready, time.monotonic() + 60, headsup):
            raise SystemExit(f"headsup {command} never logged '{ready}':\n{err.read_text()}")
        if pid is None:
            pid = find_headsup(headsup.pid, options.binary, time.monotonic() + 10)
            if pid is None:
                raise SystemExit("cannot find the headsup live process under the fake kernel")
        crowd.stdin.write("go\n")
        crowd.stdin.flush()
        progress, consumed = [], [0]
        reader = threading.Thread(target=lambda: lines.extend(iter(crowd.stdout.readline, "")), daemon=True)
        reader.start()

        def read_progress():
            # The crowd prints one line a second (a reader thread collects them); the totals line comes last.
            while consumed[0] < len(lines):
                line = lines[consumed[0]]
                consumed[0] += 1
                if line.startswith('{"t"'):
                    progress.append(json.loads(line))

        go = time.monotonic()
        start = go + options.warmup
        end = start + seconds
        rss = []
        while time.monotonic() < start:
            time.sleep(0.05)
            read_progress()
        cpu_start, t_start = cpu_seconds(pid), time.monotonic()
        felt_start = procfs.sample(pid)
        rss_start, _ = memory(pid)
        next_sample = t_start
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_sample:
                rss.append((now - t_start, memory(pid)[0]))
                next_sample += rss_every
            read_progress()
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))
        cpu_end, t_end = cpu_seconds(pid), time.monotonic()
        felt = procfs.costs(felt_start, procfs.sample(pid))
        rss_end, hwm = memory(pid)
        # The progress lines a second either side of the window give the advertisements in it.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and (not progress or progress[-1]["t"] < t_end):
            time.sleep(0.1)
            read_progress()
        os.kill(pid, signal.SIGINT)
        headsup.wait(timeout=30)
        elapsed = t_end - t_start
        cpu = cpu_end - cpu_start
        sent = interpolate(progress, t_start, t_end)
        events = [json.loads(line) for line in out.read_text(errors="replace").splitlines() if line.startswith("{")]
        log = err.read_text(errors="replace")
        result.update({
            "cpu_seconds": round(cpu, 3), "elapsed": round(elapsed, 3), "core_percent": round(100 * cpu / elapsed, 3),
            "advertisements": sent["crowd"] + sent["walker"], "crowd_advertisements": sent["crowd"], "walker_advertisements": sent["walker"],
            "us_per_advertisement": round(1e6 * cpu / max(1, sent["crowd"] + sent["walker"]), 2),
            "rss_start_mb": round(rss_start, 2), "rss_end_mb": round(rss_end, 2), "rss_peak_mb": round(hwm, 2),
            "rss_min_mb": round(min(r for _, r in rss), 2) if rss else None, "rss_max_mb": round(max(r for _, r in rss), 2) if rss else None,
            "rss_samples": [(round(t, 1), round(r, 2)) for t, r in rss],
            "enters": sum(1 for e in events if e.get("event") == "enter"),
            "wakeups_per_s": felt["wakeups_per_s"], "switches_per_s": felt["switches_per_s"],
            "timeslices_per_s": felt["timeslices_per_s"], "pss_mb": felt["pss_mb"],
            "counters": summary_counters(log),
        })
    finally:
        if headsup is not None and headsup.poll() is None:
            headsup.kill()
            headsup.wait()
        crowd.send_signal(signal.SIGTERM)
        try:
            crowd.wait(timeout=30)
        except subprocess.TimeoutExpired:
            crowd.kill()
            crowd.wait()
        time.sleep(0.2)
        for line in lines:
            if line.startswith('{"crowd"'):
                result["crowd"] = json.loads(line)["crowd"]
        bus.close()
        work.cleanup()
    return result


def interpolate(progress, t0, t1):
    """Advertisements (crowd, walker) sent between t0 and t1, linear between the 1 s progress points."""
    def at(t, key):
        points = [(p["t"], p[key]) for p in progress]
        if not points:
            return 0.0
        before = [p for p in points if p[0] <= t]
        after = [p for p in points if p[0] >= t]
        if not before:
            return float(after[0][1])
        if not after:
            return float(before[-1][1])
        (ta, a), (tb, b) = before[-1], after[0]
        return a if tb == ta else a + (b - a) * (t - ta) / (tb - ta)
    return {name: int(round(at(t1, key) - at(t0, key))) if progress else 0 for name, key in (("crowd", "sent"), ("walker", "walker"))}


def name_of(result):
    name = result.get("label") or ("walk-by (1 beacon)" if result["devices"] == 0 else f"{result['devices']} devices")
    return name + (", monitor" if result.get("path") == "monitor" else "")


def print_table(results):
    print(f"{'command':<7} {'load':<20} {'adv/s':>7} {'CPU s':>7} {'% core':>7} {'µs/adv':>8} {'×base':>6} "
          f"{'wake/s':>7} {'csw/s':>7} {'RSS start':>9} {'final':>7} {'peak':>7} {'PSS':>6} {'enters':>6}")
    base = {r["command"]: r for r in results if r["devices"] == 0 and "cpu_seconds" in r and r.get("path", "discovery") == "discovery"}
    for r in results:
        if "cpu_seconds" not in r:
            print(f"{r['command']:<7} {name_of(r):<20} {r.get('skipped', 'failed')}")
            continue
        ratio = r["core_percent"] / base[r["command"]]["core_percent"] if r["command"] in base and base[r["command"]]["core_percent"] else None
        print(f"{r['command']:<7} {name_of(r):<20} {r['advertisements'] / r['elapsed']:>7.1f} {r['cpu_seconds']:>7.2f} "
              f"{r['core_percent']:>7.2f} {r['us_per_advertisement']:>8.1f} {ratio if ratio is not None else float('nan'):>6.1f} "
              f"{r['wakeups_per_s']:>7.1f} {r['switches_per_s']:>7.1f} "
              f"{r['rss_start_mb']:>9.1f} {r['rss_end_mb']:>7.1f} {r['rss_peak_mb']:>7.1f} {r['pss_mb'] or float('nan'):>6.1f} {r['enters']:>6}")
    print()
    for r in results:
        if "cpu_seconds" in r:
            crowd = r.get("crowd", {})
            print(f"  {r['command']} {name_of(r)}: {r['counters'] or '(no summary)'}; crowd rate {crowd.get('rate', '?')}/s, "
                  f"largest backlog {crowd.get('max_backlog', '?')}")


def print_targets(results):
    def find(command, devices):
        return next((r for r in results if r["command"] == command and r["devices"] == devices and "cpu_seconds" in r
                     and r.get("path", "discovery") == "discovery"), None)
    print("\nTargets (reported, not asserted):")
    live400 = find("live", 400)
    if live400:
        verdict = "met" if live400["core_percent"] <= 1.5 else "NOT met"
        print(f"  live, 400 devices at {live400['advertisements'] / live400['elapsed']:.0f} adv/s: {live400['core_percent']:.2f} % of a core "
              f"(target <= 1.5 %): {verdict}")
    for command in ("watch", "live"):
        small, large, base = find(command, 50), find(command, 2000), find(command, 0)
        if small and large:
            change = large["us_per_advertisement"] / small["us_per_advertisement"] - 1
            line = (f"  {command}: CPU per advertisement N=2,000 vs N=50: {large['us_per_advertisement']:.1f} vs "
                    f"{small['us_per_advertisement']:.1f} µs ({100 * change:+.0f} %, target within ±25 %): "
                    f"{'met' if abs(change) <= 0.25 else 'NOT met'}")
            if base:
                # The cost above the walk-by baseline, per crowd advertisement.
                def marginal(r):
                    return 1e6 * (r["cpu_seconds"] / r["elapsed"] - base["cpu_seconds"] / base["elapsed"]) * r["elapsed"] / max(1, r["crowd_advertisements"])
                line += f"; above the baseline {marginal(large):.1f} vs {marginal(small):.1f} µs per crowd advertisement"
            print(line)


def churn(options):
    devices = options.churn_devices
    rotate = devices * options.churn_seconds / max(1, options.churn_addresses - devices)
    print(f"Churn: {options.churn_command}, {devices} devices at a time, {options.rate:.0f} adv/s, an address lives {rotate:.1f} s on "
          f"average: about {options.churn_addresses} addresses in {options.churn_seconds:.0f} s", flush=True)
    result = run_once(options, options.churn_command, devices, options.churn_seconds, rotate=rotate, rss_every=5, label="churn")
    samples = result["rss_samples"]
    settled = [r for t, r in samples if t >= options.churn_settle]
    print(f"  CPU {result['cpu_seconds']:.2f} s ({result['core_percent']:.2f} % of a core), {result['us_per_advertisement']:.1f} µs per "
          f"advertisement; addresses made by the crowd: {result.get('crowd', {}).get('addresses', '?')}")
    print(f"  RSS (MB) every 5 s: " + " ".join(f"{r:.1f}" for _, r in samples))
    if settled:
        reference = settled[0]
        spread = max(abs(r - reference) for r in settled)
        print(f"  RSS after {options.churn_settle:.0f} s: {reference:.2f} MB, then between {min(settled):.2f} and {max(settled):.2f} MB, "
              f"final {result['rss_end_mb']:.2f} MB, peak (VmHWM) {result['rss_peak_mb']:.2f} MB; largest change {spread:.2f} MB "
              f"(target within ±2 MB): {'met' if spread <= 2 else 'NOT met'}")
    print(f"  {result['counters']}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=procfs.default_binary(REPO))
    parser.add_argument("--seconds", type=float, default=60, help="measured seconds per run (60)")
    parser.add_argument("--warmup", type=float, default=5, help="seconds after the crowd starts before measuring (5)")
    parser.add_argument("--devices", default="0,50,400,2000", help="loads; 0 is the walk-by baseline (0,50,400,2000)")
    parser.add_argument("--rate", type=float, default=300, help="crowd advertisements a second (300)")
    parser.add_argument("--commands", default="watch,live", help="watch,live")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--churn", action="store_true", help="instead: RSS over a long churn of rotating addresses")
    parser.add_argument("--churn-seconds", type=float, default=600)
    parser.add_argument("--churn-addresses", type=int, default=10000)
    parser.add_argument("--churn-devices", type=int, default=400)
    parser.add_argument("--churn-settle", type=float, default=60, help="seconds of churn before RSS is taken as the reference (60)")
    parser.add_argument("--churn-command", choices=["watch", "live"], default="watch")
    parser.add_argument("--rssi-only", action="store_true", help="the crowd's advertisements carry RSSI alone, as a plain bluetoothd sends")
    parser.add_argument("--one-at-a-time", action="store_true", help="each advertisement its own D-Bus signal at its own time (no bursts)")
    parser.add_argument("--json-out", help="every figure as JSON")
    parser.add_argument("--paths", default="discovery",
                        help="scan paths run for each load, in turn: discovery (no monitor manager), monitor (bluetoothd's "
                             "advertisement monitor: only matching devices reach the bus); e.g. monitor,discovery")
    options = parser.parse_args()
    options.binary = str(Path(options.binary).resolve())
    if not os.access(options.binary, os.X_OK):
        raise SystemExit(f"{options.binary} is missing: make release")
    built = Path(options.binary).stat().st_mtime
    stale = [p for p in (REPO / "Sources").rglob("*.swift") if p.stat().st_mtime > built]
    print(procfs.machine_line(os.environ.get("HEADSUP_KERNELS") or "auto") + f"; Python {platform.python_version()}")
    print("crowd updates: " + ("RSSI only" if options.rssi_only else "RSSI and the advertised data")
          + (", one signal at a time" if options.one_at_a_time else ", a 5 ms tick's worth per burst"))
    print(f"binary: {options.binary} ({procfs.runtime_linking(options.binary)}), built {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(built))}"
          + (f"; WARNING: {len(stale)} files under Sources/ are newer (stale binary?), e.g. "
             + ", ".join(str(p.relative_to(REPO)) for p in stale[:3]) if stale else ""))
    print(f"commit: {git_head()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results = []
    if options.churn:
        results.append(churn(options))
    else:
        for command in options.commands.split(","):
            for devices in (int(d) for d in options.devices.split(",")):
                if command == "live" and os.geteuid() != 0:
                    results.append({"command": command, "devices": devices, "skipped": "skipped: live needs root for the emulated IIO kernel"})
                    continue
                for path in options.paths.split(","):
                    print(f"… {command}, {'walk-by' if devices == 0 else f'{devices} devices'}, {path}: {options.seconds:.0f} s", flush=True)
                    results.append(run_once(options, command, devices, options.seconds, path=path))
        print()
        print_table(results)
        print_targets(results)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if options.json_out:
        Path(options.json_out).write_text(json.dumps({"cpu": cpu_model(), "kernel": platform.release(), "results": results}, indent=1))


if __name__ == "__main__":
    main()
