#!/usr/bin/env python3
"""Turns a user's own recordings into a personal model and card.

    headsup record --label hands  --out ~/walks/hands-1.csv --duration 120
    headsup record --label bag    --out ~/walks/bag-1.csv   --duration 120
    ...
    python3 -m tools.training.personalize ~/walks                      # -> ~/walks/personal/
    python3 -m tools.training.personalize ~/walks --install            # and `model:` in the user's config

What it does (tools/training/README.md, "A personal model"):
  1. reads every session CSV under DIR with its sidecar (NAME.json, written
     by `headsup record`: the phone's position) and makes the model's windows
     with HeadsUp's own data layer (tools/training/dataset.py);
  2. holds out one whole session of every position that has two or more, so
     each position is judged on a walk the model was not tuned on;
  3. fine-tunes the shipped model (weights/model.h5) on the other sessions,
     mixed with as many windows of the shipped model's own training sessions
     (so it does not forget the people it learned from), with the shipped
     recipe's rotations, a few epochs on the CPU, fixed seeds;
  4. scores the held-out sessions with both models (in HeadsUp's Swift
     engine when a headsup binary is found, else in Keras) and prints one
     table per position: windows called distracted, hands recall; writes
     report.json and report.html;
  5. writes personal-model.h5 and its card personal-model.json (what it was
     tuned on, its figures, the base model's sha256, the shipped decision
     values) and checks the file in the Swift engine (`model inspect`);
  6. with --install: sets `model:` in $XDG_CONFIG_HOME/headsup/config.yaml
     (~/.config/headsup) and checks that `headsup config show` takes it.

Runs under any Python 3.11: uses tools/training/.venv (made by tools/training/train.py
from tools/training/requirements.txt, made here when missing).
"""
import os
import sys
from pathlib import Path

from tools import pyvenv

TRAINING = Path(__file__).resolve().parent
REPO = TRAINING.parent.parent
IN_VENV = "HEADSUP_PERSONALIZE_IN_VENV"


ENV = dict(pyvenv.TENSORFLOW_ENV, TF_CPP_MIN_LOG_LEVEL="3")

if __name__ == "__main__" and not pyvenv.in_venv(IN_VENV):
    pyvenv.warn_python("personalize")
    try:
        _python, _ = pyvenv.ensure(TRAINING / ".venv", TRAINING / "requirements.txt",
                                   log=lambda message: print("personalize: " + message, file=sys.stderr, flush=True))
    except pyvenv.VenvError as _error:
        raise SystemExit("personalize: %s; check the network and pip, then run again" % _error)
    pyvenv.reexec_module(_python, "tools.training.personalize", IN_VENV, ENV)

# ---------------------------------------------------------------------------
# inside the venv from here on
# ---------------------------------------------------------------------------
for _key, _value in ENV.items():
    os.environ.setdefault(_key, _value)

import argparse  # noqa: E402
import datetime  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from tools.training import augment, engine, personal  # noqa: E402
from tools.training import dataset  # noqa: E402
from tools.training.deterministic_keras import keras, tf  # noqa: E402

BASE_MODEL = REPO / "weights" / "model.h5"
BASE_DATASET = REPO / "datasets" / "phone-motion-v1"
STEM = "personal-model"
HOP = 25
# The fine-tune: small steps from the shipped weights, few epochs, CPU.
EPOCHS = 20
LEARNING_RATE = 1e-3
BATCH_SIZE = 64
SEED = 31
# The shipped recipe's rotations and magnetometer offsets (models.LSTM["augmentation"]).
TILT_SIGMA = 0.15
MAG_OFFSET_SIGMA = 50.0


def log(message):
    print("personalize: " + message, file=sys.stderr, flush=True)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def find_headsup(value):
    """The headsup binary: --headsup, $HEADSUP_BIN, the builds, or `headsup` on PATH (engine.find_binary)."""
    try:
        return engine.find_binary(value)
    except engine.EngineError as error:
        raise SystemExit("personalize: %s" % error)


def engine_scores(binary, model_path, flat):
    """Scores from HeadsUp's Swift engine (`headsup model predict`): what the app computes."""
    try:
        return engine.predict(binary, model_path, flat)
    except engine.EngineError as error:
        raise SystemExit("personalize: %s" % error)


def keras_scores(model, windows):
    return model.predict(windows.values.astype(np.float32), batch_size=1024, verbose=0)[:, 0].astype(np.float64)


def base_windows(count, rng):
    """`count` windows of the shipped model's own training sessions (phone-motion-v1, split train)."""
    manifest = dataset.load_manifest(str(BASE_DATASET))
    chosen = [s for s in manifest["sessions"] if s["split"] == "train"]
    windows = dataset.concat([dataset.session_windows(s["path"], hop=HOP) for s in chosen])
    if count >= len(windows):
        return windows.values, windows.labels, len(chosen)
    pick = np.sort(rng.choice(len(windows), count, replace=False))
    return windows.values[pick], windows.labels[pick], len(chosen)


def fine_tune(base_path, x, y, mask, epochs, seed):
    """The shipped model, trained on from its weights: Adam at a small rate,
    balanced classes, fresh rotations every epoch; `mask` (N, 9) keeps the
    channels a session did not measure at 0 after augmentation. The
    Normalization layer keeps the shipped statistics (not trainable)."""
    keras.utils.set_random_seed(seed)
    model = keras.models.load_model(str(base_path), compile=False)
    model.compile(optimizer=keras.optimizers.Adam(LEARNING_RATE, clipnorm=1.0), loss="binary_crossentropy")
    rng = np.random.default_rng(seed)
    counts = np.bincount(y, minlength=2).astype(np.float64)
    class_weight = {k: float(len(y) / (2.0 * counts[k])) for k in (0, 1) if counts[k] > 0}
    losses = []
    for epoch in range(epochs):
        xa = augment.augment(x, rng, TILT_SIGMA, MAG_OFFSET_SIGMA) * mask[:, None, :]
        history = model.fit(xa, y.astype(np.float32), batch_size=BATCH_SIZE, epochs=1, shuffle=True, verbose=0,
                            class_weight=class_weight)
        losses.append(round(float(history.history["loss"][-1]), 5))
        log("  epoch %d/%d loss %.4f" % (epoch + 1, epochs, losses[-1]))
    return model, {"epochs": epochs, "losses": losses, "class_weight": class_weight}


def inspect(binary, path):
    try:
        return engine.inspect(binary, path)
    except engine.EngineError as error:
        raise SystemExit("personalize: HeadsUp refused the personal model: %s" % error)


def write_card(path, model_path, base_card, base_path, sessions, train, held, report, tuning, args, started):
    card = {
        "format": "headsup-model-card",
        "format_version": base_card.get("format_version", 1),
        "personal": {
            "note": "a personal model: the shipped model fine-tuned on one user's own recordings; its figures are "
                    "from that user's held-out sessions only and say nothing about other people or phones",
            "base_model": {"file": str(base_path.relative_to(REPO)), "sha256": sha256(base_path),
                           "name": base_card["model"]["name"]},
            "recordings": str(Path(args.dir).resolve()),
            "tuned_on": [s for s in report["sessions"] if s["role"] == "tuning"],
            "held_out": [s for s in report["sessions"] if s["role"] == "held out"],
            "positions": sorted({sessions[n]["position"] for n in sessions}),
            "base_training_windows": tuning["base_windows"],
            "fine_tune": {"epochs": tuning["epochs"], "learning_rate": LEARNING_RATE, "batch_size": BATCH_SIZE,
                          "seed": args.seed, "losses": tuning["losses"], "class_weight": tuning["class_weight"],
                          "augmentation": "the shipped recipe's: rotation about the screen normal, tilt N(0, %.2f) "
                                          "rad, magnetometer offset N(0, %.0f) uT, afresh every epoch"
                                          % (TILT_SIGMA, MAG_OFFSET_SIGMA),
                          "seconds": tuning["seconds"]},
            "figures": {"scored_by": report["scored_by"], "threshold": report["threshold"],
                        "personal": report["personal"], "shipped": report["base"], "notes": report["notes"]},
        },
        "model": dict(base_card["model"], name=base_card["model"]["name"] + "-personal", file=model_path.name,
                      sha256=sha256(model_path), kind=base_card["model"]["kind"] + " (personal fine-tune)",
                      file_format="legacy Keras full-model HDF5 (model.save('....h5'), Keras %s)" % keras.__version__),
        "input": base_card["input"],
        # The shipped decision values: chosen on many people's sessions, kept (a few walks cannot re-tune them).
        "decision": base_card["decision"],
        "data": {"dataset": "personal recordings (%s)" % Path(args.dir).name,
                 "training_sessions": [s for s in report["sessions"] if s["role"] == "tuning"],
                 "test_sessions": [s for s in report["sessions"] if s["role"] == "held out"],
                 "base_data": base_card.get("data", {}).get("dataset")},
        "versions": {"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__,
                     "python": platform.python_version()},
        "date": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "command": " ".join(["python3", "tools/training/personalize.py"] + sys.argv[1:]),
        "run_seconds": round(time.time() - started, 1),
    }
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")


def install(binary, model_path, config):
    """Sets `model:` in `config` (atomically) and checks `headsup config show` takes it."""
    path = Path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else ""
    # Through a symlink, keeping the file's mode and owner (a 0600 config with a token stays 0600).
    written = personal.replace_text_keeping_file(path, personal.set_model_line(old, model_path))
    log("installed: model: %s in %s" % (model_path, written))
    if binary is None:
        log("no headsup binary to check it with: run `headsup config show` and `headsup model inspect %s`" % model_path)
        return None
    user = Path(personal.config_path()).resolve() == path.resolve()
    command = [str(binary), "config", "show"] + ([] if user else ["--config", str(path)])
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    shown = done.stdout.decode()
    if done.returncode != 0 or str(model_path) not in shown:
        personal.replace_text_keeping_file(path, old)
        raise SystemExit("personalize: `headsup config show` did not take the personal model (%s); %s is restored"
                         % (done.stderr.decode().strip()[-400:] or "not shown", path))
    return shown


def main():
    parser = argparse.ArgumentParser(description="Fine-tune HeadsUp's shipped model on your own recordings "
                                                 "(headsup record --label POSITION) and compare the two.")
    parser.add_argument("dir", help="the folder of your recordings: NAME.csv with NAME.json beside each")
    parser.add_argument("--out", default=None,
                        help="where the personal model, card and report go (default DIR/personal)")
    parser.add_argument("--install", action="store_true",
                        help="set `model:` in $XDG_CONFIG_HOME/headsup/config.yaml to the personal model")
    parser.add_argument("--config", default=None,
                        help="with --install: the config file to set `model:` in (default $XDG_CONFIG_HOME/headsup/"
                             "config.yaml; /etc/headsup/config.yaml for the system service, as root)")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="fine-tune epochs (default %d)" % EPOCHS)
    parser.add_argument("--base-share", type=float, default=1.0,
                        help="windows of the shipped model's training sessions mixed in, per personal window "
                             "(default 1.0; 0: only your recordings)")
    parser.add_argument("--seed", type=int, default=SEED, help="the seed of the split and the fine-tune")
    parser.add_argument("--headsup", default=None,
                        help="headsup binary for the engine's scores and checks "
                             "(default: $HEADSUP_BIN, .build/*, PATH)")
    args = parser.parse_args()
    started = time.time()
    out = Path(args.out) if args.out else Path(args.dir) / "personal"
    out.mkdir(parents=True, exist_ok=True)
    binary = find_headsup(args.headsup)
    dataset.use_binary(binary)  # the windows come from the engine that scores them
    base_card = json.loads(BASE_MODEL.with_suffix(".json").read_text())
    threshold = base_card["decision"]["threshold"]

    try:
        sessions = personal.find_sessions(args.dir, hop=HOP)
        train, held, notes = personal.split(sessions, args.seed)
    except personal.PersonalDataError as error:
        raise SystemExit("personalize: %s" % error)
    log("%d sessions (%s); tuning on %d, holding out %s"
        % (len(sessions), ", ".join(sorted({s["position"] for s in sessions.values()})), len(train), ", ".join(held)))
    for note in notes:
        log(note)

    tuning_windows = personal.stack(sessions, train)
    rng = np.random.default_rng(args.seed)
    x, y = tuning_windows.values, tuning_windows.labels.astype(np.int64)
    mask = personal.channel_mask(sessions, tuning_windows)
    base_count, base_sessions = 0, 0
    if args.base_share > 0:
        bx, by, base_sessions = base_windows(int(round(args.base_share * len(y))), rng)
        x, y = np.concatenate([x, bx]), np.concatenate([y, by.astype(np.int64)])
        mask = np.concatenate([mask, np.ones((len(by), mask.shape[1]), np.float32)])
        base_count = len(by)
    log("fine-tuning %s on %d of your windows and %d of its own training sessions' (%d sessions), %d epochs"
        % (BASE_MODEL.relative_to(REPO), len(tuning_windows), base_count, base_sessions, args.epochs))
    tune_started = time.time()
    model, tuning = fine_tune(BASE_MODEL, x, y, mask, args.epochs, args.seed)
    tuning["seconds"] = round(time.time() - tune_started, 1)
    tuning["base_windows"] = {"windows": base_count, "sessions": base_sessions,
                              "dataset": base_card.get("data", {}).get("dataset")}
    log("fine-tune took %.1f s" % tuning["seconds"])

    model_path = (out / (STEM + ".h5")).resolve()
    model.save(str(model_path), include_optimizer=False)
    held_windows = personal.stack(sessions, held)
    reloaded = keras.models.load_model(str(model_path), compile=False)
    in_keras = keras_scores(reloaded, held_windows)
    if binary is not None:
        flat = held_windows.flattened("time-major")
        base_scores = engine_scores(binary, BASE_MODEL, flat)
        personal_scores = engine_scores(binary, model_path, flat)
        difference = float(np.max(np.abs(personal_scores - in_keras)))
        if difference > 1e-4:
            raise SystemExit("personalize: the Swift engine's scores of %s differ from Keras's by %.2g"
                             % (model_path, difference))
        scored_by = "HeadsUp's Swift engine (%s model predict); Keras agrees within %.1e" % (binary.name, difference)
    else:
        base_scores = keras_scores(keras.models.load_model(str(BASE_MODEL), compile=False), held_windows)
        personal_scores = in_keras
        scored_by = "Keras (no headsup binary: pass --headsup to score in the app's engine)"

    # The tuning sessions too, in Keras: how far the fine-tune moved the model on the walks it saw.
    base_model = keras.models.load_model(str(BASE_MODEL), compile=False)
    tuning_figures = {"base": personal.figures(sessions, tuning_windows, keras_scores(base_model, tuning_windows),
                                               threshold),
                      "personal": personal.figures(sessions, tuning_windows, keras_scores(reloaded, tuning_windows),
                                                   threshold)}
    report = {
        "format": "headsup-personal-report",
        "threshold": threshold,
        "scored_by": scored_by,
        "base": personal.figures(sessions, held_windows, base_scores, threshold),
        "personal": personal.figures(sessions, held_windows, personal_scores, threshold),
        "sessions": personal.session_rows(sessions, train, held),
        "notes": notes,
        "fine_tune_seconds": tuning["seconds"],
        "tuning_sessions": dict(tuning_figures, note="the sessions the personal model was tuned on, scored in Keras: "
                                                     "how well it fits them, not how well it generalizes"),
    }
    report["table"] = personal.comparison(report["base"], report["personal"])
    (out / "report.json").write_text(json.dumps(report, indent=2, default=float) + "\n")
    (out / "report.html").write_text(personal.html_report(report))
    card_path = out / (STEM + ".json")
    write_card(card_path, model_path, base_card, BASE_MODEL, sessions, train, held, report, tuning, args, started)
    if binary is not None:
        inspect(binary, model_path)   # the card beside it is read and checked against the file's sha256
    print(personal.text_table(report))
    print("\npersonal model: %s (card %s)\nreport: %s, %s"
          % (model_path, card_path, out / "report.html", out / "report.json"))
    config = args.config or personal.config_path()
    if args.install:
        install(binary, model_path, config)
    else:
        print("install it: python3 -m tools.training.personalize %s --install   (sets `model: %s` in %s; the card goes with it)"
              % (args.dir, model_path, config))


if __name__ == "__main__":
    main()
