#!/usr/bin/env python3
"""Builds reference Keras models and test fixtures for HeadsUp's Swift engine.

Run from anywhere:  python3 -m tools.keras_fixtures.make_fixtures

The script creates (once, with tools/pyvenv.py) two virtualenvs next to
itself and re-executes itself inside the first:
  .venv       from requirements.txt       tensorflow-cpu, tf_keras (Keras 2 API), keras 3
  .venv-k231  from requirements-k231.txt  the real Keras 2.3.1 on Theano
and writes Tests/Fixtures/keras/{cases.json, <case>/..., bad/...}.
The cases are built in cases/ (a module per layer family; cases/seed.py
trains the seed model), with the helpers of kit.py. See README.md for what
each case covers.

Options:  --skip-k231  do not (re)build the Keras 2.3.1 cases (keeps existing ones)
          --verify-only  only reload every written model and compare to outputs.csv
          --out DIR  write (or verify) the fixtures in DIR instead of Tests/Fixtures/keras
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

from tools import pyvenv

HERE = Path(__file__).resolve().parent

VENV = HERE / ".venv"
VENV_K231 = HERE / ".venv-k231"
IN_VENV = "HEADSUP_KERAS_FIXTURES_IN_VENV"

ENV = dict(pyvenv.TENSORFLOW_ENV, TF_CPP_MIN_LOG_LEVEL="2")


# --------------------------------------------------------------------------
# bootstrap: venvs + re-exec
# --------------------------------------------------------------------------
def bootstrap():
    pyvenv.warn_python("make_fixtures")
    py, _ = pyvenv.ensure(VENV, HERE / "requirements.txt", HERE / "constraints.txt")
    if "--skip-k231" not in sys.argv and "--verify-only" not in sys.argv:
        pyvenv.ensure(VENV_K231, HERE / "requirements-k231.txt")
    pyvenv.reexec_module(py, "tools.keras_fixtures.make_fixtures", IN_VENV, ENV)


if __name__ == "__main__" and not pyvenv.in_venv(IN_VENV):
    bootstrap()

# --------------------------------------------------------------------------
# inside .venv from here on
# --------------------------------------------------------------------------
for _k, _v in ENV.items():
    os.environ.setdefault(_k, _v)

import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402
import h5py  # noqa: E402
from tools.keras_fixtures import conditioning, kit  # noqa: E402
from tools.keras_fixtures.kit import (CASES, SENS, VERSIONS, tk, keras, fresh, randomize, case_rng, run,  # noqa: E402
                 loader_for, tk_seq, TK_SEQ, K3_SEQ, TK_FUN, K3_FUN)
from tools.keras_fixtures.csvio import read_csv  # noqa: E402
from tools.keras_fixtures.cases import build_cases, build_seed  # noqa: E402


# --------------------------------------------------------------------------
# bad files
# --------------------------------------------------------------------------
def _set_str_attr_like(attrs, key, value):
    """Replace a string attribute keeping its HDF5 string type."""
    dt = attrs.get_id(key).dtype
    del attrs[key]
    attrs.create(key, value, dtype=dt)


def build_bad():
    bad = kit.OUT / "bad"
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
                           str(work), str(kit.OUT)], env=env)
    entries = json.loads((work / "k231_cases.json").read_text())
    shutil.rmtree(work)
    for e in entries:
        e.pop("_model_type", None)
        sens_theano, replaced = e.pop("_sensitivity"), e.pop("_replaced")
        # Cross-check: tf_keras loads the Keras 2.3.1 file and must agree, and
        # the inputs (conditioned with Keras 2.3.1 itself) must pass the
        # conditioning check in TensorFlow float32 too.
        fresh("tk")
        m = tk.models.load_model(kit.OUT / e["model"], compile=False)
        x = read_csv(kit.OUT / e["inputs"]).reshape([-1] + e["input_shape"])
        y_ref = read_csv(kit.OUT / e["outputs"])
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
    old = kit.OUT / "cases.json"
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
    with h5py.File(kit.OUT / by["many_layers_tfkeras_h5"]["model"], "r") as f:
        keys = sorted(f["model_weights"].attrs.keys())
        assert "layer_names" not in keys and "layer_names0" in keys and "layer_names1" in keys, keys
    with h5py.File(kit.OUT / "seed_k231_h5/model.h5", "r") as f:
        t = f["model_weights"].attrs.get_id("layer_names").get_type()
        assert t.get_class() == h5py.h5t.STRING and not t.is_variable_str()
        assert f["model_weights/dropout_1"].attrs["weight_names"].dtype == np.float64
    import zipfile
    for c in cases:
        if c["format"] == "keras-archive":
            z = zipfile.ZipFile(kit.OUT / c["model"])
            names = sorted(z.namelist())
            assert names == ["config.json", "metadata.json", "model.weights.h5"], names
    with zipfile.ZipFile(kit.OUT / "dense_stack_keras3_keras/model.keras") as z:
        with tempfile.TemporaryDirectory() as td:
            z.extract("model.weights.h5", td)
            with h5py.File(Path(td) / "model.weights.h5", "r") as f:
                groups = list(f["layers"].keys())
                assert "dense_10" in groups and groups.index("dense_10") < groups.index("dense_2"), groups
    with zipfile.ZipFile(kit.OUT / "renamed_keras3_keras/model.keras") as z:
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
                m = keras.models.load_model(kit.OUT / "renamed_keras3_keras/model.keras", compile=False)
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
            m = tk.models.load_model(kit.OUT / c["model"], compile=False)
            x = read_csv(kit.OUT / c["inputs"]).reshape([-1] + c["input_shape"])
            diff = float(np.max(np.abs(run(m, x).reshape(len(x), -1) - read_csv(kit.OUT / c["outputs"]))))
            assert diff < 1e-5, (c["name"], diff)
            if c["name"] not in SENS:
                SENS[c["name"]] = (float(conditioning.sensitivity(lambda b: run(m, b), x).max()), [])
            assert SENS[c["name"]][0] < conditioning.LIMIT, (c["name"], SENS[c["name"]])
            continue
        n += 1
        fw = "tk" if c["writer"].startswith("tf_keras") else "k3"
        d = kit.OUT / c["name"]
        fresh(fw)
        m = loader_for(fw, c["format"], d)()
        x = read_csv(kit.OUT / c["inputs"]).reshape([-1] + c["input_shape"])
        y_ref = read_csv(kit.OUT / c["outputs"])
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
                                   "--verify", str(kit.OUT)], env=env)
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
    total = sum(p.stat().st_size for p in kit.OUT.rglob("*") if p.is_file())
    return total


# --------------------------------------------------------------------------
def parse_args():
    p = argparse.ArgumentParser(description="Builds the Keras fixtures of HeadsUp's engine tests with real Keras.")
    p.add_argument("--skip-k231", action="store_true",
                   help="do not (re)build the Keras 2.3.1 cases (keep the existing ones)")
    p.add_argument("--verify-only", action="store_true",
                   help="only reload every written model and compare to outputs.csv")
    p.add_argument("--out", type=Path, default=kit.OUT,
                   help="the fixture folder (default: %(default)s); relative to the working directory")
    return p.parse_args()


def main():
    args = parse_args()
    kit.OUT = args.out.resolve()
    kit.OUT.mkdir(parents=True, exist_ok=True)
    print("versions: %s" % json.dumps(VERSIONS), flush=True)
    if args.verify_only:
        cases = json.loads((kit.OUT / "cases.json").read_text())
        verify(cases)
        return
    seed_tk, seed_x = build_seed()
    seed_w = [np.array(a) for a in seed_tk.get_weights()]
    build_cases(seed_tk, seed_x)
    if args.skip_k231:
        k231 = keep_existing_k231()
    else:
        k231 = run_k231(seed_w, seed_x)
    # order: seeds first, then the rest
    cases = CASES[:3] + k231 + CASES[3:]
    check_coverage(cases)
    with open(kit.OUT / "cases.json", "w") as fh:
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
