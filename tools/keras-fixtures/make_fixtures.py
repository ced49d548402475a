#!/usr/bin/env python3
"""Builds reference Keras models and test fixtures for HeadsUp's Swift engine.

Run from anywhere:  python3 tools/keras-fixtures/make_fixtures.py

The script creates (once) two virtualenvs next to itself and re-executes
itself inside the first:
  .venv       from requirements.txt       tensorflow-cpu, tf_keras (Keras 2 API), keras 3
  .venv-k231  from requirements-k231.txt  the real Keras 2.3.1 on Theano
and writes Tests/Fixtures/keras/{cases.json, <case>/..., bad/...}.
See README.md for what each case covers.

Options:  --skip-k231  do not (re)build the Keras 2.3.1 cases (keeps existing ones)
          --verify-only  only reload every written model and compare to outputs.csv
"""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "Tests" / "Fixtures" / "keras"
VENV = HERE / ".venv"
VENV_K231 = HERE / ".venv-k231"
DATA = Path(os.environ.get("HEADSUP_MOTION_DATA", "/work/shared/datasets/phone-motion-v1/sessions"))

ENV = {
    "PYTHONHASHSEED": "0",
    "CUDA_VISIBLE_DEVICES": "-1",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "TF_ENABLE_ONEDNN_OPTS": "0",      # oneDNN kernels may reorder float sums
    "TF_DETERMINISTIC_OPS": "1",
    "KERAS_BACKEND": "tensorflow",
    "PYTHONDONTWRITEBYTECODE": "1",
}


# --------------------------------------------------------------------------
# bootstrap: venvs + re-exec
# --------------------------------------------------------------------------
def _stamp(files):
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()


def ensure_venv(venv, req_files, install_args):
    want = _stamp(req_files)
    stamp = venv / ".requirements.sha256"
    py = venv / "bin" / "python"
    if py.exists() and stamp.exists() and stamp.read_text().strip() == want:
        return py
    if venv.exists():
        import shutil
        shutil.rmtree(venv)
    print("creating %s ..." % venv, flush=True)
    subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
    subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
                          + install_args, cwd=str(HERE))
    stamp.write_text(want + "\n")
    return py


def bootstrap():
    if sys.version_info[:2] != (3, 11):
        print("warning: made for Python 3.11, running %s" % sys.version.split()[0], file=sys.stderr)
    py = ensure_venv(VENV, [HERE / "requirements.txt", HERE / "constraints.txt"],
                     ["-r", "requirements.txt"])
    if "--skip-k231" not in sys.argv and "--verify-only" not in sys.argv:
        ensure_venv(VENV_K231, [HERE / "requirements-k231.txt"], ["-r", "requirements-k231.txt"])
    env = dict(os.environ)
    env.update(ENV)
    env["HEADSUP_KERAS_FIXTURES_IN_VENV"] = "1"
    os.execve(str(py), [str(py), str(Path(__file__).resolve())] + sys.argv[1:], env)


if __name__ == "__main__" and os.environ.get("HEADSUP_KERAS_FIXTURES_IN_VENV") != "1":
    bootstrap()

# --------------------------------------------------------------------------
# inside .venv from here on
# --------------------------------------------------------------------------
for _k, _v in ENV.items():
    os.environ.setdefault(_k, _v)

import glob  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402
import h5py  # noqa: E402
sys.path.insert(0, str(HERE))
import conditioning  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as tk  # noqa: E402
import keras  # noqa: E402

tf.get_logger().setLevel("ERROR")
import logging  # noqa: E402
logging.getLogger("absl").setLevel(logging.ERROR)
import warnings  # noqa: E402
warnings.filterwarnings("ignore")

tf.config.experimental.enable_op_determinism()
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(2)

TK_WRITER = "tf_keras %s" % tk.__version__
K3_WRITER = "keras %s" % keras.__version__
VERSIONS = {
    "python": sys.version.split()[0],
    "tensorflow": tf.__version__,
    "tf_keras": tk.__version__,
    "keras": keras.__version__,
    "h5py": h5py.__version__,
    "libhdf5": h5py.version.hdf5_version,
    "numpy": np.__version__,
}

CASES = []          # entries of cases.json
LOADERS = {}        # name -> callable returning a freshly loaded model
SENS = {}           # name -> (worst sensitivity, replaced input rows), see conditioning.py


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def case_rng(name):
    return np.random.RandomState(zlib.crc32(name.encode()) & 0x7FFFFFFF)


def make_inputs(name, shape, n_normal=5, n_large=3, loc=0.0, scale=1.0):
    """n_normal items ~ N(loc, scale), n_large items with 5x the spread."""
    rng = case_rng(name + "/inputs")
    a = rng.normal(0, 1, (n_normal,) + tuple(shape)) * scale + loc
    b = rng.normal(0, 1, (n_large,) + tuple(shape)) * scale * 5.0 + loc
    return np.concatenate([a, b]).astype(np.float32)


class Inputs:
    """A case's input rows (make_inputs) and how to draw a replacement for
    row i of the same kind (N(loc, scale) or the 5x spread), used when the
    conditioning check rejects a row."""

    def __init__(self, name, shape, n_normal=5, n_large=3, loc=0.0, scale=1.0):
        self.x = make_inputs(name, shape, n_normal, n_large, loc, scale)
        self.shape, self.n_normal, self.loc, self.scale = tuple(shape), n_normal, loc, scale
        self._rng = case_rng(name + "/redraw")

    def redraw(self, i):
        spread = 1.0 if i < self.n_normal else 5.0
        return (self._rng.normal(0, 1, self.shape) * self.scale * spread + self.loc).astype(np.float32)


def randomize(model, rng, scale=2.5):
    """Random weights, kernels x`scale` of a unit-variance fan-in init (so gates
    and activations reach saturation), non-trivial BatchNormalization stats.
    Normalization layers keep their adapted statistics."""
    for layer in model.layers:
        if type(layer).__name__ == "Normalization":
            continue
        ws = layer.weights
        if not ws:
            continue
        new = []
        for v in ws:
            shape = tuple(int(s) for s in v.shape)
            short = v.name.split("/")[-1].split(":")[0]
            if short == "gamma":
                a = rng.uniform(0.6, 1.6, shape)
            elif short == "beta":
                a = rng.normal(0, 0.4, shape)
            elif short == "moving_mean":
                a = rng.normal(0, 0.8, shape)
            elif short == "moving_variance":
                a = rng.uniform(0.3, 2.5, shape)
            elif "bias" in short:
                a = rng.normal(0, 0.5, shape)
            else:
                fan_in = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
                a = rng.normal(0, 1, shape) * scale / np.sqrt(fan_in)
            new.append(a.astype(np.float32))
        layer.set_weights(new)


def run(model, x):
    y = model(tf.convert_to_tensor(x, dtype=tf.float32), training=False)
    return np.asarray(y, dtype=np.float32)


def write_csv(path, arr):
    arr = np.asarray(arr, dtype=np.float32)
    arr = arr.reshape(arr.shape[0], -1)
    with open(path, "w") as fh:
        for row in arr:
            fh.write(",".join("%.9g" % float(v) for v in row) + "\n")


def read_csv(path):
    with open(path) as fh:
        return np.array([[np.float32(t) for t in line.strip().split(",")]
                         for line in fh if line.strip()], dtype=np.float32)


def fresh(fw):
    if fw == "tk":
        tk.backend.clear_session()
        tk.utils.set_random_seed(1)
    else:
        keras.backend.clear_session()
        keras.utils.set_random_seed(1)


def loader_for(fw, fmt, d):
    d = Path(d)
    if fw == "tk" and fmt == "legacy-h5":
        return lambda: tk.models.load_model(d / "model.h5", compile=False)
    if fw == "tk" and fmt == "legacy-weights-h5":
        def load():
            m = tk.models.model_from_json((d / "model.json").read_text())
            m.load_weights(str(d / "model_weights.h5"))
            return m
        return load
    if fw == "k3" and fmt == "legacy-h5":
        return lambda: keras.models.load_model(d / "model.h5", compile=False)
    if fw == "k3" and fmt == "keras-archive":
        return lambda: keras.models.load_model(d / "model.keras", compile=False)
    if fw == "k3" and fmt == "keras3-weights-h5":
        def load():
            cfg = json.loads((d / "model.json").read_text())
            m = keras.saving.deserialize_keras_object(cfg)
            m.load_weights(str(d / "model.weights.h5"))
            return m
        return load
    raise ValueError((fw, fmt))


def _archive_key(data):
    """Content of a .keras zip without what changes on every save: the
    metadata's date_saved and config's shared_object_id (a Python id())."""
    import io
    import zipfile
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        meta = json.loads(z.read("metadata.json"))
        meta.pop("date_saved", None)
        ids = {}

        def canon(o):
            if isinstance(o, dict):
                return {k: (ids.setdefault(v, len(ids)) if k == "shared_object_id" else canon(v))
                        for k, v in o.items()}
            if isinstance(o, list):
                return [canon(v) for v in o]
            return o
        cfg = canon(json.loads(z.read("config.json")))
        return json.dumps([meta, cfg], sort_keys=True), z.read("model.weights.h5"), sorted(z.namelist())


def keep_equivalent_archive(path, old_bytes):
    """Keep the previous archive's bytes when only the save date and object
    ids differ, so re-running the script does not churn the binaries."""
    try:
        if _archive_key(old_bytes) == _archive_key(path.read_bytes()):
            path.write_bytes(old_bytes)
    except Exception:
        pass


def emit(name, fw, fmt, model, x, covers, notes):
    """Save `model` in `fmt`, load it back, compute outputs from the loaded
    model and write the case folder + cases.json entry."""
    d = OUT / name
    old_archive = (d / "model.keras").read_bytes() if (d / "model.keras").exists() else None
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    redraw = None
    if isinstance(x, Inputs):
        x, redraw = x.x, x.redraw
    config = None
    if fw == "tk" and fmt == "legacy-h5":
        model.save(str(d / "model.h5"), save_format="h5", include_optimizer=False)
        mfile = "model.h5"
    elif fw == "tk" and fmt == "legacy-weights-h5":
        model.save_weights(str(d / "model_weights.h5"), save_format="h5")
        (d / "model.json").write_text(model.to_json())
        mfile, config = "model_weights.h5", "model.json"
    elif fw == "k3" and fmt == "legacy-h5":
        model.save(str(d / "model.h5"))
        mfile = "model.h5"
    elif fw == "k3" and fmt == "keras-archive":
        model.save(str(d / "model.keras"))
        mfile = "model.keras"
    elif fw == "k3" and fmt == "keras3-weights-h5":
        model.save_weights(str(d / "model.weights.h5"))
        (d / "model.json").write_text(json.dumps(keras.saving.serialize_keras_object(model)))
        mfile, config = "model.weights.h5", "model.json"
    else:
        raise ValueError((fw, fmt))
    load = loader_for(fw, fmt, d)
    fresh(fw)
    loaded = load()
    # Conditioning: every row must be matchable in float32 (conditioning.py);
    # ill-conditioned rows are replaced, an ill-conditioned model is refused.
    x, sens, replaced = conditioning.condition(name, lambda b: run(loaded, b), x, redraw)
    SENS[name] = (float(sens.max()), replaced)
    if replaced:
        notes = notes + (" Input rows redrawn (same distribution) by the conditioning check: %s."
                         % ", ".join(str(i) for i in sorted(set(replaced))))
    y = run(loaded, x)
    y_mem = run(model, x)
    diff = float(np.max(np.abs(y - y_mem)))
    assert diff <= 1e-6, (name, diff)
    assert np.all(np.isfinite(y)), name
    if old_archive is not None and fmt == "keras-archive":
        keep_equivalent_archive(d / "model.keras", old_archive)
    write_csv(d / "inputs.csv", x)
    write_csv(d / "outputs.csv", y)
    CASES.append({
        "name": name,
        "model": "%s/%s" % (name, mfile),
        "config": ("%s/%s" % (name, config)) if config else None,
        "format": fmt,
        "writer": TK_WRITER if fw == "tk" else K3_WRITER,
        "input_shape": list(x.shape[1:]),
        "output_shape": list(y.shape[1:]),
        "inputs": "%s/inputs.csv" % name,
        "outputs": "%s/outputs.csv" % name,
        "covers": covers,
        "notes": notes,
    })
    LOADERS[name] = (fw, fmt)
    print("  %-28s %-18s %-3s in%-12s out%-8s max|y|=%-8.3g sens=%.1e%s" % (
        name, fmt, fw, list(x.shape[1:]), list(y.shape[1:]), float(np.max(np.abs(y))), sens.max(),
        (" (rows %s redrawn)" % replaced) if replaced else ""), flush=True)
    return loaded


# --------------------------------------------------------------------------
# seed model (trained)
# --------------------------------------------------------------------------
TRAIN_FILES = ["data_new_20190530_172403_0", "data_new_20190530_172909_0", "data_sensors_data_7",
               "data_sensors_data_10", "data_sensors_data_12", "data_new_20190530_175250_1"]
HOLDOUT_FILES = ["data_sensors_data_4", "data_sensors_data_3"]


def windows(fname, step=50):
    a = np.loadtxt(DATA / (fname + ".txt"), delimiter=",", dtype=np.float64)
    out, labels = [], []
    for s in range(0, len(a) - 50 + 1, step):
        w = a[s:s + 50]
        dt = np.diff(w[:, 1])
        if np.any(dt <= 0) or np.any(dt > 0.1) or np.any(w[:, 0] != w[0, 0]):
            continue    # gap, time going backwards or mixed labels
        out.append(w[:, 2:11].T.reshape(-1))      # channel-major: index = channel*50 + t
        labels.append(w[0, 0])
    return np.array(out, np.float32), np.array(labels, np.float32)


def seed_data():
    if not DATA.is_dir():
        raise SystemExit("motion data not found at %s (set HEADSUP_MOTION_DATA)" % DATA)
    xs, ys = zip(*(windows(f) for f in TRAIN_FILES))
    x, y = np.concatenate(xs), np.concatenate(ys)
    h0, _ = windows(HOLDOUT_FILES[0], step=500)
    h1, _ = windows(HOLDOUT_FILES[1], step=500)
    normal = np.concatenate([h0[3:6], h1[3:5]])          # 3 pocket + 2 hands windows
    large = np.concatenate([h0[10:12], h1[10:11]]) * 5.0   # x5: drives the gates into saturation
    return x, y, np.concatenate([normal, large]).astype(np.float32)


def seed_layers(L):
    return [L.Reshape((50, 9)),
            L.LSTM(50, return_sequences=True),
            L.Dropout(0.5),
            L.LSTM(50),
            L.Dropout(0.5),
            L.Dense(100, activation="relu"),
            L.Dense(1, activation="sigmoid")]


SEED_NOTES = ("Seed architecture of the original app: 450-vector (channel-major, index = channel*50+t) "
              "-> Reshape((50,9)) (C order: LSTM step t reads flat[9t..9t+8]) -> LSTM(50, "
              "return_sequences) -> Dropout(0.5) -> LSTM(50) -> Dropout(0.5) -> Dense(100, relu) -> "
              "Dense(1, sigmoid). Weights TRAINED (tf_keras, 3 epochs Adam, raw 100 Hz phone-motion-v1 "
              "windows from %s). Inputs: 5 held-out real windows (%s) + 3 real windows x5."
              % (", ".join(TRAIN_FILES), ", ".join(HOLDOUT_FILES)))


def build_seed():
    fresh("tk")
    x, y, fx = seed_data()
    rng = np.random.RandomState(7)
    order = rng.permutation(len(x))
    x, y = x[order], y[order]
    m = tk.Sequential([tk.layers.InputLayer(input_shape=(450,))] + seed_layers(tk.layers))
    m.compile(optimizer=tk.optimizers.Adam(1e-3), loss="binary_crossentropy", metrics=["accuracy"])
    hist = m.fit(x, y, epochs=3, batch_size=64, shuffle=True, verbose=0, validation_split=0.1)
    print("  seed training: %d windows, acc %s, val_acc %s" % (
        len(x), ["%.3f" % a for a in hist.history["accuracy"]],
        ["%.3f" % a for a in hist.history["val_accuracy"]]), flush=True)
    return m, fx


# --------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------
def tk_seq(shape, layers):
    return tk.Sequential([tk.layers.InputLayer(input_shape=shape)] + layers)


def k3_seq(shape, layers):
    return keras.Sequential([keras.Input(shape=shape)] + layers)


def tk_fun(shape, layers):
    inp = tk.Input(shape=shape)
    h = inp
    for layer in layers:
        h = layer(h)
    return tk.Model(inp, h)


def k3_fun(shape, layers):
    inp = keras.Input(shape=shape)
    h = inp
    for layer in layers:
        h = layer(h)
    return keras.Model(inp, h)


TK_SEQ = "Sequential(dict config, tf_keras: InputLayer entry + layers)"
K3_SEQ = "Sequential(dict config, Keras 3: InputLayer entry + layers)"
TK_FUN = "Functional(inbound_nodes nested lists)"
K3_FUN = "Functional(inbound_nodes dict args)"


def build_cases(seed_tk, seed_x):
    w = [np.array(a) for a in seed_tk.get_weights()]

    # ---- seed in tf_keras / Keras 3 ----------------------------------------
    print("tf_keras / Keras 3 cases:", flush=True)
    emit("seed_tfkeras_h5", "tk", "legacy-h5", seed_tk, seed_x,
         ["InputLayer", "Reshape", "LSTM", "return_sequences", "Dropout", "Dense", "relu", "sigmoid",
          "trained-weights", TK_SEQ, "weight-names tf.keras (lstm/lstm_cell/kernel:0)"],
         SEED_NOTES)

    fresh("k3")
    m = k3_seq((450,), seed_layers(keras.layers))
    m.set_weights(w)
    emit("seed_keras3_h5", "k3", "legacy-h5", m, seed_x,
         ["InputLayer", "Reshape", "LSTM", "return_sequences", "Dropout", "Dense", "relu", "sigmoid",
          "trained-weights", K3_SEQ, "weight-names Keras 3 legacy h5 (sequential/lstm/lstm_cell/kernel, no :0)",
          "top_level_model_weights group"],
         SEED_NOTES + " Same weights as seed_tfkeras_h5, written by Keras 3 model.save('model.h5').")

    fresh("k3")
    m = k3_fun((450,), seed_layers(keras.layers))
    m.set_weights(w)
    emit("seed_keras3_keras", "k3", "keras-archive", m, seed_x,
         ["keras-archive", "InputLayer", "Reshape", "LSTM", "return_sequences", "Dropout", "Dense",
          "relu", "sigmoid", "trained-weights", K3_FUN],
         SEED_NOTES + " Same weights as seed_tfkeras_h5, Keras 3 .keras archive of a functional model.")

    # ---- LSTM options (tf_keras, functional) ---------------------------------
    fresh("tk")
    m = tk_fun((24, 6), [
        tk.layers.LSTM(16, return_sequences=True, go_backwards=True),
        tk.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        tk.layers.LSTM(10, go_backwards=True, recurrent_activation="hard_sigmoid"),
        tk.layers.Dense(3, activation="softmax"),
    ])
    randomize(m, case_rng("lstm_tfkeras_h5"))
    emit("lstm_tfkeras_h5", "tk", "legacy-h5", m, Inputs("lstm_tfkeras_h5", (24, 6)),
         ["InputLayer", "LSTM", "return_sequences", "go_backwards",
          "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))", "Dense", "softmax", TK_FUN],
         "LSTM(16, return_sequences, go_backwards) -> LSTM(12, return_sequences, hard_sigmoid) -> "
         "LSTM(10, go_backwards, hard_sigmoid) -> Dense(3, softmax). go_backwards + "
         "return_sequences: Keras returns the outputs in processing order, i.e. output[t] is the "
         "state after reading x[T-1-t] (NOT re-reversed); the next layer consumes that order. "
         "Random weights x2.5.")

    # ---- GRU (tf_keras, Sequential) -------------------------------------------
    fresh("tk")
    m = tk_seq((20, 5), [
        tk.layers.GRU(12, return_sequences=True, reset_after=True),
        tk.layers.GRU(10, return_sequences=True, reset_after=False, go_backwards=True),
        tk.layers.GRU(8, return_sequences=True, reset_after=True, go_backwards=True,
                      recurrent_activation="hard_sigmoid"),
        tk.layers.GRU(6, reset_after=False, recurrent_activation="hard_sigmoid"),
        tk.layers.Dense(1, activation="sigmoid"),
    ])
    randomize(m, case_rng("gru_tfkeras_h5"), scale=2.0)
    emit("gru_tfkeras_h5", "tk", "legacy-h5", m, Inputs("gru_tfkeras_h5", (20, 5)),
         ["InputLayer", "GRU", "reset_after=true", "reset_after=false", "GRU bias (3u) and (2,3u)",
          "return_sequences", "go_backwards", "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))",
          "Dense", "sigmoid", TK_SEQ],
         "GRU gates z, r, h (column blocks of 3u). reset_after=True: bias (2,3u) = [input bias; "
         "recurrent bias], h~ = tanh(x Wh + bx_h + r*(h Uh + bh_h)). reset_after=False: bias (3u), "
         "h~ = tanh(x Wh + (r*h) Uh + b_h). Random weights x2.0 (x2.5 was ill-conditioned).")

    # ---- SimpleRNN (tf_keras, functional) -------------------------------------
    fresh("tk")
    m = tk_fun((16, 4), [
        tk.layers.SimpleRNN(10, return_sequences=True, go_backwards=True),
        tk.layers.SimpleRNN(8, return_sequences=True, activation="relu"),
        tk.layers.SimpleRNN(6, go_backwards=True),
        tk.layers.Dense(2, activation="softplus"),
    ])
    randomize(m, case_rng("simplernn_tfkeras_h5"), scale=1.5)
    emit("simplernn_tfkeras_h5", "tk", "legacy-h5", m, Inputs("simplernn_tfkeras_h5", (16, 4)),
         ["InputLayer", "SimpleRNN", "return_sequences", "go_backwards", "relu", "tanh", "Dense",
          "softplus", TK_FUN],
         "SimpleRNN(10, tanh, return_sequences, go_backwards) -> SimpleRNN(8, relu, "
         "return_sequences) -> SimpleRNN(6, go_backwards) -> Dense(2, softplus). Weights x1.5 "
         "(a relu recurrence with x2.5 explodes).")

    # ---- Bidirectional (tf_keras, Sequential) ---------------------------------
    fresh("tk")
    m = tk_seq((12, 4), [
        tk.layers.Bidirectional(tk.layers.LSTM(8, return_sequences=True), merge_mode="concat"),
        tk.layers.Bidirectional(tk.layers.GRU(6, return_sequences=True), merge_mode="sum"),
        tk.layers.Bidirectional(tk.layers.SimpleRNN(5, return_sequences=True), merge_mode="mul"),
        tk.layers.Bidirectional(tk.layers.GRU(4, reset_after=False), merge_mode="ave"),
        tk.layers.Dense(3, activation="tanh"),
    ])
    randomize(m, case_rng("bidir_tfkeras_h5"), scale=1.5)
    emit("bidir_tfkeras_h5", "tk", "legacy-h5", m, Inputs("bidir_tfkeras_h5", (12, 4)),
         ["InputLayer", "Bidirectional", "merge_mode=concat", "merge_mode=sum", "merge_mode=mul",
          "merge_mode=ave", "LSTM", "GRU", "reset_after=true", "reset_after=false", "SimpleRNN",
          "return_sequences", "Dense", "tanh", TK_SEQ],
         "Bidirectional merge modes concat (forward first), sum, mul, ave. With "
         "return_sequences the backward layer's output sequence is reversed back by Bidirectional "
         "so both halves are time-aligned (unlike a bare go_backwards layer); without "
         "return_sequences the backward half is its final state (after reading x[0]). Weights: "
         "forward_* then backward_* (kernel, recurrent_kernel, bias each). merge_mode=None is not "
         "expressible in a linear graph (the layer then returns two tensors): not covered. Weights "
         "x1.5: with x2.5 the four stacked bidirectional recurrences were chaotic (one input moved "
         "the output by 2.5e-5 under float32-rounding-level input noise).")

    # ---- Conv1D & pooling (tf_keras, functional) --------------------------------
    fresh("tk")
    m = tk_fun((40, 3), [
        tk.layers.Conv1D(8, 5, padding="valid", activation="relu"),
        tk.layers.Conv1D(8, 4, padding="same", strides=2, activation="tanh"),
        tk.layers.MaxPooling1D(2),
        tk.layers.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="elu"),
        tk.layers.AveragePooling1D(2),
        tk.layers.Conv1D(6, 2, strides=2, activation="selu"),
        tk.layers.GlobalAveragePooling1D(),
        tk.layers.Dense(4, activation="softmax"),
    ])
    randomize(m, case_rng("conv_tfkeras_h5"))
    emit("conv_tfkeras_h5", "tk", "legacy-h5", m, Inputs("conv_tfkeras_h5", (40, 3)),
         ["InputLayer", "Conv1D", "padding=valid", "padding=same", "padding=causal", "strides>1",
          "dilation>1", "MaxPooling1D", "AveragePooling1D", "GlobalAveragePooling1D", "Dense", "relu",
          "tanh", "elu", "selu", "softmax", TK_FUN],
         "Conv1D kernel (k, in, out), cross-correlation. (40,3) -> Conv1D(8,5,valid,relu) (36,8) -> "
         "Conv1D(8,4,same,strides 2,tanh) (18,8) [same with even kernel: pad_total=max((out-1)*s+k-n,0), "
         "left=pad_total//2] -> MaxPooling1D(2) (9,8) -> Conv1D(6,3,causal,dilation 2,elu) (9,6) "
         "[left pad (k-1)*d] -> AveragePooling1D(2) (4,6) -> Conv1D(6,2,strides 2,valid,selu) (2,6) -> "
         "GlobalAveragePooling1D -> Dense(4, softmax).")

    # ---- Normalization + BatchNormalization (tf_keras, Sequential) --------------
    fresh("tk")
    norm = tk.layers.Normalization(axis=-1)
    loc = np.array([3.0, -2.0, 0.5, 10.0], np.float32)
    sc = np.array([2.0, 0.5, 1.0, 4.0], np.float32)
    norm.adapt(make_inputs("norm_bn_tfkeras_h5/adapt", (10, 4), 40, 0, loc, sc))
    m = tk_seq((10, 4), [
        norm,
        tk.layers.Conv1D(6, 3, padding="same"),
        tk.layers.BatchNormalization(center=False),
        tk.layers.Activation("relu"),
        tk.layers.BatchNormalization(scale=False),
        tk.layers.GlobalMaxPooling1D(),
        tk.layers.Dense(8, activation="swish"),
        tk.layers.BatchNormalization(),
        tk.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("norm_bn_tfkeras_h5"))
    emit("norm_bn_tfkeras_h5", "tk", "legacy-h5", m, Inputs("norm_bn_tfkeras_h5", (10, 4), loc=loc, scale=sc),
         ["InputLayer", "Normalization", "Conv1D", "padding=same", "BatchNormalization",
          "BatchNormalization center=False", "BatchNormalization scale=False", "Activation", "relu",
          "GlobalMaxPooling1D", "Dense", "swish", "linear", "sigmoid", TK_SEQ],
         "Normalization adapted on data (per-channel mean/variance/count are real; weights "
         "mean (4,), variance (4,), count int64 scalar): y = (x-mean)/max(sqrt(var),1e-7). "
         "BatchNormalization(center=False): weights gamma, moving_mean, moving_variance (no beta). "
         "BatchNormalization(scale=False): beta, moving_mean, moving_variance (no gamma). Full BN: "
         "gamma, beta, moving_mean, moving_variance; epsilon 1e-3; random non-trivial moving stats. "
         "y = gamma*(x-mean)/sqrt(var+eps)+beta.")

    # ---- shape layers (tf_keras, Sequential) -----------------------------------
    fresh("tk")
    m = tk_seq((48,), [
        tk.layers.Reshape((12, 4)),
        tk.layers.Permute((2, 1)),
        tk.layers.TimeDistributed(tk.layers.Dense(5, activation="tanh")),
        tk.layers.GaussianNoise(0.3),
        tk.layers.SpatialDropout1D(0.3),
        tk.layers.Dropout(0.2),
        tk.layers.Flatten(),
        tk.layers.Dense(6),
        tk.layers.Activation("hard_sigmoid"),
        tk.layers.Dense(3),
        tk.layers.Activation("softmax"),
    ])
    randomize(m, case_rng("shapes_tfkeras_h5"))
    emit("shapes_tfkeras_h5", "tk", "legacy-h5", m, Inputs("shapes_tfkeras_h5", (48,)),
         ["InputLayer", "Reshape", "Permute", "TimeDistributed", "TimeDistributed(Dense)", "Dense",
          "tanh", "GaussianNoise", "SpatialDropout1D", "Dropout", "Flatten", "Activation",
          "hard_sigmoid", "hard_sigmoid (tf_keras: clip(0.2x+0.5))", "linear", "softmax", TK_SEQ],
         "48 -> Reshape((12,4)) -> Permute((2,1)) (4,12) -> TimeDistributed(Dense(5,tanh)) (4,5) -> "
         "GaussianNoise/SpatialDropout1D/Dropout (identity at inference) -> Flatten (20) -> Dense(6) -> "
         "Activation(hard_sigmoid, tf_keras formula clip(0.2x+0.5,0,1)) -> Dense(3) -> "
         "Activation(softmax). TimeDistributed weights are stored as time_distributed/kernel:0, bias:0.")

    # ---- activations (tf_keras, functional) ------------------------------------
    fresh("tk")
    acts = ["linear", "selu", "elu", "softsign", "swish", "gelu", "softplus", "hard_sigmoid",
            "tanh", "exponential", "relu"]
    layers = []
    for a in acts:
        layers.append(tk.layers.Dense(12, activation=a))
        if a == "hard_sigmoid":
            layers.append(tk.layers.Dense(12))
            layers.append(tk.layers.Activation("tanh"))
    layers += [tk.layers.Dense(6), tk.layers.Activation("sigmoid"), tk.layers.Dense(4),
               tk.layers.Activation("softmax")]
    m = tk_fun((10,), layers)
    randomize(m, case_rng("activations_tfkeras_h5"), scale=1.6)
    emit("activations_tfkeras_h5", "tk", "legacy-h5", m, Inputs("activations_tfkeras_h5", (10,)),
         ["InputLayer", "Dense", "Activation"] + acts + ["sigmoid", "softmax", "gelu exact (erf)",
                                                          "hard_sigmoid (tf_keras: clip(0.2x+0.5))", TK_FUN],
         "Chain of Dense(12) layers, one per activation: " + ", ".join(acts) + ", then "
         "Activation(sigmoid), Activation(softmax). tf_keras 'gelu' is the exact erf form "
         "(approximate=False is the default); swish = x*sigmoid(x); selu alpha 1.6732632, scale "
         "1.0507010; elu alpha 1.0; hard_sigmoid clip(0.2x+0.5,0,1). Weights x1.6.")

    # ---- activations (Keras 3, Sequential, legacy h5) --------------------------
    fresh("k3")
    acts3 = ["silu", "gelu", "hard_sigmoid", "elu", "selu", "softplus", "softsign", "exponential",
             "relu", "tanh", "linear"]
    layers = []
    for i, a in enumerate(acts3):
        if i % 2 == 0:
            layers.append(keras.layers.Dense(12, activation=a))
        else:
            layers += [keras.layers.Dense(12), keras.layers.Activation(a)]
    layers += [keras.layers.Dense(4), keras.layers.Activation("sigmoid"), keras.layers.Dense(3, activation="softmax")]
    m = k3_seq((10,), layers)
    randomize(m, case_rng("activations_keras3_h5"), scale=1.6)
    emit("activations_keras3_h5", "k3", "legacy-h5", m, Inputs("activations_keras3_h5", (10,)),
         ["InputLayer", "Dense", "Activation"] + acts3 + ["sigmoid", "softmax", "swish (Keras 3 spells it silu)",
                                                           "gelu exact (erf)", "hard_sigmoid (Keras 3: clip(x/6+0.5))", K3_SEQ],
         "Keras 3 activations, alternately as Dense(activation=...) and as Activation layers: "
         + ", ".join(acts3) + ", then sigmoid, softmax. Keras 3 serializes swish as 'silu' (same "
         "function); gelu default approximate=False (erf); hard_sigmoid is relu6(x+3)/6 = "
         "clip(x/6+0.5,0,1), DIFFERENT from Keras 2's clip(0.2x+0.5). Weights x1.6.")

    # ---- RNNs in Keras 3 (functional, legacy h5) -------------------------------
    fresh("k3")
    m = k3_fun((20, 5), [
        keras.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        keras.layers.GRU(10, return_sequences=True, reset_after=False, go_backwards=True),
        keras.layers.GRU(8, return_sequences=True, recurrent_activation="hard_sigmoid"),
        keras.layers.SimpleRNN(6, return_sequences=True, go_backwards=True),
        keras.layers.LSTM(6, go_backwards=True),
        keras.layers.Dense(2, activation="softmax"),
    ])
    randomize(m, case_rng("rnn_keras3_h5"))
    emit("rnn_keras3_h5", "k3", "legacy-h5", m, Inputs("rnn_keras3_h5", (20, 5)),
         ["InputLayer", "LSTM", "GRU", "SimpleRNN", "return_sequences", "go_backwards",
          "reset_after=true", "reset_after=false", "GRU bias (3u) and (2,3u)",
          "recurrent_activation=hard_sigmoid (Keras 3: clip(x/6+0.5))", "Dense", "softmax", K3_FUN],
         "Keras 3 recurrent layers: LSTM(12, rs, recurrent hard_sigmoid = Keras 3 formula "
         "clip(x/6+0.5)) -> GRU(10, rs, reset_after=False, go_backwards) -> GRU(8, rs, "
         "reset_after=True, hard_sigmoid) -> SimpleRNN(6, rs, go_backwards) -> LSTM(6, "
         "go_backwards) -> Dense(2, softmax). go_backwards + return_sequences keeps the "
         "processing (reversed-time) order, as in Keras 2. Random weights x2.5.")

    # ---- Bidirectional in Keras 3 (weights-only .weights.h5 + JSON) -----------
    fresh("k3")
    m = k3_seq((10, 4), [
        keras.layers.Bidirectional(keras.layers.LSTM(6, return_sequences=True), merge_mode="concat"),
        keras.layers.Bidirectional(keras.layers.GRU(5, return_sequences=True, reset_after=False), merge_mode="sum"),
        keras.layers.Bidirectional(keras.layers.SimpleRNN(4, return_sequences=True), merge_mode="mul"),
        keras.layers.Bidirectional(keras.layers.GRU(4), merge_mode="ave"),
        keras.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("bidir_keras3_weights"))
    emit("bidir_keras3_weights", "k3", "keras3-weights-h5", m, Inputs("bidir_keras3_weights", (10, 4)),
         ["keras3-weights-h5", "InputLayer", "Bidirectional", "merge_mode=concat", "merge_mode=sum",
          "merge_mode=mul", "merge_mode=ave", "LSTM", "GRU", "reset_after=false", "reset_after=true",
          "SimpleRNN", "return_sequences", "Dense", "sigmoid", K3_SEQ],
         "model.weights.h5 (Keras 3 save_weights) + model.json = keras.saving.serialize_keras_object"
         "(model) ({module, class_name, config, registered_name, build_config?}). Weight paths: "
         "layers/bidirectional/forward_layer/cell/vars/0..2 and .../backward_layer/cell/vars/0..2; "
         "the 2nd..4th Bidirectional are layers/bidirectional_1.._3. Group names come from the "
         "snake_case CLASS name + per-class counter in model.layers order, not from layer names.")

    # ---- Dense stack, Keras 3 archive with >= 11 layers --------------------
    fresh("k3")
    layers = []
    acts_stack = ["relu", "silu", "gelu", "tanh", "elu", "selu", "softsign", "softplus", "hard_sigmoid",
                  "linear", "relu", "tanh"]
    for i, a in enumerate(acts_stack):
        layers.append(keras.layers.Dense(16 - i // 2, activation=a))
        if i == 3:
            layers.append(keras.layers.Dropout(0.3))
        if i == 6:
            layers.append(keras.layers.BatchNormalization())
    layers.append(keras.layers.Dense(3))
    layers.append(keras.layers.Activation("softmax"))
    m = k3_fun((20,), layers)
    randomize(m, case_rng("dense_stack_keras3_keras"), scale=1.8)
    emit("dense_stack_keras3_keras", "k3", "keras-archive", m, Inputs("dense_stack_keras3_keras", (20,)),
         ["keras-archive", ">=11 layers of one class (dense_10 sorts before dense_2)", "InputLayer",
          "Dense", "Dropout", "BatchNormalization", "Activation", "softmax"] + sorted(set(acts_stack)) + [K3_FUN],
         "13 Dense layers -> weight groups layers/dense, layers/dense_1 ... layers/dense_12 in the "
         "archive's model.weights.h5; HDF5 lists them alphabetically (dense, dense_1, dense_10, "
         "dense_11, dense_12, dense_2, ...): map config layer i of class C to the i-th C group by "
         "NUMERIC suffix. Functional config: inbound_nodes are Keras 3 dicts "
         "{args: [{class_name: __keras_tensor__, config: {keras_history: [layer, node, tensor]}}], kwargs}.")

    # ---- Conv/Normalization/BN in a Keras 3 archive (Sequential) ----------------
    fresh("k3")
    norm = keras.layers.Normalization(axis=-1)
    loc = np.array([-1.0, 4.0, 0.2], np.float32)
    sc = np.array([3.0, 0.3, 1.5], np.float32)
    norm.adapt(make_inputs("conv_keras3_keras/adapt", (32, 3), 40, 0, loc, sc))
    m = k3_seq((32, 3), [
        norm,
        keras.layers.Conv1D(8, 3, padding="causal", dilation_rate=2),
        keras.layers.BatchNormalization(center=False),
        keras.layers.Activation("relu"),
        keras.layers.MaxPooling1D(3, strides=2),
        keras.layers.Conv1D(8, 4, padding="same", strides=2, activation="gelu"),
        keras.layers.BatchNormalization(scale=False),
        keras.layers.AveragePooling1D(2),
        keras.layers.Conv1D(5, 3, padding="valid", activation="silu"),
        keras.layers.GlobalMaxPooling1D(),
        keras.layers.Dense(3, activation="softmax"),
    ])
    randomize(m, case_rng("conv_keras3_keras"))
    emit("conv_keras3_keras", "k3", "keras-archive", m, Inputs("conv_keras3_keras", (32, 3), loc=loc, scale=sc),
         ["keras-archive", "InputLayer", "Normalization", "Conv1D", "padding=causal", "padding=same",
          "padding=valid", "strides>1", "dilation>1", "BatchNormalization", "BatchNormalization center=False",
          "BatchNormalization scale=False", "Activation", "relu", "MaxPooling1D", "pool strides != pool size",
          "AveragePooling1D", "GlobalMaxPooling1D", "gelu", "silu", "Dense", "softmax", K3_SEQ],
         "(32,3) -> Normalization (adapted; vars mean, variance, count) -> Conv1D(8,3,causal,dilation 2) "
         "-> BN(center=False: vars gamma, moving_mean, moving_variance) -> relu -> MaxPooling1D(3, "
         "strides 2) (15,8) -> Conv1D(8,4,same,strides 2,gelu) (8,8) -> BN(scale=False: beta, "
         "moving_mean, moving_variance) -> AveragePooling1D(2) (4,8) -> Conv1D(5,3,valid,silu) (2,5) "
         "-> GlobalMaxPooling1D -> Dense(3, softmax).")

    # ---- shapes in Keras 3 (functional, legacy h5) ------------------------------
    fresh("k3")
    m = k3_fun((60,), [
        keras.layers.Reshape((15, 4)),
        keras.layers.Permute((2, 1)),
        keras.layers.TimeDistributed(keras.layers.Dense(6, activation="gelu")),
        keras.layers.SpatialDropout1D(0.2),
        keras.layers.GaussianNoise(0.5),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(5, activation="hard_sigmoid"),
        keras.layers.Dense(2),
    ])
    randomize(m, case_rng("shapes_keras3_h5"))
    emit("shapes_keras3_h5", "k3", "legacy-h5", m, Inputs("shapes_keras3_h5", (60,)),
         ["InputLayer", "Reshape", "Permute", "TimeDistributed", "TimeDistributed(Dense)", "gelu",
          "SpatialDropout1D", "GaussianNoise", "Flatten", "Dropout", "Dense",
          "hard_sigmoid (Keras 3: clip(x/6+0.5))", "linear", K3_FUN],
         "60 -> Reshape((15,4)) -> Permute((2,1)) (4,15) -> TimeDistributed(Dense(6, gelu)) -> "
         "SpatialDropout1D, GaussianNoise (identity at inference) -> Flatten (24) -> Dropout -> "
         "Dense(5, hard_sigmoid Keras 3 formula) -> Dense(2) linear output.")

    # ---- tf_keras weights-only h5 + to_json ------------------------------------
    fresh("tk")
    m = tk_fun((30, 4), [
        tk.layers.Conv1D(8, 3, padding="causal", activation="relu"),
        tk.layers.GRU(8, return_sequences=True),
        tk.layers.TimeDistributed(tk.layers.Dense(4, activation="elu")),
        tk.layers.LSTM(6),
        tk.layers.Dense(1),
    ])
    randomize(m, case_rng("mixed_tfkeras_weights"), scale=2.0)
    emit("mixed_tfkeras_weights", "tk", "legacy-weights-h5", m, Inputs("mixed_tfkeras_weights", (30, 4)),
         ["legacy-weights-h5", "model.to_json()", "InputLayer", "Conv1D", "padding=causal", "GRU",
          "reset_after=true", "return_sequences", "TimeDistributed", "TimeDistributed(Dense)", "elu",
          "LSTM", "Dense", "linear", "relu", TK_FUN],
         "tf_keras model.save_weights('model_weights.h5'): layer_names/backend/keras_version are "
         "attributes of the ROOT group (no model_weights group, no model_config); the architecture "
         "is model.json = model.to_json() ({class_name, config, keras_version, backend}). "
         "Random weights x2.0.")

    # ---- layer_names split into layer_names0, 1, ... ---------------------------
    # h5py stores the list as ONE fixed-length S<longest> array, so a single long
    # name among 69 layers is enough to pass HDF5_OBJECT_HEADER_LIMIT (64,512 B).
    fresh("tk")
    long_name = "wide_" + "".join("%03d" % (j % 1000) for j in range(332))[:995]
    layers = []
    for i in range(34):
        layers.append(tk.layers.Dense(8, activation="tanh", name=long_name if i == 17 else "dense%02d" % i))
        layers.append(tk.layers.Activation("linear", name="act%02d" % i))
    layers.append(tk.layers.Dense(2, name="out"))
    m = tk_seq((8,), layers)
    randomize(m, case_rng("many_layers_tfkeras_h5"), scale=1.2)
    emit("many_layers_tfkeras_h5", "tk", "legacy-h5", m, Inputs("many_layers_tfkeras_h5", (8,)),
         ["layer_names split (layer_names0, layer_names1, ...)", "fixed-length strings (chunks)",
          "NULL-padded short names", "long layer name", "InputLayer", "Dense", "tanh", "Activation",
          "linear", TK_SEQ],
         "69 layers (34 x Dense(8, tanh) + Activation(linear), then Dense(2)); one Dense is named "
         "with 1,000 characters. np.asarray(layer names) is an S1000 array of 69 x 1000 = 69,000 "
         "bytes > HDF5_OBJECT_HEADER_LIMIT (64,512), so tf_keras's save_attributes_to_hdf5_group "
         "wrote np.array_split chunks layer_names0 (35 names) and layer_names1 (34 names), "
         "fixed-length NULL-padded S1000 arrays, and NO layer_names attribute: read layer_names<k> "
         "for k = 0, 1, ... until missing and concatenate. (Unsplit, tf_keras/Keras 3 write "
         "layer_names as variable-length strings.) weight_names stay unsplit.")


    # ---- streamable recurrent stacks (forward only) ------------------------------
    # Everything the Swift StreamingScorer runs step by step: per-step layers
    # (Normalization), forward recurrent layers (return_sequences chains with
    # Dropout between them) ending in one return_sequences=False layer, then a
    # Dense head.  Nothing runs backwards in time.
    fresh("k3")
    norm = keras.layers.Normalization(axis=-1)
    loc = np.array([0.5, -3.0, 9.81, 0.0, 2.0], np.float32)
    sc = np.array([1.5, 0.4, 2.0, 3.0, 0.8], np.float32)
    norm.adapt(make_inputs("stream_gru_keras3_h5/adapt", (16, 5), 40, 0, loc, sc))
    m = k3_seq((16, 5), [
        norm,
        keras.layers.GRU(10, return_sequences=True),
        keras.layers.Dropout(0.3),
        keras.layers.SimpleRNN(8),
        keras.layers.Dense(4, activation="softmax"),
    ])
    randomize(m, case_rng("stream_gru_keras3_h5"), scale=1.6)
    emit("stream_gru_keras3_h5", "k3", "legacy-h5", m, Inputs("stream_gru_keras3_h5", (16, 5), loc=loc, scale=sc),
         ["streamable (forward recurrent stack, step by step)", "InputLayer", "Normalization", "GRU",
          "reset_after=true", "return_sequences", "Dropout", "SimpleRNN", "tanh", "Dense", "softmax", K3_SEQ],
         "Streamable: (16,5) -> Normalization (adapted on data with per-channel mean/std "
         "%s / %s; per-step affine) -> GRU(10, return_sequences, Keras 3 default reset_after=True, "
         "bias (2,30), recurrent sigmoid) -> Dropout(0.3) -> SimpleRNN(8, tanh, last output) -> "
         "Dense(4, softmax). No go_backwards, no Bidirectional: a step-at-a-time scorer fed x[0..15] "
         "must reproduce the outputs. Inputs drawn from the adapted distribution (3 rows with 5x "
         "the spread). Keras 3 legacy h5 model.save('model.h5'). Random weights x1.6."
         % (loc.tolist(), sc.tolist()))

    fresh("tk")
    m = tk_seq((18, 4), [
        tk.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        tk.layers.GRU(8, reset_after=False),
        tk.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("stream_lstm_gru_tfkeras_h5"), scale=2.0)
    emit("stream_lstm_gru_tfkeras_h5", "tk", "legacy-h5", m, Inputs("stream_lstm_gru_tfkeras_h5", (18, 4)),
         ["streamable (forward recurrent stack, step by step)", "InputLayer", "LSTM", "return_sequences",
          "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))", "GRU", "reset_after=false",
          "Dense", "sigmoid", TK_SEQ],
         "Streamable: (18,4) -> LSTM(12, return_sequences, recurrent_activation hard_sigmoid = "
         "clip(0.2x+0.5,0,1)) -> GRU(8, reset_after=False: bias (24), reset gate applied to h before "
         "the recurrent kernel, last output) -> Dense(2, sigmoid). Forward only: a step-at-a-time "
         "scorer fed x[0..17] must reproduce the outputs. Random weights x2.0.")

    # ---- Keras 3 archive: weight groups follow class + counter, not names ------
    # Layer names are chosen so that looking groups up BY NAME picks another
    # layer's weights of the same shape: the first Dense is named "dense_1"
    # (its group is layers/dense), the second "dense" (group layers/dense_1);
    # the first Conv1D is named "conv1d_1" (group layers/conv1d), the second
    # "features" (group layers/conv1d_1); the BatchNormalization is named
    # "dense_2", which is the group of the third Dense (named "head").
    fresh("k3")
    m = k3_fun((20, 6), [
        keras.layers.Conv1D(6, 3, padding="same", activation="tanh", name="conv1d_1"),
        keras.layers.Conv1D(6, 3, padding="same", activation="relu", name="features"),
        keras.layers.GlobalAveragePooling1D(name="pool"),
        keras.layers.BatchNormalization(name="dense_2"),
        keras.layers.Dense(6, activation="tanh", name="dense_1"),
        keras.layers.Dense(6, activation="elu", name="dense"),
        keras.layers.Dense(3, activation="softmax", name="head"),
    ])
    randomize(m, case_rng("renamed_keras3_keras"), scale=2.0)
    emit("renamed_keras3_keras", "k3", "keras-archive", m, Inputs("renamed_keras3_keras", (20, 6)),
         ["keras-archive", "weight groups by class + counter, not layer name", "custom layer names",
          "InputLayer", "Conv1D", "padding=same", "GlobalAveragePooling1D", "BatchNormalization", "Dense",
          "tanh", "relu", "elu", "softmax", K3_FUN],
         "Layer names do not match the weight groups. Config order and names: conv1d_1 (Conv1D 6->6), "
         "features (Conv1D 6->6), pool, dense_2 (BatchNormalization), dense_1 (Dense 6->6), dense "
         "(Dense 6->6), head (Dense 6->3). model.weights.h5 groups are named from the snake_case "
         "CLASS + per-class counter in model.layers order: layers/conv1d = layer 'conv1d_1', "
         "layers/conv1d_1 = 'features', layers/batch_normalization = 'dense_2', layers/dense = "
         "'dense_1', layers/dense_1 = 'dense', layers/dense_2 = 'head'. Looking groups up by layer "
         "name finds same-shaped wrong weights for both Conv1Ds and the first two Dense layers.")


# --------------------------------------------------------------------------
# bad files
# --------------------------------------------------------------------------
def _set_str_attr_like(attrs, key, value):
    """Replace a string attribute keeping its HDF5 string type."""
    dt = attrs.get_id(key).dtype
    del attrs[key]
    attrs.create(key, value, dtype=dt)


def build_bad():
    bad = OUT / "bad"
    if bad.exists():
        shutil.rmtree(bad)
    bad.mkdir(parents=True)
    entries = []

    def add(name, file, expect, notes):
        entries.append({"name": name, "file": file, "config": None, "expect": expect, "notes": notes})

    fresh("tk")
    base = tk_seq((90,), [tk.layers.Reshape((10, 9)), tk.layers.LSTM(50), tk.layers.Dense(1, activation="sigmoid")])
    randomize(base, case_rng("bad/base"))
    tmp = Path(tempfile.mkdtemp())
    base_path = tmp / "base.h5"
    base.save(str(base_path), save_format="h5", include_optimizer=False)
    data = base_path.read_bytes()

    (bad / "not_hdf5.h5").write_text("This is a text file renamed to .h5.\nmodel_config = {}\n")
    add("not_hdf5", "not_hdf5.h5", "not-hdf5", "Plain text with an .h5 name: no HDF5 signature.")

    (bad / "truncated.h5").write_bytes(data[: len(data) // 2])
    add("truncated", "truncated.h5", "truncated",
        "A valid tf_keras model.h5 (Reshape->LSTM(50)->Dense) cut to half its size (%d of %d bytes); "
        "the superblock's end-of-file address is past the real end." % (len(data) // 2, len(data)))

    p = bad / "missing_dataset.h5"
    shutil.copy(base_path, p)
    with h5py.File(p, "r+") as f:
        del f["model_weights/lstm/lstm/lstm_cell/recurrent_kernel:0"]
    add("missing_dataset", "missing_dataset.h5", "missing-dataset",
        "weight_names of layer 'lstm' still lists lstm/lstm_cell/recurrent_kernel:0 but the dataset "
        "was deleted with h5py.")

    p = bad / "shape_mismatch.h5"
    shutil.copy(base_path, p)
    with h5py.File(p, "r+") as f:
        key = "model_weights/lstm/lstm/lstm_cell/kernel:0"
        del f[key]
        f.create_dataset(key, data=np.zeros((9, 160), np.float32))
    add("shape_mismatch", "shape_mismatch.h5", "shape-mismatch",
        "Config says LSTM units=50 (kernel must be (9, 200)); the stored kernel is (9, 160).")

    fresh("tk")
    m = tk_seq((10, 9), [tk.layers.LSTM(8, return_sequences=True), tk.layers.LayerNormalization(),
                         tk.layers.GlobalAveragePooling1D(), tk.layers.Dense(1)])
    m.save(str(bad / "unsupported_layer.h5"), save_format="h5", include_optimizer=False)
    add("unsupported_layer", "unsupported_layer.h5", "unsupported-layer",
        "Valid tf_keras model with a LayerNormalization layer, which the engine does not implement.")

    p = bad / "unknown_activation.h5"
    shutil.copy(base_path, p)
    with h5py.File(p, "r+") as f:
        cfg = json.loads(f.attrs["model_config"])
        dense = [lay for lay in cfg["config"]["layers"] if lay["class_name"] == "Dense"][0]
        dense["config"]["activation"] = "mish_custom"
        _set_str_attr_like(f.attrs, "model_config", json.dumps(cfg))
    add("unknown_activation", "unknown_activation.h5", "unsupported-activation",
        "Base model with the Dense layer's activation edited to \"mish_custom\" in model_config.")

    p = bad / "bad_config.h5"
    shutil.copy(base_path, p)
    with h5py.File(p, "r+") as f:
        _set_str_attr_like(f.attrs, "model_config", '{"class_name": "Sequential", "config": {"name": "seq", "layers": [')
    add("bad_config", "bad_config.h5", "bad-config",
        "model_config attribute is not valid JSON (cut off after '\"layers\": [').")

    shutil.rmtree(tmp)
    # Keras itself must refuse every file except the one it does support.
    for e in entries:
        fresh("tk")
        try:
            tk.models.load_model(bad / e["file"], compile=False)
            refused = False
        except Exception:
            refused = True
        assert refused == (e["expect"] != "unsupported-layer"), (e["name"], refused)
    with open(bad / "bad.json", "w") as fh:
        json.dump(entries, fh, indent=1)
        fh.write("\n")
    print("  bad/: %d files" % len(entries), flush=True)


# --------------------------------------------------------------------------
# Keras 2.3.1 stage (subprocess in .venv-k231)
# --------------------------------------------------------------------------
def run_k231(seed_w, seed_x):
    work = Path(tempfile.mkdtemp())
    np.savez(work / "seed_weights.npz", **{"w%d" % i: a for i, a in enumerate(seed_w)})
    np.save(work / "seed_inputs.npy", seed_x)
    env = dict(os.environ)
    env["KERAS_BACKEND"] = "theano"
    env["THEANO_FLAGS"] = "cxx=,device=cpu,floatX=float32,blas.ldflags=,base_compiledir=%s" % (work / "theano")
    print("Keras 2.3.1 cases (Theano):", flush=True)
    subprocess.check_call([str(VENV_K231 / "bin" / "python"), str(HERE / "make_fixtures_k231.py"),
                           str(work), str(OUT)], env=env)
    entries = json.loads((work / "k231_cases.json").read_text())
    shutil.rmtree(work)
    for e in entries:
        e.pop("_model_type", None)
        sens_theano, replaced = e.pop("_sensitivity"), e.pop("_replaced")
        # Cross-check: tf_keras loads the Keras 2.3.1 file and must agree, and
        # the inputs (conditioned with Keras 2.3.1 itself) must pass the
        # conditioning check in TensorFlow float32 too.
        fresh("tk")
        m = tk.models.load_model(OUT / e["model"], compile=False)
        x = read_csv(OUT / e["inputs"]).reshape([-1] + e["input_shape"])
        y_ref = read_csv(OUT / e["outputs"])
        y = run(m, x).reshape(len(x), -1)
        diff = float(np.max(np.abs(y - y_ref)))
        sens = float(conditioning.sensitivity(lambda b: run(m, b), x).max())
        print("  %-28s tf_keras vs Keras 2.3.1/Theano max|diff| = %.2e, sens %.1e (Theano %.1e)"
              % (e["name"], diff, sens, sens_theano), flush=True)
        assert diff < 1e-5, (e["name"], diff)
        assert sens < conditioning.LIMIT, (e["name"], sens)
        SENS[e["name"]] = (max(sens, sens_theano), replaced)
    return entries


def keep_existing_k231():
    old = OUT / "cases.json"
    if not old.exists():
        return []
    return [e for e in json.loads(old.read_text()) if "_k231" in e["name"]]


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------
REQUIRED = [
    "InputLayer", "Reshape", "Flatten", "Permute", "Dropout", "GaussianNoise", "SpatialDropout1D",
    "Dense", "Activation", "LSTM", "GRU", "SimpleRNN", "Bidirectional", "TimeDistributed(Dense)",
    "Conv1D", "padding=valid", "padding=same", "padding=causal", "strides>1", "dilation>1",
    "MaxPooling1D", "AveragePooling1D", "GlobalAveragePooling1D", "GlobalMaxPooling1D",
    "BatchNormalization center=False", "BatchNormalization scale=False", "Normalization",
    "return_sequences", "go_backwards", "reset_after=true", "reset_after=false",
    "merge_mode=concat", "merge_mode=sum", "merge_mode=mul", "merge_mode=ave",
    "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))",
    "recurrent_activation=hard_sigmoid (Keras 3: clip(x/6+0.5))",
    "linear", "relu", "sigmoid", "tanh", "softmax", "elu", "selu", "softplus", "softsign", "swish",
    "silu", "gelu", "exponential", "hard_sigmoid",
    "Sequential(list config)", TK_SEQ, K3_SEQ, TK_FUN, K3_FUN,
    "layer_names split (layer_names0, layer_names1, ...)", "h5py2-fixed-length-strings",
    "trained-weights", "streamable (forward recurrent stack, step by step)",
    "weight groups by class + counter, not layer name",
]


def check_coverage(cases):
    have = set()
    for c in cases:
        have.update(c["covers"])
    missing = [r for r in REQUIRED if r not in have]
    assert not missing, missing
    fmts = {c["format"] for c in cases}
    assert fmts == {"legacy-h5", "keras-archive", "keras3-weights-h5", "legacy-weights-h5"}, fmts
    assert len(cases) >= 25, len(cases)


def inspect_files(cases):
    """Facts about the written files that the cases promise."""
    by = {c["name"]: c for c in cases}
    with h5py.File(OUT / by["many_layers_tfkeras_h5"]["model"], "r") as f:
        keys = sorted(f["model_weights"].attrs.keys())
        assert "layer_names" not in keys and "layer_names0" in keys and "layer_names1" in keys, keys
    with h5py.File(OUT / "seed_k231_h5/model.h5", "r") as f:
        t = f["model_weights"].attrs.get_id("layer_names").get_type()
        assert t.get_class() == h5py.h5t.STRING and not t.is_variable_str()
        assert f["model_weights/dropout_1"].attrs["weight_names"].dtype == np.float64
    import zipfile
    for c in cases:
        if c["format"] == "keras-archive":
            z = zipfile.ZipFile(OUT / c["model"])
            names = sorted(z.namelist())
            assert names == ["config.json", "metadata.json", "model.weights.h5"], names
    with zipfile.ZipFile(OUT / "dense_stack_keras3_keras/model.keras") as z:
        with tempfile.TemporaryDirectory() as td:
            z.extract("model.weights.h5", td)
            with h5py.File(Path(td) / "model.weights.h5", "r") as f:
                groups = list(f["layers"].keys())
                assert "dense_10" in groups and groups.index("dense_10") < groups.index("dense_2"), groups
    with zipfile.ZipFile(OUT / "renamed_keras3_keras/model.keras") as z:
        cfg = json.loads(z.read("config.json"))
        names = [(lay["class_name"], lay["config"]["name"]) for lay in cfg["config"]["layers"]]
        assert names == [("InputLayer", "input_layer"), ("Conv1D", "conv1d_1"), ("Conv1D", "features"),
                         ("GlobalAveragePooling1D", "pool"), ("BatchNormalization", "dense_2"),
                         ("Dense", "dense_1"), ("Dense", "dense"), ("Dense", "head")], names
        with tempfile.TemporaryDirectory() as td:
            z.extract("model.weights.h5", td)
            with h5py.File(Path(td) / "model.weights.h5", "r") as f:
                groups = sorted(k for k in f["layers"].keys() if len(f["layers"][k].get("vars", {})))
                assert groups == ["batch_normalization", "conv1d", "conv1d_1", "dense", "dense_1",
                                  "dense_2"], groups
                # the group of layer "dense_1" is layers/dense: compare with the loaded layer
                fresh("k3")
                m = keras.models.load_model(OUT / "renamed_keras3_keras/model.keras", compile=False)
                for layer_name, group in [("conv1d_1", "conv1d"), ("features", "conv1d_1"),
                                          ("dense_1", "dense"), ("dense", "dense_1"), ("head", "dense_2"),
                                          ("dense_2", "batch_normalization")]:
                    want = [np.array(v) for v in m.get_layer(layer_name).weights]
                    got = [f["layers/%s/vars/%d" % (group, i)][()] for i in range(len(want))]
                    assert all(np.array_equal(a, b) for a, b in zip(want, got)), (layer_name, group)
                    if layer_name in ("conv1d_1", "dense_1", "dense"):
                        # the group NAMED like the layer holds another layer's same-shaped kernel
                        other = f["layers/%s/vars/0" % layer_name][()]
                        assert other.shape == want[0].shape and not np.array_equal(other, want[0]), layer_name


def verify(cases):
    print("verify: reloading every model with the Keras that wrote it ...", flush=True)
    worst = 0.0
    n = 0
    for c in cases:
        if "_k231" in c["name"]:
            # Keras 2.3.1 reload below; here tf_keras must agree with it to 1e-5.
            fresh("tk")
            m = tk.models.load_model(OUT / c["model"], compile=False)
            x = read_csv(OUT / c["inputs"]).reshape([-1] + c["input_shape"])
            diff = float(np.max(np.abs(run(m, x).reshape(len(x), -1) - read_csv(OUT / c["outputs"]))))
            assert diff < 1e-5, (c["name"], diff)
            if c["name"] not in SENS:
                SENS[c["name"]] = (float(conditioning.sensitivity(lambda b: run(m, b), x).max()), [])
            assert SENS[c["name"]][0] < conditioning.LIMIT, (c["name"], SENS[c["name"]])
            continue
        n += 1
        fw = "tk" if c["writer"].startswith("tf_keras") else "k3"
        d = OUT / c["name"]
        fresh(fw)
        m = loader_for(fw, c["format"], d)()
        x = read_csv(OUT / c["inputs"]).reshape([-1] + c["input_shape"])
        y_ref = read_csv(OUT / c["outputs"])
        y = run(m, x).reshape(len(x), -1)
        diff = float(np.max(np.abs(y - y_ref)))
        worst = max(worst, diff)
        assert diff == 0.0, (c["name"], diff)
        assert 6 <= len(x) <= 10
        if c["name"] not in SENS:       # --verify-only: measure it on the file
            SENS[c["name"]] = (float(conditioning.sensitivity(lambda b: run(m, b), x).max()), [])
        assert SENS[c["name"]][0] < conditioning.LIMIT, (c["name"], SENS[c["name"]])
    print("verify: %d tf_keras/Keras 3 models reproduce outputs.csv exactly (max |diff| %.1e)" % (n, worst),
          flush=True)
    if (VENV_K231 / "bin" / "python").exists():
        with tempfile.TemporaryDirectory() as td:
            env = dict(os.environ, KERAS_BACKEND="theano",
                       THEANO_FLAGS="cxx=,device=cpu,floatX=float32,blas.ldflags=,base_compiledir=%s" % td)
            subprocess.check_call([str(VENV_K231 / "bin" / "python"), str(HERE / "make_fixtures_k231.py"),
                                   "--verify", str(OUT)], env=env)
    else:
        print("verify: .venv-k231 missing, Keras 2.3.1 cases checked with tf_keras only", flush=True)
    print_sensitivity(cases)


def print_sensitivity(cases):
    print("conditioning: worst |dy|/max(1,|y|) under %d random x(1+-%.0e) perturbations per row "
          "(limit %.0e):" % (conditioning.N_PERTURB, conditioning.REL, conditioning.LIMIT), flush=True)
    for c in cases:
        sens, replaced = SENS[c["name"]]
        print("  %-28s %.1e%s" % (c["name"], sens, ("  rows %s redrawn" % sorted(set(replaced))) if replaced else ""))


def fixture_size():
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    return total


# --------------------------------------------------------------------------
def main():
    args = sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    print("versions: %s" % json.dumps(VERSIONS), flush=True)
    if "--verify-only" in args:
        cases = json.loads((OUT / "cases.json").read_text())
        verify(cases)
        return
    seed_tk, seed_x = build_seed()
    seed_w = [np.array(a) for a in seed_tk.get_weights()]
    build_cases(seed_tk, seed_x)
    if "--skip-k231" in args:
        k231 = keep_existing_k231()
    else:
        k231 = run_k231(seed_w, seed_x)
    # order: seeds first, then the rest
    cases = CASES[:3] + k231 + CASES[3:]
    check_coverage(cases)
    with open(OUT / "cases.json", "w") as fh:
        json.dump(cases, fh, indent=1)
        fh.write("\n")
    build_bad()
    inspect_files(cases)
    verify(cases)
    print("%d cases, fixture tree %.0f KB" % (len(cases), fixture_size() / 1024.0), flush=True)
    for c in cases:
        print("  %-28s %-18s %s" % (c["name"], c["format"], c["writer"]))


if __name__ == "__main__":
    main()
