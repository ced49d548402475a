#!/usr/bin/env python3
"""Trains HeadsUp's distraction models: the shipped LSTM, the 1-D CNN and the
seed notebook's recipe, for comparison.

    python3 -m tools.training.train                     # everything
    python3 -m tools.training.train --models lstm       # only weights/model.{h5,json} (+ weights/folds/)
    python3 -m tools.training.train --models cnn        # only weights/cnn.{h5,json}
    python3 -m tools.training.train --headsup .build/debug/headsup   # also check the weights in the Swift engine
    python3 -m tools.training.train --models lstm --lstm '{"units": [32]}' --cv-log /tmp/cv.jsonl  # CV of a variant

Runs under any Python 3.11: creates tools/training/.venv from the pinned
tools/training/requirements.txt once (rebuilt when that file changes) and
re-executes itself in it. CPU only; fixed seeds; TensorFlow op determinism.

What it does (see tools/training/README.md):
  1. windows of every session of datasets/phone-motion-v1 through
     HeadsUp's own data layer (tools/training/dataset.py: `headsup dataset
     windows`; 50 Hz grid, 1 s windows, hop 25, majority labels);
  2. leave-sessions-out cross-validation over all 18 sessions in 6 fixed folds
     of 3 whole sessions (FOLDS below), for each recipe; the pooled held-out
     predictions go to weights/folds/<stem>-cv-predictions.csv.gz, and the
     LSTM's fold models to weights/folds/model-fold<k>.h5 + folds.json
     (with --carry, as shipped: one fold per carry walker, see carry_folds);
  3. the shipped models: validation folds over the training sessions only
     (VALIDATION_FOLDS) choose the decision threshold; then one model on all
     training sessions, evaluated once on the 4 reserved test sessions;
  4. writes weights/model.h5 + model.json (the LSTM), weights/cnn.h5 +
     cnn.json and weights/seed.h5 + seed.json with their model cards.
"""
import hashlib
import os
import sys
from pathlib import Path

from tools import pyvenv

TRAINING = Path(__file__).resolve().parent
REPO = TRAINING.parent.parent
VENV = TRAINING / ".venv"
REQUIREMENTS = TRAINING / "requirements.txt"

ENV = dict(pyvenv.TENSORFLOW_ENV, TF_CPP_MIN_LOG_LEVEL="3")
IN_VENV = "HEADSUP_TRAIN_IN_VENV"


# ---------------------------------------------------------------------------
# bootstrap: virtualenv (tools/pyvenv.py) + re-exec
# ---------------------------------------------------------------------------
def bootstrap():
    pyvenv.warn_python("train")
    python, _ = pyvenv.ensure(VENV, REQUIREMENTS, log=lambda message: print("train: " + message, flush=True))
    command = " ".join(["python3 -m tools.training.train"] + sys.argv[1:])
    pyvenv.reexec_module(python, "tools.training.train", IN_VENV, dict(ENV, HEADSUP_TRAIN_COMMAND=command))


if __name__ == "__main__" and not pyvenv.in_venv(IN_VENV):
    bootstrap()

# ---------------------------------------------------------------------------
# inside the venv from here on
# ---------------------------------------------------------------------------
for _key, _value in ENV.items():
    os.environ.setdefault(_key, _value)

import argparse  # noqa: E402
import datetime  # noqa: E402
import gzip  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from tools.training import carry, engine  # noqa: E402
from tools.training import evaluation as ev  # noqa: E402
from tools.training import dataset  # noqa: E402
from tools.training import invariance  # noqa: E402

# TensorFlow on the CPU, quiet and deterministic (as personalize.py sets it up).
from tools.training.deterministic_keras import keras, tf  # noqa: E402

from tools.training import models  # noqa: E402

CARD_FORMAT_VERSION = 1
HOP = 25
DEFAULT_DATASET = REPO / "datasets" / "phone-motion-v1"
# Not in the repository (tools/training/carry.py): beside it, as CI has it.
DEFAULT_CARRY_DATASET = REPO.parent / "shared" / "datasets" / "carry-positions-v1"
DEFAULT_OUT = REPO / "weights"
EDGE_SECONDS = 5.0

# The recipes: what each writes and its seeds (CV fold i: cv + i; validation
# fold i: validation + i; the final model: final). "main" is the shipped model.
RECIPES = {
    "lstm": {"stem": "model", "layout": "time-major", "cv": 7000, "validation": 8000, "final": 9000,
             "kind": "LSTM", "fold_models": True},
    "cnn": {"stem": "cnn", "layout": "time-major", "cv": 1000, "validation": 3000, "final": 2000,
            "kind": "1-D CNN", "fold_models": False},
    "seed": {"stem": "seed", "layout": "channel-major", "cv": 4000, "validation": None, "final": 5000,
             "kind": "LSTM (the seed notebook's recipe)", "fold_models": False},
}
ALIASES = {"main": "lstm"}
FOLDS_DIR = "folds"   # under --out: the LSTM's CV fold models, folds.json and every recipe's CV predictions

# Leave-sessions-out cross-validation over all 18 sessions: 6 fixed folds of 3
# whole sessions, each holding windows of both labels (8 hands sessions:
# two folds hold 2 of them; 10 pocket sessions: four folds hold 2). Every
# session is held out exactly once.
FOLDS = [
    ["data_new_20190530_180235_1", "data_sensors_data_10", "data_new_20190530_174330_0"],
    ["data_new_20190531_094116_1", "data_sensors_data_12", "data_new_20190530_173330_0"],
    ["data_new_20190530_174651_1", "data_new_20190530_172403_0", "data_sensors_data_2"],
    ["data_new_20190530_175250_1", "data_new_20190530_172909_0", "data_sensors_data_4"],
    ["data_sensors_data_8", "data_sensors_data_11", "data_sensors_data_18"],
    ["data_sensors_data_3", "data_sensors_data_5", "data_sensors_data_7"],
]

# The shipped model's decision threshold is chosen on these groups of
# training sessions (never a test session): each group is held out once,
# a model of the same recipe is trained on the other training sessions, and
# the threshold maximizing balanced accuracy over all held-out windows wins.
VALIDATION_FOLDS = [
    ["data_new_20190530_174651_1", "data_new_20190530_172403_0", "data_sensors_data_2"],
    ["data_new_20190530_175250_1", "data_sensors_data_12", "data_new_20190530_172909_0", "data_sensors_data_5"],
    ["data_new_20190531_094116_1", "data_sensors_data_8", "data_new_20190530_173330_0", "data_sensors_data_7"],
    ["data_sensors_data_10", "data_sensors_data_11", "data_sensors_data_18"],
]

AXIS_CONVENTION = (
    "CoreMotion (iPhone) device axes and sign: x right, y up the screen, z out of the screen; "
    "the accelerometer reads about -1 g on the axis pointing up (phone flat, face up: acc_z ~ -1 g). "
    "Android SensorManager and Linux IIO report +9.8 m/s^2 on the up axis: convert to g and NEGATE "
    "the acceleration (acc_g = -acc_m_s2 / 9.80665) before windowing; gyro and mag keep their sign "
    "(rad/s; IIO magn is in gauss: x100 for uT). Fed as recorded, Android data scores the classes inverted.")

STARTED = time.time()


def log(message):
    print("[%6.1fs] %s" % (time.time() - STARTED, message), flush=True)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def load_dataset(folder):
    manifest = dataset.load_manifest(str(folder))
    sessions = {}
    for s in manifest["sessions"]:
        digest = hashlib.sha256(Path(s["path"]).read_bytes()).hexdigest()
        if digest != s["sha256"]:
            raise SystemExit("train: %s does not match its manifest checksum" % s["path"])
        w = dataset.session_windows(s["path"], hop=HOP)
        sessions[s["name"]] = {"meta": s, "windows": w}
    names = set(sessions)
    held = [n for fold in FOLDS for n in fold]
    if sorted(held) != sorted(names):
        raise SystemExit("train: FOLDS must hold every session exactly once")
    for fold in FOLDS:
        if {sessions[n]["meta"]["label"] for n in fold} != {0, 1}:
            raise SystemExit("train: fold %s does not hold both labels" % fold)
    train = sorted(n for n in names if sessions[n]["meta"]["split"] == "train")
    test = sorted(n for n in names if sessions[n]["meta"]["split"] == "test")
    validated = [n for fold in VALIDATION_FOLDS for n in fold]
    if sorted(validated) != train:
        raise SystemExit("train: VALIDATION_FOLDS must hold every training session exactly once")
    return manifest, sessions, train, test


def carry_folds(sessions):
    """Leave-walkers-out folds over both sets: fold k holds out the k-th
    carry walker's sessions and a contiguous share of FOLDS (so every
    phone-motion-v1 session is held out once too). Two walkers: two folds,
    each model trained on the other walker and the other half of FOLDS."""
    by_walker = carry.walkers(sessions)
    names = sorted(by_walker)
    shares = np.array_split(np.arange(len(FOLDS)), len(names))
    return [sorted(by_walker[w] + [n for i in share for n in FOLDS[i]]) for w, share in zip(names, shares)]


def carry_validation_folds(sessions, train):
    """The threshold's folds over both sets' training sessions only: fold k
    holds out the k-th carry walker's sessions and a contiguous share of
    VALIDATION_FOLDS (phone-motion-v1's test sessions are in none)."""
    by_walker = carry.walkers({n: sessions[n] for n in train})
    names = sorted(by_walker)
    shares = np.array_split(np.arange(len(VALIDATION_FOLDS)), len(names))
    return [sorted(by_walker[w] + [n for i in share for n in VALIDATION_FOLDS[i]]) for w, share in zip(names, shares)]


def position_figures(names, labels, scores, sessions, thresholds=ev.THRESHOLD_GRID, shipped_threshold=None,
                     poses=None):
    """Per carry position over held-out windows: the share called distracted
    at each threshold (for the hands, the recall), and the trade-off curve
    (hands recall against the worst other position's false rate). With
    `shipped_threshold`, also the share called distracted at it (the card's
    per-position figures). `rows` splits each position by pose: the
    recorded ones (the hands are the texting pose; the carry set's front
    and back pockets) and, from `poses` (`pose_scores`), the held-out hands
    windows turned into the other looked-at poses, marked synthesised."""
    def position(n, y):
        return "hands" if y == 1 else sessions[n]["meta"].get("position", "pocket (phone-motion-v1)")

    def pose(n, y):
        return "texting" if y == 1 else sessions[n]["meta"].get("pose", "as carried")
    groups = np.array([position(n, y) for n, y in zip(names, labels)])
    out = {"positions": {}, "trade_off": [], "rows": []}

    def shares(s):
        figures = {"called_distracted_at_0.5": round(float((s >= 0.5).mean()), 4)}
        if shipped_threshold is not None:
            figures["called_distracted_at_threshold"] = round(float((s >= shipped_threshold).mean()), 4)
        return figures
    for g in sorted(set(groups)):
        m = groups == g
        out["positions"][g] = dict({"windows": int(m.sum())}, **shares(scores[m]))
    if shipped_threshold is not None:
        out["threshold"] = shipped_threshold
    kinds = np.array([pose(n, y) for n, y in zip(names, labels)])
    for g, k in sorted(set(zip(groups, kinds))):
        m = (groups == g) & (kinds == k)
        out["rows"].append(dict({"position": g, "pose": k, "source": "recorded", "windows": int(m.sum())},
                                **shares(scores[m])))
    for (g, k), s in (poses or {}).items():
        out["rows"].append(dict({"position": g, "pose": k, "source": "synthesised", "windows": int(len(s))},
                                **shares(s)))
    for t in thresholds:
        rates = {g: float((scores[groups == g] >= t).mean()) for g in out["positions"] if g != "hands"}
        worst = max(rates, key=rates.get)
        out["trade_off"].append({"threshold": float(t), "hands_recall": round(float((scores[groups == "hands"] >= t).mean()), 4),
                                 "worst_position": worst, "worst_false_rate": round(rates[worst], 4)})
    return out


def stack(sessions, names):
    w = dataset.concat([sessions[n]["windows"] for n in names])
    return w


def features(recipe, windows):
    if recipe == "lstm":                              # as the runtime feeds it (the card's input.feed)
        return invariance.feed(windows.values, models.LSTM.get("inputs"))
    if RECIPES[recipe]["layout"] == "time-major":
        return windows.values                         # (N, 50, 9) time-major
    return windows.flattened("channel-major")         # (N, 450), the seed's input


AUGMENTATION = "z"   # --augmentation (CNN comparison runs only)
CARRY = False        # --carry: the carry-positions set joins training, with channel dropout


def windows_at(sessions, names, hop):
    """The sessions' windows at another hop than HOP (cached)."""
    parts = []
    for n in names:
        cache = sessions[n].setdefault("by_hop", {})
        if hop not in cache:
            cache[hop] = dataset.session_windows(sessions[n]["meta"]["path"], hop=hop)
        parts.append(cache[hop])
    return dataset.concat(parts)


def fit(recipe, sessions, names, seed, epochs=None):
    """Trains `recipe` on the windows of the sessions `names`."""
    windows = stack(sessions, names)
    x = features(recipe, windows)
    if recipe == "lstm":
        config = models.LSTM
        per_epoch = None
        if config["train_hop"] != HOP:     # finer windows, the same number of them each epoch
            per_epoch = len(windows)
            windows = windows_at(sessions, names, config["train_hop"])
            x = features(recipe, windows)
        trim = ev.edge_mask(windows.sessions, windows.start_times, config["trim_edge_seconds"])
        edge = ev.edge_mask(windows.sessions, windows.start_times, EDGE_SECONDS)
        channels = None
        if CARRY:
            # Accelerometer-only sessions: gyro and mag are missing, not still.
            missing = np.array([sessions[n]["meta"].get("channels") == "acc" for n in windows.sessions], bool)
            channels = {"missing": missing, "dropout": carry.DROPOUT, "rotate_not_distracted": carry.ROTATE_NOT_DISTRACTED}
        return models.train_lstm(x, windows.labels, seed, trim_mask=trim, edge_mask=edge, per_epoch=per_epoch,
                                 channels=channels), {}
    if recipe == "cnn":
        return models.train_main(x, windows.labels, seed, epochs=epochs, mode=AUGMENTATION), {}
    return models.train_seed(x, windows.labels, seed, log=log)


def score(recipe, model, windows):
    return models.predict(model, features(recipe, windows))


# ---------------------------------------------------------------------------
# cross-validation, validation, final model
# ---------------------------------------------------------------------------
def cross_validate(recipe, sessions, folds, seed_base, epochs=None, on_model=None):
    """Trains one model per fold on the other folds' sessions and scores the
    held-out fold. `on_model(index, model, held_windows, scores)` sees each
    fold's model (e.g. to save it). Returns per-window arrays of the
    held-out predictions (session, label, score, start time, fold index)."""
    names, labels, scores, starts, fold_of, fold_info = [], [], [], [], [], []
    poses = {}
    for index, fold in enumerate(folds):
        rest = [n for f in folds for n in f if n not in fold]
        started = time.time()
        model, info = fit(recipe, sessions, rest, seed_base + index, epochs)
        held = stack(sessions, fold)
        p = score(recipe, model, held)
        names += held.sessions
        labels.append(held.labels)
        scores.append(p)
        starts.append(held.start_times)
        fold_of.append(np.full(len(p), index))
        accuracy = {n: round(ev.accuracy(held.labels[np.array(held.sessions) == n],
                                         p[np.array(held.sessions) == n]), 4) for n in fold}
        fold_info.append(dict({"held_out": fold, "seed": seed_base + index,
                               "train_seconds": round(time.time() - started, 1)}, **info))
        log("  %s fold %d/%d %s (%.0fs)" % (recipe, index + 1, len(folds),
                                            " ".join("%s=%.3f" % (n, a) for n, a in accuracy.items()),
                                            time.time() - started))
        if recipe == "lstm":
            fold_poses = pose_scores(model, held_hands(held))
            for pose, called in fold_poses.items():
                poses.setdefault(pose, []).append(called)
            # What an armband or a phone at the ear might look like: not-distracted gyroscope windows turned alike.
            negatives = held.values[(held.labels < 0.5) & invariance.gyro_measured(held.values)]
            log_fold_poses(fold_poses, pose_scores(model, negatives))
        if on_model is not None:
            on_model(index, model, held, p)
        keras.backend.clear_session()
    return (np.array(names), np.concatenate(labels), np.concatenate(scores), np.concatenate(starts),
            np.concatenate(fold_of), fold_info, {pose: np.concatenate(c) for pose, c in poses.items()})


def log_fold_poses(hands, negatives):
    """One fold's synthesised pose figures at 0.5: its held-out hands
    (`hands`, pose_scores) found, and its not-distracted gyroscope windows
    turned into the same poses (`negatives`) called distracted."""
    parts = ["%s %s %.1f %%" % (position, pose, 100 * (s >= 0.5).mean()) for (position, pose), s in hands.items()]
    parts += ["not distracted as %s %s %.1f %%" % (position, pose, 100 * (s >= 0.5).mean())
              for (position, pose), s in negatives.items()]
    log("    turned: " + "; ".join(parts))


def held_hands(held):
    """The hands (label 1) windows of `held`."""
    return held.values[held.labels >= 0.5]


def pose_scores(model, windows):
    """{(position, pose): scores of `windows` (n, 50, 9) turned into it}
    (invariance.synthesised_rows: the looked-at poses and the ear, split by
    gyroscope and accelerometer only)."""
    if len(windows) == 0:
        return {}
    inputs = models.LSTM.get("inputs")
    return {key: models.predict(model, invariance.feed(x, inputs))
            for key, x in invariance.synthesised_rows(windows).items()}


def cv_report(recipe, sessions, epochs, seed_base=None, on_model=None, folds=None):
    """Cross-validation over `folds` (default FOLDS) at threshold 0.5: the
    card's figures and the pooled held-out predictions."""
    folds = FOLDS if folds is None else folds
    log("%s: cross-validation, %d folds over %d sessions" % (recipe, len(folds), len(sessions)))
    started = time.time()
    seed_base = RECIPES[recipe]["cv"] if seed_base is None else seed_base
    names, labels, scores, starts, fold_of, fold_info, poses = cross_validate(
        recipe, sessions, folds, seed_base, epochs, on_model)
    pooled, per_session = ev.summarize(names, labels, scores, starts, 0.5, EDGE_SECONDS)
    log("%s: CV pooled accuracy %.4f, ROC AUC %.4f (%d windows, %d errors: %d within %g s of a session's "
        "start or end, %d steady-state)"
        % (recipe, pooled["accuracy"], pooled["roc_auc"], pooled["windows"], pooled["errors"],
           pooled["errors_at_edges"], pooled["edge_seconds"], pooled["errors_steady_state"]))
    worst = sorted(per_session.items(), key=lambda kv: kv[1]["accuracy"])[:4]
    log("%s: worst sessions %s" % (recipe, ", ".join("%s %.3f" % (n, s["accuracy"]) for n, s in worst)))
    scheme = ("leave-sessions-out, %d fixed folds of 3 whole sessions, both labels in every fold; "
              "each session held out exactly once; windows at hop %d; threshold 0.5" % (len(folds), HOP))
    if folds is not FOLDS:
        scheme = ("leave-walkers-out: %d folds, each one carry-positions walker's sessions with a share of "
                  "phone-motion-v1's session folds; each session held out exactly once; windows at hop %d; "
                  "threshold 0.5" % (len(folds), HOP))
    report = {
        "scheme": scheme,
        "folds": fold_info,
        "pooled": pooled,
        "per_session": per_session,
        "seconds": round(time.time() - started, 1),
    }
    for (position, pose), s in poses.items():
        log("  held-out hands as %-40s called distracted at 0.5: %.1f %%"
            % ("%s, %s" % (position, pose), 100 * (s >= 0.5).mean()))
    predictions = {"session": names, "fold": fold_of, "start_time": starts, "label": labels, "score": scores}
    return report, dict(predictions, poses=poses) if poses else predictions


def write_predictions(path, predictions):
    """The pooled held-out CV predictions, one window a line (CSV), gzipped
    when the name ends in .gz (the shipped ones: both data sets make 20,000
    windows, 1.2 MB of text), with no time stamp so the same run writes the
    same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = io.StringIO()
    text.write("session,fold,start_time,label,score\n")
    for n, k, t, y, p in zip(predictions["session"], predictions["fold"], predictions["start_time"],
                             predictions["label"], predictions["score"]):
        text.write("%s,%d,%.6f,%d,%.9g\n" % (n, k, t, y, p))
    data = text.getvalue().encode()
    if path.suffix == ".gz":
        with open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
            z.write(data)
    else:
        path.write_bytes(data)
    log("  wrote %s (%d windows)" % (path, len(predictions["score"])))


def choose_threshold(recipe, sessions, epochs, folds=None):
    folds = VALIDATION_FOLDS if folds is None else folds
    log("%s: validation folds over the training sessions (threshold choice), %d folds" % (recipe, len(folds)))
    names, labels, scores, starts, _, fold_info, _ = cross_validate(
        recipe, sessions, folds, RECIPES[recipe]["validation"], epochs)
    threshold, balanced = ev.choose_threshold(labels, scores)
    pooled, per_session = ev.summarize(names, labels, scores, starts, threshold, EDGE_SECONDS)
    log("%s: threshold %.2f (validation balanced accuracy %.4f, accuracy %.4f, ROC AUC %.4f)"
        % (recipe, threshold, balanced, pooled["accuracy"], pooled["roc_auc"]))
    return threshold, {
        "method": "validation folds over the training sessions only (test sessions never seen): each "
                  "group held out once from a model of the same recipe trained on the other training "
                  "sessions; the threshold on the grid 0.05, 0.06, ..., 0.95 with the best balanced "
                  "accuracy over all held-out windows (ties: nearest 0.5)"
                  + ("; with the carry set, each group is one carry walker's sessions with a share of the "
                     "phone-motion-v1 groups" if folds is not VALIDATION_FOLDS else ""),
        "groups": folds,
        "folds": fold_info,
        "balanced_accuracy": round(balanced, 4),
        "pooled": pooled,
        "per_session": per_session,
    }


def save_and_check(model, recipe, path, windows):
    """Saves a legacy full-model .h5 and checks the reloaded file predicts the same."""
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(path), include_optimizer=False)   # inference only: no optimizer state
    reloaded = keras.models.load_model(str(path), compile=False)
    a = score(recipe, model, windows)
    b = score(recipe, reloaded, windows)
    return float(np.max(np.abs(a - b)))


def engine_check(binary, path, recipe, windows, keras_scores, threshold):
    """Runs the saved file in HeadsUp's Swift engine (headsup model predict)."""
    if binary is None:
        return {"checked": False, "reason": "no headsup binary (pass --headsup)"}
    swift = engine.predict(binary, path, windows.flattened(RECIPES[recipe]["layout"]))
    difference = float(np.max(np.abs(swift - keras_scores)))
    agree = float(np.mean((swift >= threshold) == (keras_scores >= threshold)))
    log("  engine check %s: %d windows, max |swift - keras| = %.2e, decisions agree %.4f"
        % (path.name, len(swift), difference, agree))
    return {"checked": True, "binary": str(binary), "windows": int(len(swift)),
            "max_abs_difference": difference, "decision_agreement": agree,
            "test_accuracy_swift": round(ev.accuracy(windows.labels, swift, threshold), 4)}


def final_model(recipe, sessions, train, test, threshold, epochs, out, binary):
    log("%s: training on the %d training sessions" % (recipe, len(train)))
    started = time.time()
    model, info = fit(recipe, sessions, train, RECIPES[recipe]["final"], epochs)
    seconds = round(time.time() - started, 1)
    tested = stack(sessions, test)
    p = score(recipe, model, tested)
    pooled, per_session = ev.summarize(tested.sessions, tested.labels, p, tested.start_times, threshold,
                                       EDGE_SECONDS)
    log("%s: TEST accuracy %.4f, ROC AUC %.4f at threshold %.2f (%s)"
        % (recipe, pooled["accuracy"], pooled["roc_auc"], threshold,
           ", ".join("%s %.3f" % (n, s["accuracy"]) for n, s in per_session.items())))
    path = out / (RECIPES[recipe]["stem"] + ".h5")
    reload_difference = save_and_check(model, recipe, path, tested)
    log("  wrote %s (reloaded: max |difference| %.1e)" % (path, reload_difference))
    engine = engine_check(binary, path, recipe, tested, p, threshold)
    return model, path, {
        "sessions": {"pooled": pooled, "per_session": per_session},
        "train_seconds": seconds,
        "info": info,
        "reload_max_abs_difference": reload_difference,
        "engine_check": engine,
    }


class FoldSaver:
    """Saves the LSTM's CV fold models (each trained without its held-out
    fold) as small legacy .h5 files for steady-state analyses over all 18
    sessions, and checks each one in the Swift engine when a binary is given."""

    def __init__(self, recipe, folder, binary, folds=None):
        self.recipe, self.folder, self.binary = recipe, folder, binary
        self.folds = FOLDS if folds is None else folds
        self.entries = []

    def __call__(self, index, model, held, scores):
        path = self.folder / ("%s-fold%d.h5" % (RECIPES[self.recipe]["stem"], index))
        difference = save_and_check(model, self.recipe, path, held)
        entry = {"fold": index, "file": path.name, "held_out": self.folds[index],
                 "bytes": path.stat().st_size, "reload_max_abs_difference": difference,
                 "windows": len(held), "accuracy_at_0.5": round(ev.accuracy(held.labels, scores), 4)}
        entry["engine"] = engine_check(self.binary, path, self.recipe, held, scores, 0.5)
        self.entries.append(entry)
        log("  wrote %s (%d bytes)" % (path, entry["bytes"]))

    def write_index(self, cv, threshold, predictions_file):
        index = {
            "format": "headsup-cv-folds",
            "model": RECIPES[self.recipe]["stem"] + ".h5",
            "recipe": models.lstm_recipe() if self.recipe == "lstm" else None,
            "scheme": cv["scheme"],
            "note": "fold k's model was trained on the other folds' sessions only, so its scores on "
                    "its held_out sessions are out-of-sample; together the %d folds cover every session once. "
                    % len(self.folds) +
                    "The CV figures use threshold 0.5; `threshold` is the shipped model's, chosen on the "
                    "validation folds over the training sessions.",
            "threshold": threshold,
            "cv_threshold": 0.5,
            "predictions": predictions_file,
            "input": {"layout": RECIPES[self.recipe]["layout"], "rate_hz": 50, "window": 50, "hop": HOP},
            "folds": self.entries,
            "pooled": cv["pooled"],
        }
        path = self.folder / "folds.json"
        path.write_text(json.dumps(index, indent=2) + "\n")
        log("  wrote %s" % path)


# ---------------------------------------------------------------------------
# model cards
# ---------------------------------------------------------------------------
def layer_summary(model):
    rows = []
    for layer in model.layers:
        rows.append({"name": layer.name, "class": layer.__class__.__name__,
                     "output_shape": list(layer.output.shape[1:]) if hasattr(layer, "output") else None,
                     "parameters": int(layer.count_params())})
    return rows


def session_list(sessions, names):
    return [{"name": n, "label": sessions[n]["meta"]["label"], "windows": len(sessions[n]["windows"]),
             "sha256": sessions[n]["meta"]["sha256"]} for n in names]


def trained_on(sessions, train, manifest):
    """The card's account of what a both-sets model learned from: the data
    sets (with the carry set's CC BY 4.0 credit, which must ship with the
    weights), positions, phones, and the channels each set has, with what the
    runtime must feed for a channel a device lacks."""
    carried = [n for n in train if sessions[n]["meta"].get("channels") == "acc"]
    motion = [n for n in train if n not in carried]
    positions = {}
    for n in train:
        meta = sessions[n]["meta"]
        position = "hands" if meta["label"] == 1 else meta.get("position", "pocket")
        entry = positions.setdefault(position, {"label": meta["label"], "sessions": 0, "windows": 0})
        entry["sessions"] += 1
        entry["windows"] += len(sessions[n]["windows"])
    phones = sorted({sessions[n]["meta"]["phone"] for n in carried})
    return {
        "data_sets": [
            {"name": manifest["name"], "source": manifest["source"], "license": manifest["license"],
             "training_sessions": len(motion), "positions": ["hands", "pocket"], "phones": ["iPhone"],
             "channels": ["acc", "gyro", "mag"]},
            {"name": "carry-positions-v1", "source": carry.SOURCE, "license": carry.LICENSE,
             "credit": "Contains data from the Oxford step-counter data set (Oxford-step-counter/DataSet on "
                       "GitHub), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); "
                       "converted to g with CoreMotion's sign, timestamps in seconds, labels from folder names",
             "training_sessions": len(carried), "positions": sorted({sessions[n]["meta"]["position"] for n in carried}),
             "phones": phones, "walkers": sorted({sessions[n]["meta"]["walker"] for n in carried}),
             "channels": ["acc"]},
        ],
        "positions": positions,
        "phones": ["iPhone"] + phones,
        "channels": {
            "trained_with": "acc always; gyro where the session has it (phone-motion-v1), with channel dropout: "
                            "%d %% of those windows shown accelerometer-only; the magnetometer never (fed as 0, "
                            "input.feed)" % round(100 * carry.DROPOUT["acc_only"]),
            "missing": "feed 0 in every column of a channel the device lacks (gyro_x..z, mag_x..z), as the runtime's "
                       "aligner does; one model for all devices, no mask input. An accelerometer-only device feeds "
                       "acc in g (CoreMotion sign) and zeros in the six other columns.",
        },
    }


def recipe_of(recipe):
    return {"lstm": models.lstm_recipe, "cnn": lambda: models.MAIN, "seed": lambda: models.SEED}[recipe]()


def write_card(recipe, path, model, h5_path, threshold, threshold_info, cv, final, sessions, train, test,
               manifest, args, started, extra_files):
    spec = RECIPES[recipe]
    time_major = spec["layout"] == "time-major"
    normalized = recipe != "seed"
    card = {
        "format": "headsup-model-card",
        "format_version": CARD_FORMAT_VERSION,
        "model": {
            "name": recipe_of(recipe)["name"],
            "kind": spec["kind"],
            "summary": recipe_of(recipe)["layers"],
            "file": h5_path.name,
            # HeadsUp checks the file against this when it loads the model beside its card (HDF5 has no checksums).
            "sha256": hashlib.sha256(Path(h5_path).read_bytes()).hexdigest(),
            "file_format": "legacy Keras full-model HDF5 (model.save('....h5'), Keras %s)" % keras.__version__,
            # HeadsUp's own licence (LICENSE); the data keeps its own, with its credit (trained_on).
            "license": "Apache-2.0",
            "recipe": recipe_of(recipe),
            "layers": layer_summary(model),
            "parameters": int(model.count_params()),
            "output": "one sigmoid unit: probability that the phone is in the hands (distracted)",
        },
        "input": {
            "layout": spec["layout"],
            "shape": [50, 9] if time_major else [450],
            "flattened_index": "t * 9 + c" if time_major else "c * 50 + t",
            "rate_hz": 50,
            "window": 50,
            "hop": HOP,
            "channels": list(dataset.CHANNELS),
            **({"feed": dict(models.LSTM["inputs"]),
                "feed_rule": "what the runtime feeds for each sensor: measured = its reading (0 where the "
                             "device lacks it), zero = 0 whatever the device measures (HeadsUp does so in live, "
                             "replay and evaluate); a card without feed means every sensor measured"}
               if recipe == "lstm" and models.LSTM.get("inputs") else {}),
            "units": {"acc": "g (standard gravity, gravity included)", "gyro": "rad/s", "mag": "uT (raw, uncalibrated)"},
            "axis_convention": AXIS_CONVENTION,
            "normalization": ("inside the model: keras Normalization layer (per channel); feed raw units"
                              if normalized else "none (raw units), as the seed notebook"),
            "preprocessing": "HeadsUpData (Swift, through `headsup dataset windows`): drop samples not later than "
                             "the last kept one; a step > 0.1 s starts a new segment; 50 Hz grid at k/50 s, linear "
                             "interpolation; 50-sample windows inside a segment; majority label (tie: last sample)",
        },
        "decision": {
            "threshold": threshold,
            "rule": "hands (distracted) when the output >= threshold",
            "chosen_by": threshold_info["method"] if threshold_info else
            "fixed at 0.5, as the seed notebook (its comparison figures use no tuning)",
        },
        "data": {
            "dataset": manifest["name"],
            "dataset_dir": str(Path(args.dataset).resolve().relative_to(REPO)) if Path(args.dataset).resolve()
            .is_relative_to(REPO) else str(args.dataset),
            "training_sessions": session_list(sessions, train),
            "test_sessions": session_list(sessions, test),
            "validation": {"folds": VALIDATION_FOLDS, "note": "groups of training sessions; threshold only"}
            if threshold_info else None,
            "training_windows": int(sum(len(sessions[n]["windows"]) for n in train)),
        },
        "trained_on": trained_on(sessions, train, manifest) if CARRY else None,
        "cross_validation": dict(cv, **extra_files),
        "validation": threshold_info,
        "test": dict(final["sessions"], note="evaluated once, after the threshold was fixed"),
        "checks": {"reload_max_abs_difference": final["reload_max_abs_difference"],
                   "engine": final["engine_check"]},
        "final_training": dict({"seconds": final["train_seconds"]}, **final["info"]),
        "versions": dict(models.versions(), python=platform.python_version()),
        "seeds": "keras.utils.set_random_seed per model (CV fold i: %d + i; %sfinal: %d); numpy default_rng "
                 "with the same seed for augmentation"
                 % (spec["cv"], "validation fold i: %d + i; " % spec["validation"] if spec["validation"] else "",
                    spec["final"]),
        "determinism": "tf.config.experimental.enable_op_determinism(), TF_ENABLE_ONEDNN_OPTS=0, 1 inter-op "
                       "thread, 2 intra-op threads, PYTHONHASHSEED=0",
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "command": os.environ.get("HEADSUP_TRAIN_COMMAND", "python3 -m tools.training.train"),
        "run_seconds": round(time.time() - started, 1),
    }
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    log("  wrote %s" % path)


def refresh_card_figures(binary):
    """--card-figures: rewrites the shipped card's per-position figures
    (cross_validation.by_position, with its pose rows) from the shipped CV
    fold models and predictions file, training nothing: each fold model
    scores its own held-out hands windows turned into the looked-at poses
    (pose_scores); the recorded rows come from the predictions file. The
    card's model checksum does not change (model.h5 is untouched)."""
    card_path = DEFAULT_OUT / "model.json"
    card = json.loads(card_path.read_text())
    index = json.loads((DEFAULT_OUT / FOLDS_DIR / "folds.json").read_text())
    _, sessions, _, _ = load_dataset(DEFAULT_DATASET)
    sessions.update(carry.load(str(DEFAULT_CARRY_DATASET), HOP))
    predictions = ev.read_predictions(DEFAULT_OUT / card["cross_validation"]["predictions"])
    poses = {}
    for fold in index["folds"]:
        model = keras.models.load_model(str(DEFAULT_OUT / FOLDS_DIR / fold["file"]), compile=False)
        for pose, s in pose_scores(model, held_hands(stack(sessions, fold["held_out"]))).items():
            poses.setdefault(pose, []).append(s)
        keras.backend.clear_session()
    poses = {pose: np.concatenate(s) for pose, s in poses.items()}
    card["cross_validation"]["by_position"] = position_figures(
        predictions["session"], predictions["label"], predictions["score"], sessions,
        shipped_threshold=card["decision"]["threshold"], poses=poses)
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    for row in card["cross_validation"]["by_position"]["rows"]:
        log("  %-26s %-22s %-11s %6d windows, called distracted at %.2f: %.1f %%" % (
            row["position"], row["pose"], row["source"], row["windows"], card["decision"]["threshold"],
            100 * row["called_distracted_at_threshold"]))
    log("wrote %s" % card_path)


def find_headsup(value):
    try:
        return engine.find_binary(value)
    except engine.EngineError as error:
        raise SystemExit("train: %s" % error)


def apply_lstm_overrides(text):
    """--lstm '{"units": [32], ...}': changes the LSTM recipe (CV comparisons)."""
    changes = json.loads(text)
    for key, value in changes.items():
        if key not in models.LSTM:
            raise SystemExit("train: --lstm: no recipe key %r (keys: %s)" % (key, ", ".join(models.LSTM)))
        if key == "augmentation":
            models.LSTM[key] = dict(models.LSTM[key], **value)
        else:
            models.LSTM[key] = value
    return changes


def main():
    parser = argparse.ArgumentParser(description="Train HeadsUp's distraction models (see tools/training/README.md).")
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET), help="dataset folder with manifest.json")
    parser.add_argument("--out", default=str(DEFAULT_OUT),
                        help="where model.h5/.json, cnn.h5/.json, seed.h5/.json and folds/ go")
    parser.add_argument("--models", default="lstm,cnn,seed",
                        help="comma-separated: lstm (the shipped weights/model.h5; alias main), cnn, seed")
    parser.add_argument("--epochs", type=int, default=None, help="override the LSTM and CNN recipes' epochs (tests)")
    parser.add_argument("--cv-only", action="store_true", help="only cross-validate; write no weights")
    parser.add_argument("--augmentation", choices=["z", "so3", "none"], default="z",
                        help="the CNN recipe's rotations: z (the recipe), so3 or none; other than z implies --cv-only")
    parser.add_argument("--lstm", default=None, metavar="JSON",
                        help="change LSTM recipe keys, e.g. '{\"units\": [32], \"epochs\": 30}'; implies --cv-only")
    parser.add_argument("--cv-seed", type=int, default=None,
                        help="CV seed base instead of the recipe's (fold i: base + i); implies --cv-only")
    parser.add_argument("--cv-log", default=None, metavar="FILE",
                        help="append one JSON line per recipe with its CV figures (recipe search)")
    parser.add_argument("--cv-predictions", default=None, metavar="DIR",
                        help="with --cv-only: also write each recipe's held-out CV predictions to DIR")
    parser.add_argument("--carry", action="store_true",
                        help="also train on the carry-positions set (accelerometer only) with channel dropout, "
                             "cross-validated with its walkers held out; LSTM only; implies --cv-only unless --out "
                             "is outside weights/ (the fold models and folds.json go there)")
    parser.add_argument("--carry-dataset", default=str(DEFAULT_CARRY_DATASET), metavar="DIR",
                        help="the carry-positions set (default: ../shared/datasets/carry-positions-v1 beside the repository)")
    parser.add_argument("--card-figures", action="store_true",
                        help="train nothing: rewrite weights/model.json's per-position and pose figures from the "
                             "shipped fold models (weights/folds/)")
    parser.add_argument("--headsup", default=None,
                        help="headsup binary for the engine check (default: $HEADSUP_BIN or .build/*/headsup if built)")
    args = parser.parse_args()
    recipes = [ALIASES.get(r.strip(), r.strip()) for r in args.models.split(",") if r.strip()]
    if not recipes or any(r not in RECIPES for r in recipes):
        raise SystemExit("train: --models takes a comma-separated list of lstm (or main), cnn, seed")
    global AUGMENTATION
    AUGMENTATION = args.augmentation
    if args.epochs is not None:          # recorded in the card as the recipe's epochs
        models.MAIN["epochs"] = args.epochs
        models.LSTM["epochs"] = args.epochs
        args.epochs = None
    overrides = apply_lstm_overrides(args.lstm) if args.lstm else None
    if args.augmentation != "z" or overrides or args.cv_seed is not None:
        args.cv_only = True
    out = Path(args.out)
    global CARRY
    CARRY = args.carry
    if CARRY and recipes != ["lstm"]:
        raise SystemExit("train: --carry trains the LSTM only: give --models lstm")
    binary = find_headsup(args.headsup)
    dataset.use_binary(binary)  # the windows come from the same engine the weights are checked in
    if args.card_figures:
        return refresh_card_figures(binary)
    started = time.time()
    log("TensorFlow %s, Keras %s, %s" % (tf.__version__, keras.__version__, platform.python_version()))
    manifest, sessions, train, test = load_dataset(args.dataset)
    log("data: %d sessions, %d windows (hop %d); train %d sessions, test %d: %s"
        % (len(sessions), sum(len(s["windows"]) for s in sessions.values()), HOP, len(train), len(test),
           ", ".join(test)))
    folds = None
    if CARRY:
        carried = carry.load(args.carry_dataset, HOP)
        log("carry: %d sessions, %d windows; walkers %s" % (
            len(carried), sum(len(s["windows"]) for s in carried.values()),
            ", ".join("%s %d" % (w, len(n)) for w, n in carry.walkers(carried).items())))
        sessions.update(carried)
        folds = carry_folds(sessions)
        # Both sets' training sessions: every carry walk is a training session
        # (phone-motion-v1's reserved test sessions stay the only test).
        train = sorted(train + list(carried))
    for recipe in recipes:
        recipe_started = time.time()
        spec = RECIPES[recipe]
        if recipe == "lstm":
            log("lstm: %s" % models.describe_lstm(models.LSTM))
        saver = None
        if spec["fold_models"] and (not args.cv_only or (CARRY and out.resolve() != DEFAULT_OUT.resolve())):
            saver = FoldSaver(recipe, out / FOLDS_DIR, binary, folds)
        cv, predictions = cv_report(recipe, sessions, args.epochs, args.cv_seed, saver, folds)
        if CARRY:
            cv["by_position"] = position_figures(predictions["session"], predictions["label"], predictions["score"],
                                                 sessions, poses=predictions.get("poses"))
            for g, figures in cv["by_position"]["positions"].items():
                log("  %-26s %6d windows, called distracted at 0.5: %.1f %%"
                    % (g, figures["windows"], 100 * figures["called_distracted_at_0.5"]))
            for point in cv["by_position"]["trade_off"][::5]:
                log("  threshold %.2f: hands recall %.1f %%, worst %s %.1f %%" % (
                    point["threshold"], 100 * point["hands_recall"], point["worst_position"],
                    100 * point["worst_false_rate"]))
            if saver is not None and args.cv_only:
                saver.write_index(cv, 0.5, None)
                write_predictions(out / FOLDS_DIR / ("%s-cv-predictions.csv.gz" % spec["stem"]), predictions)
                (out / FOLDS_DIR / "cv.json").write_text(json.dumps(cv, indent=1, default=float) + "\n")
                # `headsup evaluate --folds` reads the card beside folds/: the shipped one's decision values.
                (out / "model.json").write_text((DEFAULT_OUT / "model.json").read_text())
                log("  copied the shipped card to %s (threshold and decision values for evaluate --folds)"
                    % (out / "model.json"))
        if args.cv_log:
            entry = {"recipe": recipe, "command": os.environ.get("HEADSUP_TRAIN_COMMAND", ""),
                     "config": models.lstm_recipe() if recipe == "lstm" else recipe_of(recipe),
                     "seed_base": args.cv_seed if args.cv_seed is not None else spec["cv"],
                     "augmentation": AUGMENTATION, "carry": CARRY, "by_position": cv.get("by_position"),

                     "pooled": cv["pooled"], "per_session": cv["per_session"],
                     "seconds": cv["seconds"]}
            with open(args.cv_log, "a") as f:
                f.write(json.dumps(entry) + "\n")
        if args.cv_only:
            if args.cv_predictions:
                write_predictions(Path(args.cv_predictions) / ("%s-cv-predictions.csv.gz" % spec["stem"]), predictions)
            continue
        predictions_file = "%s/%s-cv-predictions.csv.gz" % (FOLDS_DIR, spec["stem"])
        write_predictions(out / predictions_file, predictions)
        extra = {"predictions": predictions_file}
        if spec["validation"] is not None:
            threshold, threshold_info = choose_threshold(
                recipe, {n: sessions[n] for n in train}, args.epochs,
                carry_validation_folds(sessions, train) if CARRY else None)
        else:
            threshold, threshold_info = 0.5, None
        if saver is not None:
            saver.write_index(cv, threshold, predictions_file)
            extra["fold_models"] = "%s/folds.json" % FOLDS_DIR
        if CARRY:
            # The card's per-position figures: walker-held-out CV at the shipped threshold.
            cv["by_position"] = position_figures(predictions["session"], predictions["label"], predictions["score"],
                                                 sessions, shipped_threshold=threshold, poses=predictions.get("poses"))
        model, h5_path, final = final_model(recipe, sessions, train, test, threshold, args.epochs, out, binary)
        write_card(recipe, out / (spec["stem"] + ".json"), model, h5_path, threshold, threshold_info, cv, final,
                   sessions, train, test, manifest, args, recipe_started, extra)
        keras.backend.clear_session()
    log("done in %.0f s" % (time.time() - started))


if __name__ == "__main__":
    main()
