#!/usr/bin/env python3
"""HeadsUp against its peers: the same model on the same windows, one run.

    python3 -m tools.bench.run_bench            # full run (about 6-8 min on 2 cores)
    python3 -m tools.bench.run_bench --quick    # shorter run (about 3 min)

The script itself needs only the standard library. On its first run it creates
tools/bench/.venv (tools/pyvenv.py) and installs tools/bench/requirements.txt
(pinned, with constraints.txt); later runs reuse the venv while those two
files are unchanged. Each peer runs in its own worker process (workers.py,
inside the venv), so a peer that cannot be installed, converted or run is
reported as unavailable with the reason instead of stopping the run;
report.py turns the figures into the printed table and the JSON.

Everything is single-threaded: TensorFlow intra/inter-op threads 1, XLA
without its multi-threaded Eigen, ONNX Runtime intra/inter-op threads 1,
LiteRT num_threads 1, OMP/MKL/OpenBLAS threads 1; each timed loop also
records its process CPU time / wall time, which is ~1.0 for one busy thread.
HeadsUp's figures come from `headsup model bench --json` on the same model
and the same windows file (`--windows`); its outputs from `headsup model
predict` are the reference every peer's outputs are checked against.
With `--kernels avx2,baseline` (or `all`: every level this CPU runs) HeadsUp
is timed once per kernel level (HEADSUP_KERNELS set for its process), in the
same rounds as the peers, and the report has one HeadsUp row per level;
without it, HeadsUp runs on the automatic choice (the best level).
See tools/bench/README.md.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tools.bench.common import HERE, KERNEL_LEVELS, KERNELS_ENV, REPO, THREAD_ENV, TOLERANCE, loadavg, rel
from tools.bench.report import best_round, build_report, format_report

from tools import pyvenv
from tools.training import engine

VENV = HERE / ".venv"
REQUIREMENTS = HERE / "requirements.txt"
CONSTRAINTS = HERE / "constraints.txt"
WORKERS = HERE / "workers.py"
DEFAULT_MODEL = "Tests/Fixtures/keras/seed_tfkeras_h5/model.h5"
DEFAULT_KERAS3_MODEL = "Tests/Fixtures/keras/seed_keras3_keras/model.keras"
DEFAULT_BINARY = ".build/release/headsup"
DATASET = "datasets/phone-motion-v1"


# ----------------------------------------------------------------------------
# command line


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Benchmark HeadsUp against Keras, tf.function, XLA, ONNX Runtime and "
        "LiteRT on the same model and windows, single-threaded.")
    p.add_argument("--model", default=DEFAULT_MODEL,
                   help="Keras model file (.h5 or .keras), relative to the repository root "
                   "or absolute (default: %(default)s)")
    p.add_argument("--binary", default=DEFAULT_BINARY,
                   help="the headsup executable (default: %(default)s, built by `make release`)")
    p.add_argument("--framework", choices=["auto", "tf_keras", "keras3"], default="auto",
                   help="which Keras loads the model for tf.function/XLA/ONNX/TFLite "
                   "(auto: keras3 for .keras, tf_keras for .h5)")
    p.add_argument("--no-keras3-peer", action="store_true",
                   help="with a tf_keras model, do not also time Keras 3 loading the same file")
    p.add_argument("--keras3-model", default=None,
                   help="for the Keras 3 peer, if Keras 3 cannot load --model: the same weights saved by "
                   "Keras 3 (default with the default model: %s)" % DEFAULT_KERAS3_MODEL)
    p.add_argument("--windows", help="use these windows (one flattened input per line, "
                   "comma-separated) instead of making them from the bundled dataset")
    p.add_argument("--count", type=int, default=1024,
                   help="windows to write and check (at least the largest batch; default %(default)s)")
    p.add_argument("--layout", choices=["channel-major", "time-major"], default="channel-major",
                   help="flatten order of the dataset windows (the seed model is channel-major)")
    p.add_argument("--iterations", type=int, default=None,
                   help="timed single-window calls per peer (default 2000, --quick 1000)")
    p.add_argument("--slow-iterations", type=int, default=None,
                   help="timed calls for a peer slower than 1 ms a call (default 1000, --quick 200)")
    p.add_argument("--headsup-iterations", type=int, default=None,
                   help="timed single-window calls for HeadsUp (default 5000, --quick 2000)")
    p.add_argument("--batch-seconds", type=float, default=None,
                   help="minimum timed seconds per batch figure (default 1.0, --quick 0.4)")
    p.add_argument("--batches", default=None,
                   help="comma-separated batch sizes (default 256,1024; --quick 256)")
    p.add_argument("--peers", default="all",
                   help="comma-separated subset of: keras, keras3, onnx, litert (default all)")
    p.add_argument("--kernels", metavar="LEVELS", default=None,
                   help="time HeadsUp once per kernel level (%s; comma-separated), or `all`: every level "
                   "this CPU runs; each is one HeadsUp row, in the same rounds as the peers "
                   "(default: only the automatic choice, the best level)" % ", ".join(KERNEL_LEVELS))
    p.add_argument("--quick", action="store_true", help="a shorter run (fewer calls, batch 256 only)")
    p.add_argument("--rounds", type=int, default=None,
                   help="time HeadsUp and the fast peers (ONNX Runtime, LiteRT) this many times, alternating, "
                   "each in a fresh process, and report each one's best round (default 5, --quick 1); "
                   "on a shared or virtual machine one process can run 30-40 %% slower than the next")
    p.add_argument("--json-out", help="also write every figure as JSON to this file")
    p.add_argument("--out-dir", default=str(HERE / "out"),
                   help="scratch folder for the windows, converted models and logs (default %(default)s)")
    p.add_argument("--wait-load", type=float, default=0.5,
                   help="before timing, wait until the 1-minute load average is below this (default %(default)s)")
    p.add_argument("--wait-max", type=float, default=None,
                   help="wait at most this many seconds for the load (default 300, --quick 60; 0: do not wait)")
    p.add_argument("--nice", type=int, default=0,
                   help="run HeadsUp and the peers at this nice value, e.g. -10 (needs root) so that "
                   "other jobs on a shared machine take less of the CPU from the timed code; "
                   "HeadsUp and every peer get the same (default %(default)s)")
    p.add_argument("--python", help="run the peers with this Python instead of tools/bench/.venv "
                   "(it must have the packages of requirements.txt)")
    p.add_argument("--no-install", action="store_true",
                   help="do not create or update tools/bench/.venv (use it as it is)")
    p.add_argument("--worker-timeout", type=float, default=900,
                   help="seconds before a peer's worker is stopped and reported as failed")
    args = p.parse_args(argv)
    q = args.quick
    if args.iterations is None:
        args.iterations = 1000 if q else 2000
    if args.slow_iterations is None:
        args.slow_iterations = 200 if q else 1000
    if args.headsup_iterations is None:
        args.headsup_iterations = 2000 if q else 5000
    if args.batch_seconds is None:
        args.batch_seconds = 0.4 if q else 1.0
    if args.batches is None:
        args.batches = "256" if q else "256,1024"
    if args.wait_max is None:
        args.wait_max = 60 if q else 300
    if args.rounds is None:
        args.rounds = 1 if q else 5
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    if args.keras3_model is None and args.model == DEFAULT_MODEL:
        args.keras3_model = DEFAULT_KERAS3_MODEL
    args.batch_sizes = sorted({int(b) for b in args.batches.split(",") if b.strip()})
    return args


def repo_path(path):
    p = Path(path)
    return p if p.is_absolute() else REPO / p


# ----------------------------------------------------------------------------
# the venv


def ensure_venv(args, log):
    """The interpreter that runs the peers, and {requirement: why it failed to install}."""
    if args.python:
        return args.python, {}
    if args.no_install:
        if not pyvenv.python_of(VENV).exists():
            return None, {"*": "tools/bench/.venv does not exist and --no-install was given"}
        return str(pyvenv.python_of(VENV)), {}
    try:
        python, failed = pyvenv.ensure(VENV, REQUIREMENTS, CONSTRAINTS, log=log, one_by_one=True)
    except pyvenv.VenvError as e:
        return None, {"*": str(e)}
    return str(python), failed


# ----------------------------------------------------------------------------
# machine load


def wait_for_quiet(threshold, max_seconds, log):
    """Wait (bounded) for the 1-minute load average to drop below threshold."""
    start = time.time()
    first = loadavg()
    if max_seconds <= 0 or first[0] < threshold:
        return {"threshold": threshold, "waited_s": 0.0, "before": first, "after": first,
                "reached": first[0] < threshold}
    log("load average %.2f %.2f %.2f; waiting up to %.0f s for the 1-minute figure to drop below %.2f"
        % (first[0], first[1], first[2], max_seconds, threshold))
    now = first
    while time.time() - start < max_seconds:
        time.sleep(10)
        now = loadavg()
        if now[0] < threshold:
            break
    waited = time.time() - start
    reached = now[0] < threshold
    log("  after %.0f s: load average %.2f %.2f %.2f%s" % (
        waited, now[0], now[1], now[2], "" if reached else " (still above; timing anyway)"))
    return {"threshold": threshold, "waited_s": waited, "before": first, "after": now, "reached": reached}


def busy_processes():
    """The processes using the CPU right now (top's second 1-second sample), for the record."""
    try:
        out = subprocess.run(["top", "-b", "-c", "-n", "2", "-d", "1", "-o", "%CPU", "-w", "200"],
                             capture_output=True, text=True, timeout=15).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    block = out.split("PID USER")[-1].splitlines()[1:]
    busy = []
    for line in block:
        f = line.split()
        if len(f) >= 12:
            try:
                cpu = float(f[8])
            except ValueError:
                continue
            if cpu >= 5:
                busy.append("%.0f%% %s" % (cpu, " ".join(f[11:])[:100]))
    return busy[:5]


# ----------------------------------------------------------------------------
# windows and HeadsUp


def make_windows(args, binary, path, log):
    """Write args.count windows to path; say where they came from."""
    rows = []
    if args.windows:
        src = repo_path(args.windows)
        for line in src.read_text().splitlines():
            if line.strip():
                rows.append(line.strip())
        source = str(args.windows)
    else:
        manifest = json.loads((REPO / DATASET / "manifest.json").read_text())
        sessions = sorted(manifest["sessions"], key=lambda s: (s.get("split") != "test", s["file"]))
        used = []
        for s in sessions:
            if len(rows) >= args.count:
                break
            r = subprocess.run([binary, "dataset", "windows", "--layout", args.layout,
                                str(REPO / DATASET / s["file"])], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("headsup dataset windows %s: %s" % (s["file"], pyvenv.last_line(r.stderr)))
            for line in r.stdout.splitlines():
                if line.strip():
                    rows.append(",".join(line.strip().split(",")[3:]))  # drop start, label, uniform
            used.append(Path(s["file"]).stem)
        source = "%s %s windows (hop 25) of %s" % (DATASET, args.layout, ", ".join(used))
    if not rows:
        raise RuntimeError("no windows")
    n = len(rows)
    if n < args.count:
        source += " (%d windows repeated to %d)" % (n, args.count)
        rows = [rows[i % n] for i in range(args.count)]
    rows = rows[:args.count]
    Path(path).write_text("\n".join(rows) + "\n")
    log("windows: %d from %s -> %s" % (len(rows), source, rel(path)))
    return source


def run_headsup(args, binary, model, windows_csv, outputs_csv, log, batches=None, level=None):
    """HeadsUp's outputs (to outputs_csv) and bench figures per batch size, on kernel
    level `level` (HEADSUP_KERNELS) or, for None, on the automatic choice."""
    env = headsup_env(level)
    label = "HeadsUp (%s)" % level if level else "HeadsUp"
    result = {"binary": rel(binary), "binary_info": binary_info(binary), "level": level}
    r = subprocess.run([binary, "--version"], capture_output=True, text=True, env=env)
    result["version"] = (r.stdout or r.stderr).strip()
    headsup_predict(binary, model, windows_csv, outputs_csv, level)
    result["benches"] = {}
    for batch in batches or args.batch_sizes:
        log("%s: headsup model bench --batch %d --iterations %d%s" % (
            label, batch, args.headsup_iterations, " (%s=%s)" % (KERNELS_ENV, level) if level else ""))
        before = loadavg()
        r = subprocess.run([binary, "model", "bench", "--model", str(model), "--windows", str(windows_csv),
                            "--batch", str(batch), "--iterations", str(args.headsup_iterations), "--json"],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError("headsup model bench: " + pyvenv.last_line(r.stderr))
        figures = json.loads(r.stdout.strip().splitlines()[-1])
        if level and figures.get("kernel_level") != level:
            raise RuntimeError("%s=%s, but headsup model bench ran on %s" % (
                KERNELS_ENV, level, figures.get("kernel_level", "no named kernel level")))
        figures["loadavg_before"] = before
        result["benches"][str(batch)] = figures
    return result


def headsup_predict(binary, model, windows_csv, outputs_csv, level=None):
    """`headsup model predict` on every window, on `level` (None: the automatic choice)."""
    Path(outputs_csv).write_text(engine.predict_file(binary, model, windows_csv, env=headsup_env(level)))


def compare_outputs(reference_csv, outputs_csv, tolerance=TOLERANCE):
    """How far one set of HeadsUp outputs is from the reference, in the peers' terms."""
    def read(path):
        return [[float(v) for v in line.split(",")] for line in Path(path).read_text().splitlines() if line.strip()]
    ref, out = read(reference_csv), read(outputs_csv)
    if len(ref) != len(out) or any(len(a) != len(b) for a, b in zip(ref, out)):
        raise RuntimeError("%s has %d rows, the reference %d" % (rel(outputs_csv), len(out), len(ref)))
    per_window = [max((abs(a - b) for a, b in zip(r, o)), default=0.0) for r, o in zip(ref, out)]
    worst = max(per_window, default=0.0)
    return {"max_abs_diff": worst, "agrees": worst <= tolerance,
            "windows_over_tolerance": sum(d > tolerance for d in per_window), "checked_windows": len(ref)}


# ----------------------------------------------------------------------------
# kernel levels

# A name that is no kernel level: headsup then stops at once (before it loads
# the model) with an error that lists the levels this CPU runs, e.g.
# "HEADSUP_KERNELS=? names no kernel level; use one of avx512-zen, avx512, avx2, baseline (this CPU), or unset it".
LEVEL_PROBE = "?"
LEVELS_IN_ERROR = re.compile(r"use one of ([A-Za-z0-9_, -]+?) \(this CPU\)")


def headsup_env(level=None):
    """A headsup process's environment: HEADSUP_KERNELS=level, or unset (the automatic choice)."""
    env = dict(os.environ)
    env.pop(KERNELS_ENV, None)
    if level:
        env[KERNELS_ENV] = level
    return env


def levels_from_error(text):
    """The levels, best first, that headsup's error for an unknown HEADSUP_KERNELS lists (None if none)."""
    m = LEVELS_IN_ERROR.search(text or "")
    if not m:
        return None
    return [name.strip().lower() for name in m.group(1).split(",") if name.strip()] or None


def tiny_bench(binary, model, level):
    """`headsup model bench --iterations 10 --batch 16 --json` on `level`: (figures or None, stderr)."""
    r = subprocess.run([binary, "model", "bench", "--model", str(model), "--iterations", "10", "--batch", "16",
                        "--json"], capture_output=True, text=True, env=headsup_env(level))
    if r.returncode != 0:
        return None, r.stderr
    try:
        return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr
    except (ValueError, IndexError):
        return None, r.stderr or r.stdout


def supported_levels(binary, model):
    """The kernel levels this CPU runs, best first (the first is the automatic choice).

    From the error headsup gives for a name that is no level; if a binary's
    error does not list them, by a tiny bench on each known level (a level
    counts when headsup's JSON says it ran on it)."""
    figures, error = tiny_bench(binary, model, LEVEL_PROBE)
    levels = levels_from_error(error)
    if levels:
        return levels
    if figures is not None:
        raise RuntimeError("%s ignores %s (it ran with %s=%s): a binary from before the kernel levels?" % (
            rel(binary), KERNELS_ENV, KERNELS_ENV, LEVEL_PROBE))
    levels = [level for level in KERNEL_LEVELS if (tiny_bench(binary, model, level)[0] or {}).get("kernel_level") == level]
    if not levels:
        raise RuntimeError("cannot tell which kernel levels %s runs: %s" % (rel(binary), pyvenv.last_line(error)))
    return levels


def choose_levels(requested, supported):
    """--kernels as the levels to time, best first; [None] (the automatic choice) without it."""
    if requested is None:
        return [None]
    if requested.strip().lower() == "all":
        return list(supported)
    names = [name.strip().lower() for name in requested.split(",") if name.strip()]
    wrong = [name for name in names if name not in supported]
    if wrong or not names:
        unknown = [name for name in wrong if name not in KERNEL_LEVELS] or ([] if names else [repr(requested)])
        unsupported = [name for name in wrong if name in KERNEL_LEVELS]
        why = (["%s names no kernel level" % ", ".join(unknown)] if unknown else []) + \
              (["this CPU cannot run %s" % ", ".join(unsupported)] if unsupported else [])
        raise ValueError("--kernels %s: %s; the levels this CPU runs: %s (or all)" % (
            requested, "; ".join(why), ", ".join(supported) or "no level headsup named"))
    return [level for level in supported if level in names]


def binary_info(binary):
    """When the binary was built, and whether a source file is newer (a stale binary)."""
    info = {"path": rel(binary)}
    try:
        built = Path(binary).resolve().stat().st_mtime
        info["built_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(built))
        newer = [rel(f) for f in [REPO / "Package.swift"] + list((REPO / "Sources").rglob("*"))
                 if f.is_file() and f.stat().st_mtime > built]
        info["sources_newer_than_binary"] = sorted(newer)[:10]
    except OSError:
        pass
    return info


# ----------------------------------------------------------------------------
# orchestration


def run_worker(args, python, name, spec, log):
    out = Path(args.out_dir)
    spec_path = out / ("spec-%s.json" % name)
    result_path = out / ("result-%s.json" % name)
    log_path = out / "logs" / ("%s.log" % name)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(json.dumps(spec, indent=1))
    if result_path.exists():
        result_path.unlink()
    env = dict(os.environ)
    env.update(THREAD_ENV)
    worker = spec.get("worker", name)
    t0 = time.time()
    with open(log_path, "w") as logf:
        try:
            r = subprocess.run([python, str(WORKERS), worker, str(spec_path), str(result_path)],
                               stdout=logf, stderr=subprocess.STDOUT, env=env, timeout=args.worker_timeout)
            code = r.returncode
        except subprocess.TimeoutExpired:
            code = "timeout after %.0f s" % args.worker_timeout
        except OSError as e:
            code = str(e)
    elapsed = time.time() - t0
    if result_path.exists():
        result = json.loads(result_path.read_text())
    else:
        tail = ""
        try:
            tail = pyvenv.last_line(log_path.read_text())
        except OSError:
            pass
        result = {"error": "worker exited (%s) without a result: %s (log: %s)" % (code, tail, rel(log_path))}
    result["seconds"] = elapsed
    result["log"] = rel(log_path)
    log("  %s: %.0f s%s" % (name, elapsed, ("; " + result["error"]) if result.get("error") else ""))
    return result


def main():
    args = parse_args()
    t_start = time.time()
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)

    def log(msg):
        print("[%5.0fs] %s" % (time.time() - t_start, msg), file=sys.stderr, flush=True)

    binary = repo_path(args.binary)
    if not binary.exists():
        print("error: %s does not exist: run `make release` (or pass --binary PATH)" % rel(binary), file=sys.stderr)
        return 2
    model = repo_path(args.model)
    if not model.exists():
        print("error: %s does not exist" % args.model, file=sys.stderr)
        return 2
    framework = args.framework
    if framework == "auto":
        framework = "keras3" if model.suffix == ".keras" else "tf_keras"
    wanted = {p.strip() for p in args.peers.split(",")} if args.peers != "all" else {"keras", "keras3", "onnx", "litert"}
    if framework == "keras3" or args.no_keras3_peer:
        wanted.discard("keras3")  # the primary run is Keras 3 already, or not asked for
    if max(args.batch_sizes) > args.count:
        args.count = max(args.batch_sizes)
    if os.environ.get(KERNELS_ENV):
        log("%s=%s in the environment is not used: HeadsUp runs on the automatic choice, or on --kernels LEVELS"
            % (KERNELS_ENV, os.environ[KERNELS_ENV]))
    try:
        supported = supported_levels(str(binary), model)
    except RuntimeError as e:
        if args.kernels is not None:
            print("error: --kernels: %s" % e, file=sys.stderr)
            return 2
        supported = None
        log("kernel levels: %s" % e)
    try:
        levels = choose_levels(args.kernels, supported or [])
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    if args.kernels is not None:
        log("kernel levels: %s (this CPU runs %s)" % (", ".join(levels), ", ".join(supported)))

    python, install_failures = (None, {})
    if wanted:
        python, install_failures = ensure_venv(args, log)

    windows_csv = out / "windows.csv"
    reference_csv = out / "headsup_outputs.csv"
    windows_source = make_windows(args, str(binary), windows_csv, log)
    input_count = len(windows_csv.read_text().splitlines()[0].split(","))

    quiet = wait_for_quiet(args.wait_load, args.wait_max, log)
    busy = busy_processes()
    quiet["nice"] = 0
    if args.nice:
        try:  # inherited by the headsup and worker processes started from here on
            quiet["nice"] = os.nice(args.nice)
            log("running HeadsUp and the peers at nice %d" % quiet["nice"])
        except OSError as e:
            quiet["nice_error"] = str(e)
            log("could not set nice %d (%s); timing at nice 0" % (args.nice, e))
    log("timing starts: load average %.2f %.2f %.2f" % tuple(loadavg()))

    # One HeadsUp run per kernel level (one, on the automatic choice, without
    # --kernels); the automatic choice's outputs are the reference.
    if levels != [None]:
        headsup_predict(str(binary), model, windows_csv, reference_csv)
    level_runs = []
    for level in levels:
        if level is None:
            run = run_headsup(args, str(binary), model, windows_csv, reference_csv, log)
        else:
            level_csv = out / ("headsup_outputs_%s.csv" % level)
            run = run_headsup(args, str(binary), model, windows_csv, level_csv, log, level=level)
            run["outputs"] = compare_outputs(reference_csv, level_csv)
        run["rounds"] = [run["benches"]]
        level_runs.append(run)
    headsup = dict(level_runs[0], levels=level_runs,
                   kernel_levels={"requested": args.kernels, "supported": supported,
                                  "automatic": supported[0] if supported else None,
                                  "measured": [run["benches"][str(args.batch_sizes[0])].get("kernel_level")
                                               for run in level_runs]})

    base_spec = {"model": str(model), "windows": str(windows_csv), "reference": str(reference_csv),
                 "iterations": args.iterations, "slow_iterations": args.slow_iterations, "batch_seconds": args.batch_seconds,
                 "batches": args.batch_sizes, "framework": framework, "input_count": input_count}
    results = {}
    unavailable = {}

    def peer_unavailable(key, reason):
        unavailable[key] = reason
        log("  %s unavailable: %s" % (key, reason))

    if wanted and python is None:
        for key in sorted(wanted):
            peer_unavailable(key, install_failures.get("*", "no Python environment"))
        wanted = set()
    if install_failures:
        log("packages that did not install: %s" % ", ".join(sorted(install_failures)))

    # The fastest peers first, right after HeadsUp, so the closest comparisons are
    # made in the same state of the machine; the slow Keras runs last.
    fast_specs = {}  # the peers timed again in every round: key -> worker spec
    if "onnx" in wanted:
        log("ONNX: tf2onnx conversion, then ONNX Runtime")
        onnx_path = out / "model.onnx"
        conv = run_worker(args, python, "onnx-convert", dict(base_spec, onnx=str(onnx_path), opset=17), log)
        results["onnx-convert"] = conv
        if conv.get("error"):
            peer_unavailable("onnx", "tf2onnx conversion failed: " + conv["error"])
        else:
            fast_specs["ort"] = dict(base_spec, onnx=str(onnx_path), onnx_ops=conv.get("ops"))
            results["ort"] = run_worker(args, python, "ort", fast_specs["ort"], log)
    if "litert" in wanted:
        log("TFLite: TFLiteConverter, then the LiteRT interpreter")
        tdir = out / "tflite"
        tdir.mkdir(exist_ok=True)
        conv = run_worker(args, python, "tflite-convert", dict(base_spec, tflite_dir=str(tdir)), log)
        results["tflite-convert"] = conv
        if conv.get("error"):
            peer_unavailable("litert", "TFLite conversion failed: " + conv["error"])
        else:
            fast_specs["litert"] = dict(base_spec, tflite_files=conv["files"])
            results["litert"] = run_worker(args, python, "litert", fast_specs["litert"], log)
    peer_rounds = {key: [results[key]] for key in fast_specs}

    if "keras" in wanted:
        log("Keras (%s): predict, direct call, tf.function, XLA" % framework)
        results["keras"] = run_worker(args, python, "keras", dict(base_spec, primary=True), log)
    if "keras3" in wanted:
        log("Keras 3 loading the same file: predict, direct call")
        results["keras3"] = run_worker(args, python, "keras3",
                                       dict(base_spec, worker="keras", framework="keras3", primary=False,
                                            fallback_model=str(repo_path(args.keras3_model)) if args.keras3_model else None), log)
    for round_number in range(2, args.rounds + 1):
        # Fresh processes, alternating, so that a slow spell of the machine (or a
        # slow process) costs HeadsUp and the peers alike; each keeps its best round.
        log("round %d of %d: HeadsUp%s, then %s" % (
            round_number, args.rounds, " (%s)" % ", ".join(levels) if levels != [None] else "",
            ", ".join(fast_specs) or "no peers"))
        for run in level_runs:
            again = run_headsup(args, str(binary), model, windows_csv, out / "headsup_outputs_round.csv", log,
                                batches=args.batch_sizes[:1], level=run["level"])
            run["rounds"].append(again["benches"])
        for key, spec in fast_specs.items():
            peer_rounds[key].append(run_worker(args, python, key, spec, log))
    for key, rounds in peer_rounds.items():
        results[key] = best_round(rounds)
    if wanted:  # HeadsUp again, to see how much the machine drifted during the peers
        log("HeadsUp again (drift check)")
        again = run_headsup(args, str(binary), model, windows_csv, out / "headsup_outputs_end.csv", log,
                            level=levels[0])
        headsup["again"] = again["benches"]
    end_load = loadavg()
    report = build_report(args, model, framework, windows_source, input_count, quiet, busy, end_load,
                          headsup, results, unavailable, install_failures, time.time() - t_start)
    text = format_report(report)
    print(text)
    if args.json_out:
        Path(repo_path(args.json_out)).write_text(json.dumps(report, indent=1) + "\n")
        log("JSON: %s" % args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
