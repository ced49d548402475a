"""Keras 2.3.1 fixtures, run by make_fixtures.py inside .venv-k231.

Keras 2.3.1 (the version that wrote the original app's model.h5) is run for
real here, with the Theano 1.0.5 backend in pure-Python mode, because no
TensorFlow 1.x wheel exists for Python 3.11.  Its model code builds the
model, names the weights, writes model_config/training_config and the HDF5
groups, loads the file back and computes the outputs.

Two things of the file differ from what a TensorFlow-backend Keras 2.3.1 with
h5py 2.10 wrote (the real file's layout), and are made to match it:

1. Names.  Theano variables are named `lstm_1/kernel`; TensorFlow ones
   `lstm_1/kernel:0`.  `K.variable` is wrapped below to append the `:0`, so
   Keras itself writes `weight_names` and the dataset paths with it.
2. Strings.  h5py 2.10 turned the list of byte strings Keras passes for
   `layer_names`/`weight_names` into a fixed-length NULL-padded `S<n>` array
   (and an empty list into an empty float64 array); h5py 3 writes
   variable-length strings.  `h5py2_layout()` rewrites those attributes
   exactly as h5py 2.10 stored them; scalar attributes (model_config,
   keras_version, backend, training_config) are already variable-length
   ASCII, as in the real file.  `backend` is set to "tensorflow" (the only
   backend-dependent weights in Keras 2.3.1 are convolution kernels, which
   these models do not have).

Usage (normally only via make_fixtures.py):
    python make_fixtures_k231.py WORK_DIR OUT_DIR
    python make_fixtures_k231.py --verify OUT_DIR
WORK_DIR holds seed_weights.npz and seed_inputs.npy written by the main
script; the case entries are written to WORK_DIR/k231_cases.json.
"""
import collections
import collections.abc
import inspect
import json
import os
import sys
import zlib

# ---- Python 3.11 compatibility for Keras 2.3.1 / Theano 1.0.5 -------------
for _n in ("Iterable", "Mapping", "MutableMapping", "Sequence", "Callable"):
    if not hasattr(collections, _n):
        setattr(collections, _n, getattr(collections.abc, _n))
if not hasattr(inspect, "getargspec"):
    def _getargspec(f):
        s = inspect.getfullargspec(f)
        return s.args, s.varargs, s.varkw, s.defaults
    inspect.getargspec = _getargspec

os.environ.setdefault("KERAS_BACKEND", "theano")
os.environ.setdefault("THEANO_FLAGS", "cxx=,device=cpu,floatX=float32,blas.ldflags=")

import numpy as np  # noqa: E402
import h5py  # noqa: E402
# conditioning and csvio sit beside this script (run as a script in .venv-k231), on the path as its folder.
import conditioning  # noqa: E402
from csvio import write_csv  # noqa: E402
import keras  # noqa: E402
from keras import backend as K  # noqa: E402
from keras.utils import io_utils  # noqa: E402

assert keras.__version__ == "2.3.1", keras.__version__
assert K.backend() == "theano"

# TensorFlow-style variable names ("lstm_1/kernel:0").
_orig_variable = K.variable


def _tf_named_variable(value, dtype=None, name=None, constraint=None):
    v = _orig_variable(value, dtype=dtype, name=name, constraint=constraint)
    if v.name and not v.name.endswith(":0"):
        v.name = v.name + ":0"
    return v


K.variable = _tf_named_variable
import keras.backend.theano_backend as _tb  # noqa: E402
_tb.variable = _tf_named_variable

# h5py 3 returns variable-length string attributes as str; Keras 2.3.1
# expects bytes (h5py 2 behaviour) and calls .decode() on them.
_orig_getitem = io_utils.H5Dict.__getitem__


def _getitem_bytes(self, attr):
    val = _orig_getitem(self, attr)
    if isinstance(val, str):
        val = val.encode("utf-8")
    return val


io_utils.H5Dict.__getitem__ = _getitem_bytes

from keras.models import Model, Sequential, load_model  # noqa: E402
from keras.layers import (Input, Reshape, LSTM, GRU, SimpleRNN, Dropout,  # noqa: E402
                          Dense, Activation)


def reset_names():
    # Fresh 1-based layer names (lstm_1, dense_1, ...) for every model.
    if hasattr(K, "reset_uids"):
        K.reset_uids()
    from keras.backend import common  # noqa: F401
    try:
        K.clear_session()
    except Exception:
        pass


def _vlen_names(attrs, key):
    raw = attrs[key]
    return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in raw]


def _fixed(names):
    # What h5py 2.10 stored for Keras's list of byte strings.
    if not names:
        return np.asarray([])          # empty float64 array, as in 2.3.1 files
    return np.asarray([n.encode("utf-8") for n in names])   # dtype S<maxlen>


def h5py2_layout(path, sequential_list_config=False):
    with h5py.File(path, "r+") as f:
        mw = f["model_weights"]
        layer_names = _vlen_names(mw.attrs, "layer_names")
        del mw.attrs["layer_names"]
        mw.attrs["layer_names"] = _fixed(layer_names)
        for ln in layer_names:
            g = mw[ln]
            wn = _vlen_names(g.attrs, "weight_names") if g.attrs["weight_names"].size else []
            del g.attrs["weight_names"]
            g.attrs["weight_names"] = _fixed(wn)
        if "optimizer_weights" in f:
            og = f["optimizer_weights"]
            wn = _vlen_names(og.attrs, "weight_names")
            del og.attrs["weight_names"]
            og.attrs["weight_names"] = _fixed(wn)
        for g in (f, mw):
            g.attrs["backend"] = b"tensorflow"        # vlen ASCII, like Keras wrote it
        if sequential_list_config:
            cfg = json.loads(f.attrs["model_config"])
            assert cfg["class_name"] == "Sequential"
            cfg = {"class_name": "Sequential", "config": cfg["config"]["layers"]}
            f.attrs["model_config"] = json.dumps(cfg).encode("utf-8")


def rand_weights(model, rng, scale=2.5):
    for layer in model.layers:
        ws = layer.get_weights()
        if not ws:
            continue
        new = []
        for w, v in zip(ws, layer.weights):
            short = v.name.split("/")[-1].split(":")[0]
            if "bias" in short:
                new.append(rng.normal(0, 0.5, w.shape).astype("float32"))
            else:
                fan_in = int(np.prod(w.shape[:-1]))
                new.append((rng.normal(0, 1, w.shape) * scale / np.sqrt(fan_in)).astype("float32"))
        layer.set_weights(new)


def inputs_for(name, shape, n_normal=5, n_large=3):
    rng = np.random.RandomState(zlib.crc32(name.encode()) & 0x7FFFFFFF)
    a = rng.normal(0, 1, (n_normal,) + shape)
    b = rng.normal(0, 1, (n_large,) + shape) * 5.0
    return np.concatenate([a, b]).astype("float32")


def redrawer(name, shape, n_normal=5):
    """Replacement row i of the same kind as inputs_for's (N(0,1) or 5x)."""
    rng = np.random.RandomState(zlib.crc32((name + "/redraw").encode()) & 0x7FFFFFFF)

    def redraw(i):
        return (rng.normal(0, 1, shape) * (1.0 if i < n_normal else 5.0)).astype("float32")
    return redraw


def conditioned(name, loaded, x, redraw=None):
    """conditioning.condition with Keras 2.3.1's own predict of the reloaded file."""
    x, sens, replaced = conditioning.condition(
        name, lambda b: loaded.predict(b, batch_size=len(b)), x, redraw)
    print("  %-28s Keras 2.3.1 sensitivity %.1e%s" % (
        name, sens.max(), (" (rows %s redrawn)" % replaced) if replaced else ""), flush=True)
    return x, float(sens.max()), replaced


def finish(out_dir, name, model, x, covers, notes, compiled_optimizer=False):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.h5")
    if os.path.exists(path):
        os.remove(path)
    y_mem = model.predict(x, batch_size=len(x))
    model.save(path, include_optimizer=compiled_optimizer)
    return d, path, y_mem


def main():
    work, out_dir = sys.argv[1], sys.argv[2]
    # Keras 2.3.1's Theano dropout draws its RandomStreams seed from numpy's
    # global RNG when no seed is given: fix it so the optimizer state written
    # by the (learning-rate 0) training step is the same on every run.
    np.random.seed(2310)
    seed = np.load(os.path.join(work, "seed_weights.npz"))
    seed_w = [seed["w%d" % i] for i in range(len(seed.files))]
    seed_x = np.load(os.path.join(work, "seed_inputs.npy"))
    writer = "keras 2.3.1 (Theano 1.0.5 backend; TF-backend names and h5py 2.x string layout reproduced, see notes)"
    entries = []

    def record(name, path, x, y, covers, notes, model_type, sens, replaced):
        d = os.path.dirname(path)
        if replaced:
            notes += (" Input rows redrawn (same distribution) by the conditioning check: %s."
                      % ", ".join(str(i) for i in sorted(set(replaced))))
        write_csv(os.path.join(d, "inputs.csv"), x)
        write_csv(os.path.join(d, "outputs.csv"), y)
        entries.append({
            "name": name,
            "model": name + "/model.h5",
            "config": None,
            "format": "legacy-h5",
            "writer": writer,
            "input_shape": list(x.shape[1:]),
            "output_shape": list(y.shape[1:]),
            "inputs": name + "/inputs.csv",
            "outputs": name + "/outputs.csv",
            "covers": covers,
            "notes": notes,
            "_model_type": model_type,
            "_sensitivity": sens,
            "_replaced": replaced,
        })

    common_note = ("Written by real Keras 2.3.1 (Theano backend, Python 3.11 shims), "
                   "then h5py-2.10 attribute layout reproduced: layer_names/weight_names are "
                   "fixed-length NULL-padded S<n> arrays (longest without terminator), layers "
                   "without weights have an EMPTY float64 weight_names array, scalar attributes "
                   "are variable-length ASCII, backend='tensorflow', weight names end in ':0'. "
                   "Outputs computed by Keras 2.3.1 from the file as loaded back.")

    # ---- 1. seed, functional Model exactly like the original app's model.h5
    reset_names()
    inp = Input(shape=(450,))
    h = Reshape((50, 9))(inp)
    h = LSTM(50, return_sequences=True)(h)
    h = Dropout(0.5)(h)
    h = LSTM(50)(h)
    h = Dropout(0.5)(h)
    h = Dense(100, activation="relu")(h)
    out = Dense(1, activation="sigmoid")(h)
    m = Model(inp, out)
    m.set_weights(seed_w)
    m.compile(optimizer=keras.optimizers.Adam(), loss="binary_crossentropy", metrics=["accuracy"])
    # One Adam step with learning rate 0: creates the optimizer state (the
    # original file carries optimizer_weights and training_config) without
    # changing any weight. Learning rate is then put back to the default.
    K.set_value(m.optimizer.lr, 0.0)
    m.train_on_batch(seed_x[:4], np.array([[0], [1], [0], [1]], dtype="float32"))
    K.set_value(m.optimizer.lr, 0.001)
    for a, b in zip(m.get_weights(), seed_w):
        assert np.array_equal(a, b), "weights moved"
    name = "seed_k231_h5"
    d, path, y_mem = finish(out_dir, name, m, seed_x, None, None, compiled_optimizer=True)
    h5py2_layout(path)
    reset_names()
    loaded = load_model(path, compile=False)
    _, sens, replaced = conditioned(name, loaded, seed_x)
    y = loaded.predict(seed_x, batch_size=len(seed_x))
    assert np.max(np.abs(y - y_mem)) <= 1e-6, np.max(np.abs(y - y_mem))
    record(name, path, seed_x, y,
           ["keras-2.3.1", "h5py2-fixed-length-strings", "empty-float64-weight_names",
            "weight-names-with-:0", "1-based-layer-names", "Functional(inbound_nodes nested lists)",
            "InputLayer(batch_input_shape)", "Reshape", "LSTM", "return_sequences", "Dropout",
            "Dense", "relu", "sigmoid", "trained-weights", "optimizer_weights+training_config present"],
           "Seed architecture as a functional Model, same structure and attribute types as the "
           "original app's Keras 2.3.1 model.h5 (model_1, input_1, reshape_1, lstm_1, dropout_1, "
           "lstm_2, dropout_2, dense_1, dense_2), trained weights from seed_tfkeras_h5. "
           "Has optimizer_weights (Adam) and training_config, which an inference engine ignores. "
           + common_note, "Model", sens, replaced)

    # ---- 2. seed as Sequential with the bare-list (legacy) config
    reset_names()
    m = Sequential([
        Reshape((50, 9), input_shape=(450,)),
        LSTM(50, return_sequences=True),
        Dropout(0.5),
        LSTM(50),
        Dropout(0.5),
        Dense(100, activation="relu"),
        Dense(1, activation="sigmoid"),
    ])
    m.set_weights(seed_w)
    name = "seed_k231_seqlist_h5"
    d, path, y_mem = finish(out_dir, name, m, seed_x, None, None)
    h5py2_layout(path, sequential_list_config=True)
    reset_names()
    loaded = load_model(path, compile=False)
    _, sens, replaced = conditioned(name, loaded, seed_x)
    y = loaded.predict(seed_x, batch_size=len(seed_x))
    assert np.max(np.abs(y - y_mem)) <= 1e-6
    record(name, path, seed_x, y,
           ["keras-2.3.1", "Sequential(list config)", "h5py2-fixed-length-strings",
            "batch_input_shape-on-first-layer (no InputLayer entry)", "Reshape", "LSTM",
            "return_sequences", "Dropout", "Dense", "relu", "sigmoid", "trained-weights"],
           "Seed architecture as Sequential. model_config is the bare-list form "
           "{\"class_name\": \"Sequential\", \"config\": [ {layer}, ... ]} (no name/layers dict). "
           "NOTE: Keras 2.3.1's own Sequential.get_config writes {\"name\", \"layers\"}; the bare "
           "list is what Keras <= 2.2.2 wrote and what Keras 2.3.1's Sequential.from_config still "
           "reads (legacy branch). The attribute was rewritten to that form and the file was "
           "loaded back by Keras 2.3.1. The first layer (Reshape) carries batch_input_shape "
           "[null, 450]; there is no InputLayer entry. No optimizer/training_config. "
           + common_note, "Sequential-list", sens, replaced)

    # ---- 3. recurrent options in real Keras 2.3.1 semantics
    reset_names()
    m = Sequential([
        GRU(12, return_sequences=True, input_shape=(20, 5)),                 # reset_after=False default
        GRU(10, return_sequences=True, go_backwards=True, reset_after=True),
        GRU(8, return_sequences=True, go_backwards=True, recurrent_activation="hard_sigmoid"),
        LSTM(8, return_sequences=True, go_backwards=True, recurrent_activation="hard_sigmoid"),
        SimpleRNN(6, go_backwards=True),
        Dense(5, activation="tanh"),
        Dense(4),
        Activation("softmax"),
    ])
    rng = np.random.RandomState(231)
    rand_weights(m, rng, scale=2.0)  # x2.5 was chaotic (conditioning check)
    name = "rnn_k231_h5"
    x = inputs_for(name, (20, 5))
    d, path, y_mem = finish(out_dir, name, m, x, None, None)
    h5py2_layout(path)
    reset_names()
    loaded = load_model(path, compile=False)
    x, sens, replaced = conditioned(name, loaded, x, redrawer(name, (20, 5)))
    y = loaded.predict(x, batch_size=len(x))
    y_mem = m.predict(x, batch_size=len(x))
    assert np.max(np.abs(y - y_mem)) <= 1e-6
    record(name, path, x, y,
           ["keras-2.3.1", "Sequential(dict config)", "h5py2-fixed-length-strings",
            "GRU", "reset_after=false (Keras 2.3.1 default)", "reset_after=true",
            "GRU bias (3u) and (2,3u)", "go_backwards", "return_sequences",
            "recurrent_activation=hard_sigmoid (Keras 2: clip(0.2x+0.5))", "LSTM", "SimpleRNN",
            "Dense", "tanh", "linear", "Activation", "softmax"],
           "Real Keras 2.3.1 recurrent semantics: GRU default reset_after=False (bias (3u)), one "
           "GRU with reset_after=True (bias (2,3u)), hard_sigmoid recurrent activation "
           "(Keras 2 formula clip(0.2x+0.5,0,1)), go_backwards with return_sequences returns the "
           "sequence in processing (reversed-time) order. Random weights x2.0. "
           "Sequential config in the real 2.3.1 dict form {name, layers}; first layer has "
           "batch_input_shape. " + common_note, "Sequential-dict", sens, replaced)

    with open(os.path.join(work, "k231_cases.json"), "w") as fh:
        json.dump(entries, fh, indent=1)
    print("k231: wrote %d cases" % len(entries))


def verify(out_dir):
    """Reload the Keras 2.3.1 cases with Keras 2.3.1 and compare to outputs.csv."""
    names = ["seed_k231_h5", "seed_k231_seqlist_h5", "rnn_k231_h5"]
    for name in names:
        d = os.path.join(out_dir, name)
        x = np.loadtxt(os.path.join(d, "inputs.csv"), delimiter=",", dtype=np.float32, ndmin=2)
        y_ref = np.loadtxt(os.path.join(d, "outputs.csv"), delimiter=",", dtype=np.float32, ndmin=2)
        reset_names()
        m = load_model(os.path.join(d, "model.h5"), compile=False)
        x = x.reshape((len(x),) + tuple(int(s) for s in m.input_shape[1:]))
        y = m.predict(x, batch_size=len(x)).reshape(len(x), -1)
        diff = float(np.max(np.abs(y - y_ref)))
        assert diff == 0.0, (name, diff)
    print("k231 verify: %d Keras 2.3.1 models reproduce outputs.csv exactly" % len(names))


if __name__ == "__main__":
    if sys.argv[1] == "--verify":
        verify(sys.argv[2])
    else:
        main()
