#!/usr/bin/env python3
"""Writes the benchmark's model families: seed-sized (0.5-2 M multiply-adds
per window) models of the layer kinds the engine runs besides the shipped
LSTM, and a near-empty model that measures the fixed cost of a call.

    python3 -m tools.bench.make_family_models     # -> tools/bench/models/*.h5

Random weights with a fixed seed (speed does not depend on training); the
files are small and committed, so the benchmark never needs TensorFlow for
them. `tools/bench/families.py` runs `headsup model bench` on each, and on
the shipped CNN (weights/cnn.h5), and prints the fraction of the measured
peak and the time per call.
"""
from pathlib import Path

from tools import pyvenv

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

IN_VENV = "HEADSUP_FAMILY_MODELS_IN_VENV"
if __name__ == "__main__" and not pyvenv.in_venv(IN_VENV):
    training = REPO / "tools" / "training"
    python, _ = pyvenv.ensure(training / ".venv", training / "requirements.txt", log=print)
    pyvenv.reexec_module(python, "tools.bench.make_family_models", IN_VENV, dict(pyvenv.TENSORFLOW_ENV, TF_CPP_MIN_LOG_LEVEL="3"))

import keras  # noqa: E402
from keras import layers  # noqa: E402

WINDOW = (50, 9)


def families():
    """name -> layer chain after the input (time-major 50 x 9 windows)."""
    return {
        # GRU 64 -> GRU 64: 3·(9+64)·64·50 + 3·(64+64)·64·50 ≈ 1.93 M
        "gru": [layers.GRU(64, return_sequences=True), layers.GRU(64), layers.Dense(32, activation="relu"),
                layers.Dense(1, activation="sigmoid")],
        # Bidirectional LSTM 32 twice: 2·4·(9+32)·32·50 + 2·4·(64+32)·32·50 ≈ 1.75 M
        "bidirectional": [layers.Bidirectional(layers.LSTM(32, return_sequences=True)), layers.Bidirectional(layers.LSTM(32)),
                          layers.Dense(1, activation="sigmoid")],
        # SimpleRNN 128 -> 128: (9+128)·128·50 + 256·128·50 ≈ 2.5 M
        "simplernn": [layers.SimpleRNN(128, return_sequences=True), layers.SimpleRNN(128), layers.Dense(1, activation="sigmoid")],
        # one Dense unit over the flattened window: 450 multiply-adds, so the time is the call's fixed cost
        "near_empty": [layers.Flatten(), layers.Dense(1, activation="sigmoid")],
    }


def main():
    out = HERE / "models"
    out.mkdir(exist_ok=True)
    for index, (name, chain) in enumerate(families().items()):
        keras.utils.set_random_seed(100 + index)
        model = keras.Sequential([keras.Input(WINDOW)] + chain, name=name)
        path = out / (name + ".h5")
        model.save(path)
        print("wrote %s (%d parameters)" % (path.relative_to(REPO), model.count_params()))


if __name__ == "__main__":
    main()
