"""What make_fixtures.py and the case builders (cases/) share, inside .venv:
TensorFlow, tf_keras and Keras 3 set up for determinism, the random weights
and inputs, and `emit`, which saves a case, loads it back and writes its
folder and cases.json entry.

Import it only with make_fixtures.py's environment set (it imports
TensorFlow at once).
"""
import json
import shutil
import sys
import zlib
from pathlib import Path

import numpy as np
import h5py
from tools.keras_fixtures import conditioning
from tools.keras_fixtures.csvio import write_csv
import tensorflow as tf
import tf_keras as tk
import keras

tf.get_logger().setLevel("ERROR")
import logging  # noqa: E402
logging.getLogger("absl").setLevel(logging.ERROR)
import warnings  # noqa: E402
warnings.filterwarnings("ignore")

tf.config.experimental.enable_op_determinism()
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(2)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "Tests" / "Fixtures" / "keras"   # make_fixtures.py --out changes it

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
    print("  %-28s %-18s %-3s in%-12s out%-8s max|y|=%-8.3g sens=%.1e%s" % (
        name, fmt, fw, list(x.shape[1:]), list(y.shape[1:]), float(np.max(np.abs(y))), sens.max(),
        (" (rows %s redrawn)" % replaced) if replaced else ""), flush=True)
    return loaded


# --------------------------------------------------------------------------
# models from a list of layers, and how the cases name their config styles
# --------------------------------------------------------------------------
def tk_seq(shape, layers):
    return tk.Sequential([tk.layers.InputLayer(input_shape=shape)] + layers)


def k3_seq(shape, layers):
    return keras.Sequential([keras.Input(shape=shape)] + layers)


def functional(K, shape, layers):
    """A functional model of `layers` in a row, with tf_keras or Keras 3 (K)."""
    inp = K.Input(shape=shape)
    h = inp
    for layer in layers:
        h = layer(h)
    return K.Model(inp, h)


def tk_fun(shape, layers):
    return functional(tk, shape, layers)


def k3_fun(shape, layers):
    return functional(keras, shape, layers)


TK_SEQ = "Sequential(dict config, tf_keras: InputLayer entry + layers)"
K3_SEQ = "Sequential(dict config, Keras 3: InputLayer entry + layers)"
TK_FUN = "Functional(inbound_nodes nested lists)"
K3_FUN = "Functional(inbound_nodes dict args)"
