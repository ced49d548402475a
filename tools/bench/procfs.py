"""/proc readers the daemon benchmarks share (standard library only).

What a phone feels of a daemon is its CPU time, how often it wakes the CPU
and what memory it holds. The parsers below take the text of one /proc file
each (so tests feed them canned text); `sample(pid)` reads them all at one
instant and `costs(first, last)` turns two samples into rates.
"""
import os
import subprocess
import platform
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def stat_fields(path):
    """/proc/PID/stat's fields from the third (state) on: the command name,
    which may hold spaces and parentheses, is cut off at its last ')'."""
    return parse_stat(Path(path).read_text())


def parse_stat(text):
    """The fields of a /proc/PID/stat line from the third (state) on."""
    return text[text.rindex(")") + 2:].split()


def parse_status(text):
    """/proc/PID/status as {key: value text}."""
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        values[key] = rest.strip()
    return values


def kilobytes(value):
    """'1234 kB' -> 1234; a missing value -> 0."""
    return int(value.split()[0]) if value else 0


def parse_schedstat(text):
    """/proc/PID/task/TID/schedstat: (ns on a CPU, ns waiting to run, times
    scheduled in). The third counts every time the thread got a CPU, a
    wake-up or a preemption's return alike."""
    fields = text.split()
    if len(fields) < 3:
        raise ValueError(f"schedstat has {len(fields)} fields, expected 3: {text!r}")
    return int(fields[0]), int(fields[1]), int(fields[2])


def parse_smaps_rollup(text):
    """/proc/PID/smaps_rollup's kB figures: {'Rss': …, 'Pss': …, 'Pss_Anon': …}.
    PSS divides each shared page among the processes mapping it: what this
    process costs the machine beyond what it shares with others."""
    values = {}
    for line in text.splitlines()[1:]:  # the first line is the address range
        key, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB":
            values[key.strip()] = int(parts[0])
    return values


def sample(pid, root="/proc"):
    """Everything the benches rate, read at one instant (time on CLOCK_MONOTONIC)."""
    import time

    base = Path(root) / str(pid)
    fields = parse_stat((base / "stat").read_text())
    status = parse_status((base / "status").read_text())
    try:
        rollup = parse_smaps_rollup((base / "smaps_rollup").read_text())
    except OSError:
        rollup = {}
    threads = {}
    for task in (base / "task").iterdir():
        try:
            tstatus = parse_status((task / "status").read_text())
            run_ns, wait_ns, slices = parse_schedstat((task / "schedstat").read_text())
            name = (task / "comm").read_text().strip()
        except (OSError, ValueError):
            continue  # the thread ended while we read
        threads[int(task.name)] = {
            "name": name, "run_ns": run_ns, "wait_ns": wait_ns, "timeslices": slices,
            "voluntary": int(tstatus.get("voluntary_ctxt_switches", 0)),
            "nonvoluntary": int(tstatus.get("nonvoluntary_ctxt_switches", 0)),
        }
    return {
        "time": time.monotonic(),
        "cpu_ticks": int(fields[11]) + int(fields[12]),
        "rss_kb": kilobytes(status.get("VmRSS")), "hwm_kb": kilobytes(status.get("VmHWM")),
        "pss_kb": rollup.get("Pss"), "pss_anon_kb": rollup.get("Pss_Anon"), "pss_file_kb": rollup.get("Pss_File"),
        "threads": threads,
    }


def costs(first, last):
    """Rates between two samples of one process. Threads that came or went
    in between count from zero or up to their last reading.

    wake-ups: voluntary context switches (each one a sleep, so each one a
    later wake-up); switches: voluntary + involuntary; timeslices: times a
    thread got a CPU (schedstat), which the kernel counts on its own."""
    elapsed = last["time"] - first["time"]
    if elapsed <= 0:
        raise ValueError("the two samples are not in order")
    zero = {"run_ns": 0, "timeslices": 0, "voluntary": 0, "nonvoluntary": 0}

    def total(key):
        tids = set(first["threads"]) | set(last["threads"])
        return sum(last["threads"].get(t, first["threads"].get(t, zero))[key] - first["threads"].get(t, zero)[key] for t in tids)

    voluntary, nonvoluntary = total("voluntary"), total("nonvoluntary")
    cpu = (last["cpu_ticks"] - first["cpu_ticks"]) / TICK
    return {
        "seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
        "core_percent": round(100 * cpu / elapsed, 3),
        "core_percent_schedstat": round(100 * total("run_ns") / 1e9 / elapsed, 3),
        "wakeups_per_s": round(voluntary / elapsed, 2),
        "switches_per_s": round((voluntary + nonvoluntary) / elapsed, 2),
        "timeslices_per_s": round(total("timeslices") / elapsed, 2),
        "rss_mb": round(last["rss_kb"] / 1024, 2), "rss_peak_mb": round(last["hwm_kb"] / 1024, 2),
        "pss_mb": round(last["pss_kb"] / 1024, 2) if last.get("pss_kb") is not None else None,
    }


def cpu_model(cpuinfo="/proc/cpuinfo"):
    """The first 'model name' of /proc/cpuinfo (on aarch64, which has none, the CPU part)."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return platform.processor() or "unknown"
    return parse_cpu_model(text) or platform.processor() or "unknown"


def parse_cpu_model(text):
    part = None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            return value.strip()
        if key.strip() == "CPU part" and part is None:
            part = f"CPU part {value.strip()}"
    return part


def machine_line(kernel_level):
    """What every bench run prints first: the CPU, the kernel, HeadsUp's kernel level, the load."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"CPU: {cpu_model()} ({os.cpu_count()} CPUs); kernel {platform.release()} ({platform.version()}); "
            f"HeadsUp kernel level {kernel_level}; load average {load}")


def default_binary(repo):
    """The binary to measure: the one `make dist` (and so the package)
    builds, with the Swift runtime linked in, when it is there; else the
    development build."""
    installed = Path(repo) / ".build-dist/release/headsup"
    return str(installed if installed.exists() else Path(repo) / ".build/release/headsup")


def runtime_linking(path):
    """How a binary links the Swift runtime, in words: a build with the
    runtime as shared libraries maps about 8 MB more (RSS) than the
    installed one, which links it statically."""
    try:
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "Swift runtime linking unknown (no readelf)"
    if "libswiftCore.so" in dynamic:
        return ("Swift runtime as shared libraries: RSS about 8 MB above the installed binary's "
                "(`make dist` builds that one, .build-dist/release/headsup, which the benches then use)")
    return "Swift runtime linked in, as `make dist` and the package build it"


def process_table():
    """{pid: (ppid, starttime)} of every process now."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = stat_fields(entry / "stat")
        except OSError:
            continue
        table[int(entry.name)] = (int(fields[1]), int(fields[19]))
    return table


def descendants(pid, table=None):
    """Every process below `pid` (children, their children, ...)."""
    table = table or process_table()
    children = {}
    for child, (parent, _) in table.items():
        children.setdefault(parent, []).append(child)
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found
