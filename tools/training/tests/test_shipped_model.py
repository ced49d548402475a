"""The shipped weights, run by HeadsUp's Swift engine, give the figures their
model cards state (numpy only: the windows come from headsup_data.py, the
scores from `headsup model predict`).

    python3 -m unittest discover -s tools/training/tests

* weights/model.h5 (the shipped LSTM) and weights/cnn.h5: the test figures
  on their cards, in the Swift engine; model.h5 is an LSTM without
  convolutions (`headsup model inspect`).
* Every card's cross-validation figures agree with its held-out predictions
  file (weights/folds/<stem>-cv-predictions.csv), including the errors near
  session ends and in the steady state.
* weights/folds/folds.json: the LSTM's six CV fold models, each < 500 KB,
  holding out the card's folds; each fold model, run by the engine on
  every 8th of its held-out windows, gives the scores in the predictions
  file.

Environment: HEADSUP_BIN as in test_windows_match_swift.py;
HEADSUP_TEST_SEED_MODEL=1 also checks weights/seed.h5 in the engine;
HEADSUP_TEST_ALL_FOLDS=1 runs the fold models on all their held-out windows.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import evaluation as ev  # noqa: E402
import headsup_data as hd  # noqa: E402
from test_windows_match_swift import DATASET, REPO, headsup_binary  # noqa: E402

WEIGHTS = REPO / "weights"
STEMS = ("model", "cnn", "seed")


def load_card(stem):
    return json.loads((WEIGHTS / (stem + ".json")).read_text())


def read_predictions(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {"session": np.array([r["session"] for r in rows]),
            "fold": np.array([int(r["fold"]) for r in rows]),
            "start_time": np.array([float(r["start_time"]) for r in rows]),
            "label": np.array([int(r["label"]) for r in rows]),
            "score": np.array([float(r["score"]) for r in rows])}


class Engine:
    binary = None

    @classmethod
    def require_binary(cls):
        cls.binary = headsup_binary()
        if not cls.binary.exists():
            message = "no headsup binary at %s (set HEADSUP_BIN)" % cls.binary
            if os.environ.get("HEADSUP_ALLOW_SKIP") == "1":
                raise unittest.SkipTest(message)
            raise AssertionError(message)

    @classmethod
    def predict(cls, model_path, flat):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            for row in flat:
                f.write(",".join("%.9g" % v for v in row) + "\n")
            inputs = f.name
        try:
            done = subprocess.run([str(cls.binary), "model", "predict", "--model", str(model_path), inputs],
                                  stdout=subprocess.PIPE, check=True)
        finally:
            os.unlink(inputs)
        return np.array(done.stdout.decode().split(), dtype=np.float64)


class ShippedModel(Engine, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.require_binary()
        cls.manifest = hd.load_manifest(str(DATASET))

    def check(self, stem):
        card = load_card(stem)
        self.assertEqual(card["model"]["file"], stem + ".h5")
        contract = card["input"]
        self.assertEqual((contract["rate_hz"], contract["window"], contract["hop"]), (50, 50, 25))
        self.assertEqual(contract["channels"], list(hd.CHANNELS))
        threshold = card["decision"]["threshold"]
        test = [s for s in self.manifest["sessions"] if s["split"] == "test"]
        self.assertEqual(sorted(s["name"] for s in test), sorted(card["test"]["per_session"]))
        windows = hd.concat([hd.session_windows(s["path"], hop=contract["hop"]) for s in test])
        flat = windows.flattened(contract["layout"])
        self.assertEqual(list(flat.shape[1:]), [int(np.prod(contract["shape"]))])
        scores = self.predict(WEIGHTS / (stem + ".h5"), flat)
        self.assertEqual(len(scores), len(windows))
        pooled, per_session = ev.summarize(windows.sessions, windows.labels, scores, windows.start_times, threshold)
        stated = card["test"]
        # a score within float rounding of the threshold could flip: allow one window
        self.assertLessEqual(abs(pooled["accuracy"] - stated["pooled"]["accuracy"]), 1.0 / len(scores) + 1e-4)
        self.assertAlmostEqual(pooled["roc_auc"], stated["pooled"]["roc_auc"], delta=1e-3)
        for name, figures in per_session.items():
            self.assertLessEqual(abs(figures["errors"] - stated["per_session"][name]["errors"]), 1, name)
        return pooled

    def test_model_is_an_lstm(self):
        card = load_card("model")
        self.assertEqual(card["model"]["kind"], "LSTM")
        classes = [layer["class"] for layer in card["model"]["layers"]]
        self.assertIn("LSTM", classes)
        self.assertTrue(set(classes) <= {"Normalization", "LSTM", "Dropout", "Dense"}, classes)
        shown = subprocess.run([str(self.binary), "model", "inspect", str(WEIGHTS / "model.h5")],
                               stdout=subprocess.PIPE, check=True).stdout.decode()
        self.assertIn("(LSTM)", shown)
        self.assertNotIn("Conv", shown)

    def test_model(self):
        pooled = self.check("model")
        self.assertGreaterEqual(pooled["accuracy"], 0.984)

    def test_cnn(self):
        pooled = self.check("cnn")
        self.assertGreaterEqual(pooled["accuracy"], 0.97)

    @unittest.skipUnless(os.environ.get("HEADSUP_TEST_SEED_MODEL") == "1", "HEADSUP_TEST_SEED_MODEL=1 to check seed.h5")
    def test_seed(self):
        self.check("seed")


class CrossValidationFigures(unittest.TestCase):
    """The cards' CV figures come from the predictions files beside them (numpy only)."""

    def test_cards_match_predictions(self):
        for stem in STEMS:
            with self.subTest(stem):
                cv = load_card(stem)["cross_validation"]
                p = read_predictions(WEIGHTS / cv["predictions"])
                self.assertEqual(len(p["score"]), cv["pooled"]["windows"])
                pooled, per_session = ev.summarize(p["session"], p["label"], p["score"], p["start_time"], 0.5)
                for key in ("accuracy", "roc_auc", "errors", "errors_at_edges", "errors_steady_state"):
                    self.assertEqual(pooled[key], cv["pooled"][key], key)
                self.assertEqual(pooled["errors"], pooled["errors_at_edges"] + pooled["errors_steady_state"])
                for name, figures in per_session.items():
                    self.assertEqual(figures["errors"], cv["per_session"][name]["errors"], name)
                # each session scored by the one fold that held it out
                for k, fold in enumerate(cv["folds"]):
                    self.assertEqual(sorted(set(p["session"][p["fold"] == k])), sorted(fold["held_out"]))

    def test_lstm_meets_the_targets(self):
        card = load_card("model")
        self.assertGreaterEqual(card["cross_validation"]["pooled"]["accuracy"], 0.994)
        self.assertGreaterEqual(card["cross_validation"]["pooled"]["roc_auc"], 0.997)
        self.assertGreaterEqual(card["test"]["pooled"]["accuracy"], 0.984)


class DecisionValues(Engine, unittest.TestCase):
    """The card's hop, smoothing and minimum duration are what
    tools/tune_decision.py chooses on the training folds today."""

    def test_card_holds_the_tuned_values(self):
        self.require_binary()
        sys.path.insert(0, str(REPO / "tools"))
        import tune_decision
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "sweep.json"
            subprocess.run([str(self.binary), "evaluate", "--folds", str(WEIGHTS / "folds" / "folds.json"), "--split", "train",
                            "--sweep", "--json", str(out)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            row = tune_decision.choose(json.loads(out.read_text())["sweep"])
        decision = load_card("model")["decision"]
        self.assertEqual(decision["hop"], row["candidate"]["hop"])
        self.assertAlmostEqual(decision["time_constant"], row["candidate"]["timeConstant"])
        self.assertAlmostEqual(decision["minimum_duration"], row["candidate"]["minimumDuration"])
        self.assertEqual(decision["tuning"]["steady_false_episodes"], 0)
        self.assertLessEqual(decision["tuning"]["spliced_median_seconds"], 1.0)


class FoldModels(Engine, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.index = json.loads((WEIGHTS / "folds" / "folds.json").read_text())

    def test_index(self):
        card = load_card("model")
        folds = self.index["folds"]
        self.assertEqual(len(folds), 6)
        self.assertEqual([f["held_out"] for f in folds], [f["held_out"] for f in card["cross_validation"]["folds"]])
        held = [n for f in folds for n in f["held_out"]]
        self.assertEqual(len(held), 18)
        self.assertEqual(len(set(held)), 18)
        self.assertEqual(self.index["threshold"], card["decision"]["threshold"])
        for f in folds:
            size = (WEIGHTS / "folds" / f["file"]).stat().st_size
            self.assertEqual(size, f["bytes"])
            self.assertLess(size, 500_000, f["file"])

    def test_engine_reproduces_predictions(self):
        """Each fold model, run by the engine on every 8th of its held-out
        windows (all of them with HEADSUP_TEST_ALL_FOLDS=1), gives the scores
        in the predictions file."""
        self.require_binary()
        stride = 1 if os.environ.get("HEADSUP_TEST_ALL_FOLDS") == "1" else 8
        p = read_predictions(WEIGHTS / self.index["predictions"])
        manifest = {s["name"]: s for s in hd.load_manifest(str(DATASET))["sessions"]}
        for k, fold in enumerate(self.index["folds"]):
            with self.subTest(fold=k):
                windows = hd.concat([hd.session_windows(manifest[n]["path"], hop=25) for n in fold["held_out"]])
                m = p["fold"] == k
                self.assertEqual(list(p["session"][m]), list(windows.sessions))
                np.testing.assert_allclose(p["start_time"][m], windows.start_times, atol=1e-6)
                chosen = np.arange(0, len(windows), stride)
                scores = self.predict(WEIGHTS / "folds" / fold["file"], windows.flattened("time-major")[chosen])
                np.testing.assert_allclose(scores, p["score"][m][chosen], atol=1e-5)

if __name__ == "__main__":
    unittest.main()
