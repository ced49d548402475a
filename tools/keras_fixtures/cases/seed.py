"""The seed model: the original app's architecture, trained briefly on real
phone-motion windows, and the three cases that write it with tf_keras and
Keras 3 (the Keras 2.3.1 copies are make_fixtures_k231.py's)."""
import os
from pathlib import Path

import numpy as np

from tools.keras_fixtures.kit import REPO, tk, keras, fresh, emit, k3_seq, k3_fun, TK_SEQ, K3_SEQ, K3_FUN

# The sessions of datasets/phone-motion-v1 (or HEADSUP_MOTION_DATA: a folder
# of the same sessions as <name>.csv or, as in the original copies, <name>.txt).
DATA = Path(os.environ.get("HEADSUP_MOTION_DATA", str(REPO / "datasets" / "phone-motion-v1" / "sessions")))

TRAIN_FILES = ["data_new_20190530_172403_0", "data_new_20190530_172909_0", "data_sensors_data_7",
               "data_sensors_data_10", "data_sensors_data_12", "data_new_20190530_175250_1"]
HOLDOUT_FILES = ["data_sensors_data_4", "data_sensors_data_3"]


def session_file(fname):
    for suffix in (".csv", ".txt"):
        if (DATA / (fname + suffix)).exists():
            return DATA / (fname + suffix)
    raise SystemExit("motion data: no %s.csv or %s.txt in %s (set HEADSUP_MOTION_DATA)" % (fname, fname, DATA))


def windows(fname, step=50):
    a = np.loadtxt(session_file(fname), delimiter=",", dtype=np.float64)
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



def seed_cases(seed_tk, seed_x):
    """The trained seed written by tf_keras, and its weights by Keras 3 (legacy h5 and .keras)."""
    w = [np.array(a) for a in seed_tk.get_weights()]
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
