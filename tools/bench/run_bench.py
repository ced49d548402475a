#!/usr/bin/env python3
"""HeadsUp against its peers: the same model on the same windows, one run.

    python3 tools/bench/run_bench.py            # full run (about 6-8 min on 2 cores)
    python3 tools/bench/run_bench.py --quick    # shorter run (about 3 min)

The script itself needs only the standard library. On its first run it creates
tools/bench/.venv and installs tools/bench/requirements.txt (pinned, with
constraints.txt); later runs reuse the venv while those two files are
unchanged. Each peer runs in its own worker process (this file with
--worker), so a peer that cannot be installed, converted or run is reported
as unavailable with the reason instead of stopping the run.

Everything is single-threaded: TensorFlow intra/inter-op threads 1, XLA
without its multi-threaded Eigen, ONNX Runtime intra/inter-op threads 1,
LiteRT num_threads 1, OMP/MKL/OpenBLAS threads 1; each timed loop also
records its process CPU time / wall time, which is ~1.0 for one busy thread.
HeadsUp's figures come from `headsup model bench --json` on the same model
and the same windows file (`--windows`); its outputs from `headsup model
predict` are the reference every peer's outputs are checked against.
See tools/bench/README.md.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENV = HERE / ".venv"
REQUIREMENTS = HERE / "requirements.txt"
CONSTRAINTS = HERE / "constraints.txt"
DEFAULT_MODEL = "Tests/Fixtures/keras/seed_tfkeras_h5/model.h5"
DEFAULT_KERAS3_MODEL = "Tests/Fixtures/keras/seed_keras3_keras/model.keras"
DEFAULT_BINARY = ".build/release/headsup"
DATASET = "datasets/phone-motion-v1"
TOLERANCE = 1e-5

# Targets printed next to the figures (never asserted).
TARGET_SINGLE_US = 50.0
TARGET_SINGLE_SPEEDUP = 3.0
TARGET_BATCH_WPS = 20_000.0

# One thread for every runtime; set before any of them is imported.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "CUDA_VISIBLE_DEVICES": "-1",
    "PYTHONHASHSEED": "0",
}


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
    # internal: one peer worker
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--result", help=argparse.SUPPRESS)
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


def file_hash(*paths):
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()


def requirement_lines():
    lines = []
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return lines


def ensure_venv(args, log):
    """The interpreter that runs the peers, and {requirement: why it failed to install}."""
    if args.python:
        return args.python, {}
    python = VENV / "bin" / "python"
    stamp = VENV / ".bench-install.json"
    want = file_hash(REQUIREMENTS, CONSTRAINTS)
    if args.no_install:
        if not python.exists():
            return None, {"*": "tools/bench/.venv does not exist and --no-install was given"}
        return str(python), {}
    if python.exists() and stamp.exists():
        try:
            done = json.loads(stamp.read_text())
            if done.get("hash") == want:
                return str(python), done.get("failed", {})
        except ValueError:
            pass
    if not python.exists():
        log("creating %s" % VENV.relative_to(REPO))
        r = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
        if r.returncode != 0:
            return None, {"*": "python3 -m venv failed: " + last_line(r.stderr or r.stdout)}
    log("installing %s into the venv (pinned; a few minutes the first time)" % REQUIREMENTS.relative_to(REPO))
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    constraint = ["-c", str(CONSTRAINTS)] if CONSTRAINTS.exists() else []
    r = subprocess.run(pip + ["-r", str(REQUIREMENTS)] + constraint, capture_output=True, text=True)
    failed = {}
    if r.returncode != 0:
        log("  the whole set did not install (%s); trying one requirement at a time" % last_line(r.stderr))
        for req in requirement_lines():
            r1 = subprocess.run(pip + [req] + constraint, capture_output=True, text=True)
            if r1.returncode != 0:
                failed[req] = last_line(r1.stderr or r1.stdout)
                log("  could not install %s: %s" % (req, failed[req]))
    stamp.write_text(json.dumps({"hash": want, "failed": failed}, indent=1))
    return str(python), failed


def last_line(text):
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    for l in reversed(lines):
        if "error" in l.lower() or "exception" in l.lower():
            return l[:400]
    return lines[-1][:400] if lines else "(no output)"


# ----------------------------------------------------------------------------
# machine load


def loadavg():
    try:
        return list(os.getloadavg())
    except OSError:
        return [float("nan")] * 3


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
                raise RuntimeError("headsup dataset windows %s: %s" % (s["file"], last_line(r.stderr)))
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


def rel(path):
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def run_headsup(args, binary, model, windows_csv, outputs_csv, log, batches=None):
    result = {"binary": rel(binary), "binary_info": binary_info(binary)}
    r = subprocess.run([binary, "--version"], capture_output=True, text=True)
    result["version"] = (r.stdout or r.stderr).strip()
    r = subprocess.run([binary, "model", "predict", "--model", str(model), str(windows_csv)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("headsup model predict: " + last_line(r.stderr))
    Path(outputs_csv).write_text(r.stdout)
    result["benches"] = {}
    for batch in batches or args.batch_sizes:
        log("HeadsUp: headsup model bench --batch %d --iterations %d" % (batch, args.headsup_iterations))
        before = loadavg()
        r = subprocess.run([binary, "model", "bench", "--model", str(model), "--windows", str(windows_csv),
                            "--batch", str(batch), "--iterations", str(args.headsup_iterations), "--json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("headsup model bench: " + last_line(r.stderr))
        figures = json.loads(r.stdout.strip().splitlines()[-1])
        figures["loadavg_before"] = before
        result["benches"][str(batch)] = figures
    return result


# ----------------------------------------------------------------------------
# workers (run in the venv)


def worker_main(args):
    for k, v in THREAD_ENV.items():
        os.environ.setdefault(k, v)
    spec = json.loads(Path(args.spec).read_text())
    result = {"worker": args.worker, "rows": [], "versions": {}, "notes": []}
    try:
        WORKERS[args.worker](spec, result)
    except BaseException as e:  # report, never crash without a result
        import traceback
        traceback.print_exc()
        result["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:300] if str(e).strip() else "")
    Path(args.result).write_text(json.dumps(result, indent=1))
    return 0


def np_windows(spec):
    import numpy as np
    x = np.loadtxt(spec["windows"], delimiter=",", dtype=np.float64, ndmin=2).astype(np.float32)
    ref = np.loadtxt(spec["reference"], delimiter=",", dtype=np.float64, ndmin=2)
    return x, ref


def time_single(fn, iterations, warmup):
    import gc
    for _ in range(warmup):
        fn()
    gc.collect()
    gc.disable()
    try:
        clock = time.perf_counter_ns
        times = [0] * iterations
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(iterations):
            t0 = clock()
            fn()
            times[i] = clock() - t0
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        gc.enable()
    times.sort()
    n = len(times)
    return {"median_us": times[n // 2] / 1e3, "p99_us": times[min(n - 1, n * 99 // 100)] / 1e3,
            "min_us": times[0] / 1e3, "calls": n, "cpu_per_wall": cpu / wall}


def time_batch(fn, batch, seconds):
    """Windows per second over at least `seconds` (and 3 calls) of repeated batches, like HeadsUp's."""
    import gc
    fn()
    fn()
    gc.collect()
    gc.disable()
    try:
        runs = 0
        cpu0, start = time.process_time(), time.perf_counter()
        while True:
            fn()
            runs += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds and runs >= 3:
                break
        cpu = time.process_time() - cpu0
    finally:
        gc.enable()
    return {"windows_per_s": runs * batch / elapsed, "calls": runs, "cpu_per_wall": cpu / elapsed}


def measure(spec, result, name, runtime, single_fn, batch_fns, outputs_fn, load_ms, extra=None):
    """Time one peer and check its outputs; append a row. A failure marks only this row."""
    import numpy as np
    row = {"name": name, "runtime": runtime, "load_ms": load_ms}
    if extra:
        row.update(extra)
    try:
        x, ref = spec["_x"], spec["_ref"]
        out = np.asarray(outputs_fn(x), dtype=np.float64).reshape(ref.shape)
        single_out = np.asarray(single_fn(), dtype=np.float64).reshape(-1)
        diff = float(np.max(np.abs(out - ref)))
        single_diff = float(np.max(np.abs(single_out - ref[0])))
        row["max_abs_diff"] = max(diff, single_diff)
        row["windows_over_tolerance"] = int(np.sum(np.max(np.abs(out - ref), axis=1) > TOLERANCE))
        row["agrees"] = bool(row["max_abs_diff"] <= TOLERANCE)
        row["checked_windows"] = int(ref.shape[0])
        # warm-up; a peer slower than 1 ms a call gets the (smaller) slow_iterations
        t0 = time.perf_counter()
        for _ in range(5):
            single_fn()
        slow = (time.perf_counter() - t0) / 5 > 1e-3
        iterations = spec["slow_iterations"] if slow else spec["iterations"]
        row["single"] = time_single(single_fn, iterations, 20 if slow else 300)
        row["batch"] = {}
        for b, fn in batch_fns.items():
            row["batch"][str(b)] = time_batch(fn, b, spec["batch_seconds"])
        row["loadavg_after"] = loadavg()
    except BaseException as e:
        import traceback
        traceback.print_exc()
        row = {"name": name, "runtime": runtime,
               "unavailable": "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1][:300])}
    result["rows"].append(row)
    print("  %s done" % name, file=sys.stderr, flush=True)


def import_tf():
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    try:
        tf.config.set_visible_devices([], "GPU")
    except (RuntimeError, ValueError):
        pass
    return tf


def load_keras(spec, framework, result=None):
    """(model, keras module, load ms) with tf_keras (Keras 2 API) or Keras 3.

    Keras 3 cannot load every tf_keras .h5 (e.g. LSTM's `time_major` argument);
    then spec["fallback_model"], the same weights saved by Keras 3, is loaded
    instead and the row says so (the output check still compares against
    HeadsUp on the main model file)."""
    tf = import_tf()
    if framework == "tf_keras":
        import tf_keras as K
    else:
        import keras as K
    t0 = time.perf_counter()
    try:
        model = K.models.load_model(spec["model"], compile=False)
    except Exception as e:
        fallback = spec.get("fallback_model")
        if not fallback:
            raise
        reason = "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1][:200])
        t0 = time.perf_counter()
        model = K.models.load_model(fallback, compile=False)
        if result is not None:
            result["model_file"] = rel(fallback)
            name = "Keras 3" if framework == "keras3" else framework
            result["notes"].append("%s could not load %s (%s); it loaded %s instead, the same weights saved by %s" % (
                name, rel(spec["model"]), reason, rel(fallback), name))
    return tf, model, K, (time.perf_counter() - t0) * 1e3


def worker_keras(spec, result):
    """Keras predict and direct call; if this is the primary framework, tf.function and XLA too."""
    import numpy as np
    framework = spec["framework"]
    label = "tf_keras" if framework == "tf_keras" else "Keras 3"
    tf, model, K, load_ms = load_keras(spec, framework, result)
    extra = {"model_file": result["model_file"]} if "model_file" in result else None
    result["versions"].update({"tensorflow": tf.__version__, K.__name__: K.__version__,
                               "numpy": np.__version__})
    x, ref = np_windows(spec)
    spec["_x"], spec["_ref"] = x, ref
    x1 = x[:1]
    t1 = tf.constant(x1)
    batches = {b: x[:b] for b in spec["batches"]}
    tbatches = {b: tf.constant(v) for b, v in batches.items()}

    measure(spec, result, "%s model.predict" % label, "%s %s" % (label, K.__version__),
            lambda: model.predict(x1, verbose=0),
            {b: (lambda v=v, b=b: model.predict(v, batch_size=b, verbose=0)) for b, v in batches.items()},
            lambda xs: model.predict(xs, batch_size=256, verbose=0), load_ms, extra)
    measure(spec, result, "%s model(x)" % label, "%s %s, eager" % (label, K.__version__),
            lambda: model(t1, training=False).numpy(),
            {b: (lambda v=v: model(v, training=False).numpy()) for b, v in tbatches.items()},
            lambda xs: model(tf.constant(xs), training=False).numpy(), load_ms, extra)
    if not spec.get("primary"):
        return
    signature = [tf.TensorSpec([None, x.shape[1]], tf.float32)]
    for jit, name in ((False, "tf.function"), (True, "tf.function XLA")):
        try:
            fn = tf.function(lambda v: model(v, training=False), input_signature=signature,
                             jit_compile=jit)
            t0 = time.perf_counter()
            fn(t1).numpy()
            compile_ms = (time.perf_counter() - t0) * 1e3
        except BaseException as e:
            result["rows"].append({"name": name, "runtime": "TensorFlow %s" % tf.__version__,
                                   "unavailable": "%s: %s" % (type(e).__name__, (str(e).strip().splitlines() or [""])[-1][:300])})
            continue
        measure(spec, result, name, "TensorFlow %s%s" % (tf.__version__, ", jit_compile=True" if jit else ""),
                lambda fn=fn: fn(t1).numpy(),
                {b: (lambda v=v, fn=fn: fn(v).numpy()) for b, v in tbatches.items()},
                lambda xs, fn=fn: fn(tf.constant(xs)).numpy(), load_ms,
                {"compile_ms": compile_ms})


def worker_onnx_convert(spec, result):
    tf, model, K, _ = load_keras(spec, spec["framework"])
    import tf2onnx
    import onnx
    result["versions"].update({"tf2onnx": tf2onnx.__version__, "onnx": onnx.__version__})
    n = int(spec["input_count"])
    signature = [tf.TensorSpec([None, n], tf.float32, name="x")]
    fn = tf.function(lambda v: model(v, training=False), input_signature=signature)
    t0 = time.perf_counter()
    proto, _ = tf2onnx.convert.from_function(fn, input_signature=signature, opset=spec["opset"])
    result["convert_ms"] = (time.perf_counter() - t0) * 1e3
    onnx.checker.check_model(proto)
    Path(spec["onnx"]).write_bytes(proto.SerializeToString())
    result["ops"] = sorted({node.op_type for node in proto.graph.node})
    result["opset"] = spec["opset"]


def worker_ort(spec, result):
    import numpy as np
    import onnxruntime as ort
    result["versions"].update({"onnxruntime": ort.__version__, "numpy": np.__version__})
    x, ref = np_windows(spec)
    spec["_x"], spec["_ref"] = x, ref
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    t0 = time.perf_counter()
    sess = ort.InferenceSession(spec["onnx"], options, providers=["CPUExecutionProvider"])
    load_ms = (time.perf_counter() - t0) * 1e3
    name_in = sess.get_inputs()[0].name
    names_out = [sess.get_outputs()[0].name]
    x1 = np.ascontiguousarray(x[:1])
    batches = {b: np.ascontiguousarray(x[:b]) for b in spec["batches"]}
    measure(spec, result, "ONNX Runtime", "onnxruntime %s, CPU EP" % ort.__version__,
            lambda: sess.run(names_out, {name_in: x1})[0],
            {b: (lambda v=v: sess.run(names_out, {name_in: v})[0]) for b, v in batches.items()},
            lambda xs: sess.run(names_out, {name_in: xs})[0], load_ms,
            {"ops": spec.get("onnx_ops")})


def worker_tflite_convert(spec, result):
    """One float32 .tflite per batch size: a fixed batch lets the converter fuse the
    LSTMs into UNIDIRECTIONAL_SEQUENCE_LSTM (a dynamic batch does not convert)."""
    tf, model, K, _ = load_keras(spec, spec["framework"])
    n = int(spec["input_count"])
    result["files"] = {}
    result["convert_ms"] = 0.0
    for b in [1] + list(spec["batches"]):
        fn = tf.function(lambda v: model(v, training=False),
                         input_signature=[tf.TensorSpec([b, n], tf.float32)])
        t0 = time.perf_counter()
        converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], model)
        data = converter.convert()
        result["convert_ms"] += (time.perf_counter() - t0) * 1e3
        path = Path(spec["tflite_dir"]) / ("model_b%d.tflite" % b)
        path.write_bytes(data)
        result["files"][str(b)] = str(path)
    result["versions"]["tensorflow (converter)"] = tf.__version__


def worker_litert(spec, result):
    import numpy as np
    try:
        from ai_edge_litert.interpreter import Interpreter
        import ai_edge_litert
        version = getattr(ai_edge_litert, "__version__", None)
        if version is None:
            from importlib.metadata import version as dist_version
            version = dist_version("ai-edge-litert")
        runtime = "ai-edge-litert %s" % version
        result["versions"]["ai-edge-litert"] = version
    except ImportError as e:  # fall back to TensorFlow's own interpreter
        tf = import_tf()
        Interpreter = tf.lite.Interpreter
        runtime = "tf.lite %s (ai-edge-litert: %s)" % (tf.__version__, e)
        result["versions"]["tf.lite"] = tf.__version__
    x, ref = np_windows(spec)
    spec["_x"], spec["_ref"] = x, ref
    files = spec["tflite_files"]

    def make(b):
        it = Interpreter(model_path=files[str(b)], num_threads=1)
        it.allocate_tensors()
        return it

    t0 = time.perf_counter()
    single = make(1)
    load_ms = (time.perf_counter() - t0) * 1e3
    ops = [d["op_name"] for d in single._get_ops_details()]

    def caller(it):
        i = it.get_input_details()[0]["index"]
        o = it.get_output_details()[0]["index"]

        def call(v):
            # The converted LSTMs keep their state in variable tensors that invoke()
            # updates: without a reset each call would start from the previous
            # call's final state (wrong outputs for independent windows).
            it.reset_all_variables()
            it.set_tensor(i, v)
            it.invoke()
            return it.get_tensor(o)
        return call

    run1 = caller(single)
    x1 = np.ascontiguousarray(x[:1])
    runs = {b: caller(make(b)) for b in spec["batches"]}
    batches = {b: np.ascontiguousarray(x[:b]) for b in spec["batches"]}
    check_b = min(spec["batches"])

    def outputs(xs):
        # the smallest batch interpreter over all windows (padding the last chunk)
        parts = []
        for s in range(0, len(xs), check_b):
            chunk = xs[s:s + check_b]
            if len(chunk) < check_b:
                chunk = np.concatenate([chunk, np.zeros((check_b - len(chunk), xs.shape[1]), np.float32)])
            parts.append(runs[check_b](np.ascontiguousarray(chunk)).copy())
        return np.concatenate(parts)[:len(xs)]

    measure(spec, result, "LiteRT", runtime + ", float32, XNNPACK default",
            lambda: run1(x1).copy(),
            {b: (lambda v=v, b=b: runs[b](v)) for b, v in batches.items()},
            outputs, load_ms, {"ops": sorted(set(ops)), "op_count": len(ops)})


WORKERS = {
    "keras": worker_keras,
    "onnx-convert": worker_onnx_convert,
    "ort": worker_ort,
    "tflite-convert": worker_tflite_convert,
    "litert": worker_litert,
}


# ----------------------------------------------------------------------------
# orchestration


def best_round(rounds):
    """One peer's result over several rounds: each row keeps the round with its
    lowest single-window median, the best batch figure of any round, and every
    round's single-window median (`single_rounds_us`)."""
    timed = [r for r in rounds if r.get("rows") and not r.get("error")]
    if not timed:
        return rounds[0]
    best = dict(min(timed, key=lambda r: min(row["single"]["median_us"] for row in r["rows"] if "single" in row)))
    rows = []
    for row in best["rows"]:
        if "single" not in row:
            rows.append(row)
            continue
        same = [other for r in timed for other in r["rows"] if other.get("name") == row["name"] and "single" in other]
        merged = dict(min(same, key=lambda other: other["single"]["median_us"]))
        merged["single_rounds_us"] = [other["single"]["median_us"] for other in same]
        merged["batch"] = {b: max((other["batch"][b] for other in same if b in other.get("batch", {})),
                                  key=lambda v: v["windows_per_s"]) for b in row.get("batch", {})}
        rows.append(merged)
    best["rows"] = rows
    best["rounds"] = len(rounds)
    return best


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
            r = subprocess.run([python, str(Path(__file__).resolve()), "--worker", worker,
                                "--spec", str(spec_path), "--result", str(result_path)],
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
            tail = last_line(log_path.read_text())
        except OSError:
            pass
        result = {"error": "worker exited (%s) without a result: %s (log: %s)" % (code, tail, rel(log_path))}
    result["seconds"] = elapsed
    result["log"] = rel(log_path)
    log("  %s: %.0f s%s" % (name, elapsed, ("; " + result["error"]) if result.get("error") else ""))
    return result


def main():
    args = parse_args()
    if args.worker:
        return worker_main(args)

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

    headsup = run_headsup(args, str(binary), model, windows_csv, reference_csv, log)
    headsup["rounds"] = [headsup["benches"]]

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
        log("round %d of %d: HeadsUp, then %s" % (round_number, args.rounds, ", ".join(fast_specs) or "no peers"))
        again = run_headsup(args, str(binary), model, windows_csv, out / "headsup_outputs_round.csv", log,
                            batches=args.batch_sizes[:1])
        headsup["rounds"].append(again["benches"])
        for key, spec in fast_specs.items():
            peer_rounds[key].append(run_worker(args, python, key, spec, log))
    for key, rounds in peer_rounds.items():
        results[key] = best_round(rounds)
    if wanted:  # HeadsUp again, to see how much the machine drifted during the peers
        log("HeadsUp again (drift check)")
        again = run_headsup(args, str(binary), model, windows_csv, out / "headsup_outputs_end.csv", log)
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


# ----------------------------------------------------------------------------
# report


def build_report(args, model, framework, windows_source, input_count, quiet, busy, end_load,
                 headsup, results, unavailable, install_failures, seconds):
    b0 = str(args.batch_sizes[0])
    # Every round timed the first batch size; the first round also the others.
    rounds = headsup.get("rounds") or [headsup["benches"]]
    hb = min((r[b0] for r in rounds), key=lambda f: f["single_median_us"])
    sizes = list(headsup["benches"])
    hu = {
        "name": "HeadsUp", "runtime": headsup.get("version", "headsup"),
        "load_ms": hb["load_ms"],
        "single": {"median_us": hb["single_median_us"], "p99_us": hb["single_p99_us"],
                   "calls": args.headsup_iterations},
        "single_rounds_us": [r[b0]["single_median_us"] for r in rounds],
        "batch": {b: {"windows_per_s": max(r[b]["batch_windows_per_s_1_thread"] for r in rounds if b in r)}
                  for b in sizes},
        "batch_all_cores": {b: max(r[b]["batch_windows_per_s_all_cores"] for r in rounds if b in r) for b in sizes},
        "max_abs_diff": 0.0, "agrees": True, "reference": True,
    }
    rows = []
    versions = {"python": platform.python_version()}
    notes = {}
    remarks = []
    for key, res in results.items():
        versions.update(res.get("versions", {}))
        remarks.extend(res.get("notes", []))
        if key in ("onnx-convert", "tflite-convert"):
            notes[key] = {k: res.get(k) for k in ("ops", "opset", "convert_ms", "error", "seconds") if k in res}
            continue
        if res.get("error") and not res.get("rows"):
            rows.append({"name": {"keras": "Keras (%s)" % framework, "keras3": "Keras 3", "ort": "ONNX Runtime",
                                  "litert": "LiteRT"}.get(key, key), "unavailable": res["error"]})
        rows.extend(res.get("rows", []))
    for key, reason in unavailable.items():
        rows.append({"name": {"onnx": "ONNX Runtime", "litert": "LiteRT", "keras": "Keras",
                              "keras3": "Keras 3"}.get(key, key), "unavailable": reason})
    # HeadsUp's speed-up over each peer
    for row in rows:
        if "single" in row:
            row["headsup_speedup_single"] = row["single"]["median_us"] / hu["single"]["median_us"]
            row["headsup_speedup_batch"] = {
                b: hu["batch"][b]["windows_per_s"] / v["windows_per_s"]
                for b, v in row["batch"].items() if b in hu["batch"]}
    timed = [r for r in rows if "single" in r]
    fastest_single = min(timed, key=lambda r: r["single"]["median_us"]) if timed else None
    targets = {
        "single_median_us_at_most": TARGET_SINGLE_US,
        "single_median_us": hu["single"]["median_us"],
        "single_met": hu["single"]["median_us"] <= TARGET_SINGLE_US,
        "single_speedup_vs_fastest_peer_at_least": TARGET_SINGLE_SPEEDUP,
        "fastest_single_peer": fastest_single["name"] if fastest_single else None,
        "single_speedup_vs_fastest_peer": fastest_single["headsup_speedup_single"] if fastest_single else None,
        "batch_windows_per_s_at_least": TARGET_BATCH_WPS,
        "batch_windows_per_s": hu["batch"][b0]["windows_per_s"],
        "batch_met": hu["batch"][b0]["windows_per_s"] >= TARGET_BATCH_WPS,
        "batch_faster_than_every_peer": all(
            all(s > 1 for s in r["headsup_speedup_batch"].values()) for r in timed) if timed else None,
    }
    targets["single_speedup_met"] = (targets["single_speedup_vs_fastest_peer"] or 0) >= TARGET_SINGLE_SPEEDUP
    return {
        "command": "python3 tools/bench/" + " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": seconds,
        "machine": machine_info(),
        "git": git_info(),
        "load": {"wait": quiet, "at_start": quiet["after"], "at_end": end_load, "top_processes": busy},
        "model": rel(model), "framework": framework,
        "windows": {"source": windows_source, "count": args.count, "input_count": input_count,
                    "file": rel(Path(args.out_dir) / "windows.csv")},
        "settings": {"iterations": args.iterations, "slow_iterations": args.slow_iterations, "headsup_iterations": args.headsup_iterations,
                     "batch_seconds": args.batch_seconds, "batches": args.batch_sizes, "quick": args.quick,
                     "rounds": args.rounds,
                     "tolerance": TOLERANCE, "threads": THREAD_ENV},
        "headsup": hu,
        "headsup_binary": headsup["binary"],
        "headsup_binary_info": headsup.get("binary_info", {}),
        "headsup_bench_json": headsup["benches"],
        "headsup_bench_json_at_end": headsup.get("again"),
        "peers": rows,
        "conversions": notes,
        "notes": remarks,
        "install_failures": install_failures,
        "versions": versions,
        "peak_multiply_adds_per_s": hb["peak_multiply_adds_per_s"],
        "multiply_adds_per_window": hb["multiply_adds_per_window"],
        "single_fraction_of_peak": hb["single_fraction_of_peak"],
        "batch_fraction_of_peak": hb["batch_fraction_of_peak"],
        "targets": targets,
    }


def machine_info():
    info = {"cores": os.cpu_count(), "platform": platform.platform()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


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


def git_info():
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "Sources", "Package.swift"],
                               capture_output=True, text=True).stdout.strip()
        return {"head": head, "sources_modified": bool(dirty)}
    except OSError:
        return {}


def fmt_num(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def format_report(r):
    hu = r["headsup"]
    batches = [str(b) for b in r["settings"]["batches"]]
    lines = []
    lines.append("HeadsUp benchmark: %s (%s), %d windows (%s)" % (
        r["model"], r["framework"], r["windows"]["count"], r["windows"]["source"]))
    m = r["machine"]
    lines.append("machine: %s, %s cores; everything single-threaded; git %s%s" % (
        m.get("cpu", "?"), m.get("cores"), r["git"].get("head", "?"),
        " (Sources modified)" if r["git"].get("sources_modified") else ""))
    ld = r["load"]
    w = ld["wait"]
    lines.append("load average (1/5/15 min): %.2f %.2f %.2f at start (waited %.0f s for < %.2f: %s), "
                 "%.2f %.2f %.2f at end; timed at nice %d" % (
                     tuple(ld["at_start"]) + (w["waited_s"], w["threshold"], "reached" if w["reached"] else "NOT reached")
                     + tuple(ld["at_end"]) + (w.get("nice", 0),)))
    bi = r.get("headsup_binary_info", {})
    lines.append("headsup binary: %s, built %s%s" % (
        bi.get("path", r["headsup_binary"]), bi.get("built_utc", "?"),
        ("; WARNING: newer sources than the binary (rebuild?): " + ", ".join(bi["sources_newer_than_binary"]))
        if bi.get("sources_newer_than_binary") else ""))
    if ld.get("top_processes"):
        lines.append("busiest processes when timing started (%%CPU command): %s" % "; ".join(ld["top_processes"][:4]))
    lines.append("")
    rounds = r["settings"].get("rounds", 1)
    head = ["runtime", "single median µs" + (" (best of %d)" % rounds if rounds > 1 else ""), "p99 µs"] + ["batch %s w/s" % b for b in batches] + \
           ["load ms", "max |Δ| vs HeadsUp", "HeadsUp × single"] + ["HeadsUp × b%s" % b for b in batches]
    table = [head]

    def row_cells(row):
        if "unavailable" in row:
            return [row["name"], "unavailable"] + [""] * (len(head) - 2)
        cells = [row["name"], fmt_num(row["single"]["median_us"], 1), fmt_num(row["single"]["p99_us"], 1)]
        cells += [fmt_num(row["batch"].get(b, {}).get("windows_per_s")) for b in batches]
        cells += [fmt_num(row.get("load_ms"), 1)]
        if row.get("reference"):
            cells += ["(reference)", "1.00"] + ["1.00"] * len(batches)
        else:
            cells += ["%.1e %s" % (row["max_abs_diff"], "ok" if row["agrees"] else "DIFFERS in %d/%d" % (
                          row["windows_over_tolerance"], row["checked_windows"])),
                      "%.2f" % row["headsup_speedup_single"]]
            cells += ["%.2f" % row["headsup_speedup_batch"][b] if b in row["headsup_speedup_batch"] else "-"
                      for b in batches]
        return cells

    table.append(row_cells(hu))
    for row in r["peers"]:
        table.append(row_cells(row))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for i, t in enumerate(table):
        lines.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * wd for wd in widths))
    lines.append("")
    if rounds > 1:
        lines.append("single-window medians per round, µs (fresh processes, alternating; the table keeps the best): " +
                     "; ".join("%s %s" % (row["name"], " ".join("%.1f" % v for v in row["single_rounds_us"]))
                               for row in [hu] + r["peers"] if row.get("single_rounds_us")))
    lines.append("HeadsUp all cores (%d): %s windows/s" % (
        m.get("cores") or 0, ", ".join("batch %s %s" % (b, fmt_num(v)) for b, v in hu["batch_all_cores"].items())))
    if r.get("headsup_bench_json_at_end"):
        e = r["headsup_bench_json_at_end"]
        lines.append("HeadsUp again after the peers (drift check): single median %.1f µs, p99 %.1f µs; %s windows/s" % (
            e[batches[0]]["single_median_us"], e[batches[0]]["single_p99_us"],
            ", ".join("batch %s %s" % (b, fmt_num(f["batch_windows_per_s_1_thread"])) for b, f in e.items())))
    lines.append("HeadsUp model load: %.2f ms; %s multiply-adds per window" % (
        hu["load_ms"], fmt_num(r["multiply_adds_per_window"])))
    lines.append("peak multiply-add rate (one core, HeadsUp's SIMD type): %.1f G/s; HeadsUp reaches %.0f %% of it "
                 "single-window, %.0f %% batched" % (r["peak_multiply_adds_per_s"] / 1e9,
                                                    100 * r["single_fraction_of_peak"], 100 * r["batch_fraction_of_peak"]))
    agree = [p for p in r["peers"] if "agrees" in p]
    bad = [p["name"] for p in agree if not p["agrees"]]
    lines.append("outputs: %d of %d timed peers agree with `headsup model predict` to %.0e on all %d windows%s" % (
        len(agree) - len(bad), len(agree), r["settings"]["tolerance"], r["windows"]["count"],
        ("; DIFFER: " + ", ".join(bad)) if bad else ""))
    cpu = [(p["name"], p["single"]["cpu_per_wall"]) for p in agree]
    if cpu:
        lines.append("threads: process CPU time / wall time while timing single windows: " +
                     ", ".join("%s %.2f" % c for c in cpu))
    for note in r["notes"]:
        lines.append("note: " + note)
    for p in r["peers"]:
        if "unavailable" in p:
            lines.append("unavailable: %s: %s" % (p["name"], p["unavailable"]))
    for key, c in r["conversions"].items():
        if c.get("ops"):
            lines.append("%s: opset %s, ops %s" % (key, c.get("opset"), " ".join(c["ops"])))
    lite = [p for p in r["peers"] if p.get("ops") and p["name"] == "LiteRT"]
    if lite:
        lines.append("LiteRT ops: %s" % " ".join(lite[0]["ops"]))
    t = r["targets"]
    lines.append("")
    lines.append("targets (reported, not asserted):")
    lines.append("  single-window median <= %.0f µs: %.1f µs  %s" % (
        t["single_median_us_at_most"], t["single_median_us"], "met" if t["single_met"] else "NOT met"))
    if t["fastest_single_peer"]:
        lines.append("  >= %.0fx faster than the fastest peer (%s): %.2fx  %s" % (
            t["single_speedup_vs_fastest_peer_at_least"], t["fastest_single_peer"],
            t["single_speedup_vs_fastest_peer"], "met" if t["single_speedup_met"] else "NOT met"))
    lines.append("  batch (%s) >= %s windows/s on one thread: %s  %s" % (
        batches[0], fmt_num(t["batch_windows_per_s_at_least"]), fmt_num(t["batch_windows_per_s"]),
        "met" if t["batch_met"] else "NOT met"))
    if t["batch_faster_than_every_peer"] is not None:
        lines.append("  batch faster than every peer (all batch sizes): %s" % (
            "met" if t["batch_faster_than_every_peer"] else "NOT met"))
    v = r["versions"]
    lines.append("")
    lines.append("versions: " + ", ".join("%s %s" % kv for kv in sorted(v.items())) +
                 "; HeadsUp %s (%s)" % (hu["runtime"], r["headsup_binary"]))
    lines.append("run took %.0f s: %s" % (r["seconds"], r["command"]))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
