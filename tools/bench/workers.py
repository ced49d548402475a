#!/usr/bin/env python3
"""The peer workers of run_bench.py: one runtime each, run inside tools/bench/.venv.

    python workers.py WORKER SPEC.json RESULT.json

run_bench.py starts one process per worker (keras, onnx-convert, ort,
tflite-convert, litert) with the settings in SPEC.json; the worker writes
its rows, versions and notes to RESULT.json, and a failure into it as
"error" instead of crashing, so that one peer that cannot be converted or
run does not stop the run.
"""

import json
import os
import sys
import time
from pathlib import Path

from common import THREAD_ENV, TOLERANCE, loadavg, rel


def worker_main(worker, spec_path, result_path):
    for k, v in THREAD_ENV.items():
        os.environ.setdefault(k, v)
    spec = json.loads(Path(spec_path).read_text())
    result = {"worker": worker, "rows": [], "versions": {}, "notes": []}
    try:
        WORKERS[worker](spec, result)
    except BaseException as e:  # report, never crash without a result
        import traceback
        traceback.print_exc()
        result["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:300] if str(e).strip() else "")
    Path(result_path).write_text(json.dumps(result, indent=1))
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


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in WORKERS:
        sys.exit("usage: workers.py {%s} SPEC.json RESULT.json" % ",".join(WORKERS))
    sys.exit(worker_main(*sys.argv[1:]))
