"""The shipped weights, run by HeadsUp's Swift engine, give the figures their
model cards state (numpy only: the windows come from `headsup dataset windows`, the
scores from `headsup model predict`, both through tools/training).

    python3 -m unittest discover -s tools/training/tests -t .

* weights/model.h5 (the shipped LSTM) and weights/cnn.h5: the test figures
  on their cards, in the Swift engine; model.h5 is an LSTM without
  convolutions (`headsup model inspect`).
* Every card's cross-validation figures agree with its held-out predictions
  file (weights/folds/<stem>-cv-predictions.csv), including the errors near
  session ends and in the steady state.
* weights/folds/folds.json: the LSTM's CV fold models (one per
  carry-positions walker, each also holding out a share of phone-motion-v1's
  session folds), each < 500 KB, holding out the card's folds; each fold
  model, run by the engine on every 8th of its held-out windows, gives the
  scores in the predictions file. The carry walks are read from
  ../shared/datasets/carry-positions-v1 (HEADSUP_CARRY_DATASET), never from
  the repository.
* The card says what the model was trained on (both data sets, the carry
  set's CC BY 4.0 credit, positions, phones, channels) and its per-position
  walker-held-out figures, as the predictions file gives them.

Environment: HEADSUP_BIN as in test_windows_match_swift.py;
HEADSUP_TEST_SEED_MODEL=1 also checks weights/seed.h5 in the engine;
HEADSUP_TEST_ALL_FOLDS=1 runs the fold models on all their held-out windows.
"""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import numpy as np

from tools import tune_decision
from tools.training import carry, engine, invariance
from tools.training import evaluation as ev
from tools.training import dataset
from tools.training.tests.test_windows_match_swift import DATASET, REPO, required_binary

HERE = Path(__file__).resolve().parent

WEIGHTS = REPO / "weights"
STEMS = ("model", "cnn", "seed")
# Not in the repository: beside it, as CI has shared/ beside its clone.
CARRY_DATASET = Path(os.environ.get("HEADSUP_CARRY_DATASET", REPO.parent / "shared" / "datasets" / "carry-positions-v1"))


# The walker-held-out CV of the shipped model as it was measured: a
# retrained model must not fall below it. 2026-11-28 (both sets): 0.9767 /
# 0.9933. 2026-11-29 (issue 41, calibration- and pose-invariant: the
# magnetometer not read, sensor biases, synthesised looked-at poses): 0.9717
# / 0.9883, the price of finding the hands in more poses and of holding
# under an accelerometer bias (held out at -0.05 g: -0.005 against the
# previous model's -0.017); docs/notes/2026-11-29-invariant-model.md.
# Later that day (upright poses taught where the gyroscope was measured,
# with synthesised ear negatives): 0.9686 / 0.9870, the price of finding a
# phone held upright (0 -> 90 % of held-out gyroscope windows turned
# upright) without the ear (0 %): the purse 18.3 -> 21.6 %;
# docs/notes/2026-11-29-upright-poses.md.
CV_ACCURACY = 0.968
CV_AUC = 0.987
# The synthesised looked-at poses with a gyroscope (upright included) and
# the ear, held out (2026-11-29, docs/notes/2026-11-29-upright-poses.md).
UPRIGHT_FOUND = 0.80
EAR_CALLED = 0.05


def carry_windows(name):
    """A carry walk's windows at hop 25, read as tools/training/carry.py reads them."""
    path = CARRY_DATASET / "sessions" / (name + ".csv")
    if not path.exists():
        message = "no carry-positions walk at %s (the shipped model's folds hold it out; set HEADSUP_CARRY_DATASET)" % path
        if os.environ.get("HEADSUP_ALLOW_SKIP") == "1":
            raise unittest.SkipTest(message)
        raise AssertionError(message)
    return dataset.session_windows(str(path), hop=25)


def load_card(stem):
    return json.loads((WEIGHTS / (stem + ".json")).read_text())


read_predictions = ev.read_predictions


class Engine:
    binary = None

    @classmethod
    def require_binary(cls):
        cls.binary = required_binary()

    @classmethod
    def predict(cls, model_path, flat):
        return engine.predict(cls.binary, model_path, flat)


class ShippedModel(Engine, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.require_binary()
        cls.manifest = dataset.load_manifest(str(DATASET))

    def check(self, stem):
        card = load_card(stem)
        self.assertEqual(card["model"]["file"], stem + ".h5")
        contract = card["input"]
        self.assertEqual((contract["rate_hz"], contract["window"], contract["hop"]), (50, 50, 25))
        self.assertEqual(contract["channels"], list(dataset.CHANNELS))
        threshold = card["decision"]["threshold"]
        test = [s for s in self.manifest["sessions"] if s["split"] == "test"]
        self.assertEqual(sorted(s["name"] for s in test), sorted(card["test"]["per_session"]))
        windows = dataset.concat([dataset.session_windows(s["path"], hop=contract["hop"]) for s in test])
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

    def test_lstm_meets_the_shipping_bar(self):
        """The bar the both-sets model shipped on (issue 31): >= 0.98 on the
        reserved test sessions; its walker-held-out CV as it was measured."""
        card = load_card("model")
        self.assertGreaterEqual(card["test"]["pooled"]["accuracy"], 0.98)
        self.assertGreaterEqual(card["cross_validation"]["pooled"]["accuracy"], CV_ACCURACY)
        self.assertGreaterEqual(card["cross_validation"]["pooled"]["roc_auc"], CV_AUC)

    def test_upright_poses_are_found_with_a_gyroscope_and_the_ear_is_not(self):
        """Issue 41's looked-at poses, on the card's synthesised rows (the
        engine test below checks them): with a gyroscope, the held-out hands
        turned upright (portrait and landscape) are found, and turned to
        the ear are not; without one, upright is not taught (an armband
        holds the phone upright too), so the texting range must still be."""
        card = load_card("model")
        rows = {(r["position"], r["pose"]): r["called_distracted_at_threshold"]
                for r in card["cross_validation"]["by_position"]["rows"] if r["source"] == "synthesised"}
        for pose in ("pitch 30", "pitch 45", "pitch 60", "pitch 75", "upright", "landscape, upright"):
            self.assertGreaterEqual(rows[("hands", pose + ", gyroscope")], UPRIGHT_FOUND, pose)
        for pose in ("pitch 30", "pitch 45"):
            self.assertGreaterEqual(rows[("hands", pose + ", accelerometer only")], 0.95, pose)
        for sensors in invariance.SENSOR_SETS:
            for ear in ("right ear", "left ear"):
                self.assertLessEqual(rows[("at the ear", "%s, %s" % (ear, sensors))], EAR_CALLED, ear)

    def test_card_says_what_it_was_trained_on(self):
        card = load_card("model")
        trained = card["trained_on"]
        sets = {d["name"]: d for d in trained["data_sets"]}
        self.assertEqual(sorted(sets), ["carry-positions-v1", "phone-motion-v1"])
        self.assertIn("CC BY 4.0", sets["carry-positions-v1"]["license"])
        self.assertIn("Oxford step-counter", sets["carry-positions-v1"]["credit"])
        self.assertEqual(sets["carry-positions-v1"]["channels"], ["acc"])
        self.assertEqual(set(trained["positions"]),
                         {"hands", "pocket", "purse", "armband", "neck-pouch", "swinging-arm"})
        self.assertIn("feed 0", trained["channels"]["missing"])
        training = {s["name"] for s in card["data"]["training_sessions"]}
        self.assertEqual(sum(d["training_sessions"] for d in trained["data_sets"]), len(training))

    def test_per_position_figures_come_from_the_predictions(self):
        """The card's per-position shares (walker-held-out CV, at 0.5 and at
        the shipped threshold) are what its predictions file gives."""
        card = load_card("model")
        figures = card["cross_validation"]["by_position"]
        threshold = card["decision"]["threshold"]
        self.assertEqual(figures["threshold"], threshold)
        p = read_predictions(WEIGHTS / card["cross_validation"]["predictions"])
        manifest = {s["name"] for s in dataset.load_manifest(str(DATASET))["sessions"]}
        groups = np.array(["hands" if y == 1 else "pocket (phone-motion-v1)" if n in manifest else carry.parse_name(n)[3]
                           for n, y in zip(p["session"], p["label"])])
        for name, stated in figures["positions"].items():
            m = groups == name
            self.assertEqual(int(m.sum()), stated["windows"], name)
            self.assertAlmostEqual(float((p["score"][m] >= 0.5).mean()), stated["called_distracted_at_0.5"], places=4)
            self.assertAlmostEqual(float((p["score"][m] >= threshold).mean()), stated["called_distracted_at_threshold"],
                                   places=4)
        # The pose column: the recorded rows split each position by the pose its file names say.
        poses = np.array(["texting" if y == 1 else "as carried" if n in manifest
                          else carry.POSES.get(n.split("_")[3], "as carried") for n, y in zip(p["session"], p["label"])])
        for row in figures.get("rows", []):
            if row["source"] != "recorded":
                continue
            m = (groups == row["position"]) & (poses == row["pose"])
            self.assertEqual(int(m.sum()), row["windows"], row)
            self.assertAlmostEqual(float((p["score"][m] >= threshold).mean()), row["called_distracted_at_threshold"],
                                   places=4)


class DecisionValues(Engine, unittest.TestCase):
    """The card's hop, smoothing and minimum duration are what
    tools/tune_decision.py chooses on the training folds today."""

    def test_card_holds_the_tuned_values(self):
        self.require_binary()
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "sweep.json"
            subprocess.run([str(self.binary), "evaluate", "--folds", str(WEIGHTS / "folds" / "folds.json"), "--split", "train",
                            "--sweep", "--json", str(out)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            row = tune_decision.choose(json.loads(out.read_text())["sweep"])
        decision = load_card("model")["decision"]
        self.assertEqual(decision["hop"], row["candidate"]["hop"])
        self.assertAlmostEqual(decision["time_constant"], row["candidate"]["timeConstant"])
        self.assertAlmostEqual(decision["minimum_duration"], row["candidate"]["minimumDuration"])
        self.assertEqual(decision["tuning"]["steady_false_episodes"], row["steadyFalseEpisodes"])
        self.assertEqual(decision["tuning"]["false_episodes_before_joint"], row["splices"]["falseEpisodes"])
        # Issue 31's target is 1.0 s; the both-sets model's calmest candidates reached 1.48 s, the
        # invariant model's (2026-11-29) 2.18 s (not met; the note shows the trade-off).
        self.assertLessEqual(decision["tuning"]["spliced_median_seconds"], 2.2)


class FoldModels(Engine, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.index = json.loads((WEIGHTS / "folds" / "folds.json").read_text())

    def test_index(self):
        card = load_card("model")
        folds = self.index["folds"]
        # One fold per carry-positions walker (each with a share of phone-motion-v1's session folds).
        self.assertEqual(len(folds), len(card["trained_on"]["data_sets"][1]["walkers"]))
        self.assertEqual([f["held_out"] for f in folds], [f["held_out"] for f in card["cross_validation"]["folds"]])
        held = [n for f in folds for n in f["held_out"]]
        every = {s["name"] for s in card["data"]["training_sessions"] + card["data"]["test_sessions"]}
        self.assertEqual(len(held), len(every))
        self.assertEqual(set(held), every)
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
        manifest = {s["name"]: s for s in dataset.load_manifest(str(DATASET))["sessions"]}
        for k, fold in enumerate(self.index["folds"]):
            with self.subTest(fold=k):
                windows = dataset.concat([dataset.session_windows(manifest[n]["path"], hop=25) if n in manifest else carry_windows(n)
                                     for n in fold["held_out"]])
                m = p["fold"] == k
                self.assertEqual(list(p["session"][m]), list(windows.sessions))
                np.testing.assert_allclose(p["start_time"][m], windows.start_times, atol=1e-6)
                chosen = np.arange(0, len(windows), stride)
                scores = self.predict(WEIGHTS / "folds" / fold["file"], windows.flattened("time-major")[chosen])
                np.testing.assert_allclose(scores, p["score"][m][chosen], atol=1e-5)

    def test_engine_reproduces_the_synthesised_pose_rows(self):
        """The card's synthesised pose rows: each fold model, run by the
        engine on its held-out hands windows turned into each pose
        (invariance.held_out_poses), calls the share the card says distracted.
        Every 8th window (within 0.05: a sample's spread); all of them
        (within 0.001) with HEADSUP_TEST_ALL_FOLDS=1."""
        self.require_binary()
        every = os.environ.get("HEADSUP_TEST_ALL_FOLDS") == "1"
        stride, tolerance = (1, 0.001) if every else (8, 0.05)
        card = load_card("model")
        threshold = card["decision"]["threshold"]
        rows = {(r["position"], r["pose"]): r for r in card["cross_validation"]["by_position"]["rows"]
                if r["source"] == "synthesised"}
        self.assertEqual(set(rows), invariance.synthesised_row_names())
        manifest = {s["name"]: s for s in dataset.load_manifest(str(DATASET))["sessions"]}
        called = {pose: [] for pose in rows}
        for fold in self.index["folds"]:
            windows = dataset.concat([dataset.session_windows(manifest[n]["path"], hop=25) if n in manifest else carry_windows(n)
                                      for n in fold["held_out"]])
            hands = windows.values[windows.labels >= 0.5][::stride]
            for pose, turned in invariance.synthesised_rows(hands).items():
                fed = invariance.feed(turned, card["input"].get("feed")).reshape(len(turned), -1)
                called[pose].append(self.predict(WEIGHTS / "folds" / fold["file"], fed) >= threshold)
        for pose, row in rows.items():
            share = float(np.concatenate(called[pose]).mean())
            self.assertAlmostEqual(share, row["called_distracted_at_threshold"], delta=tolerance, msg=pose)

if __name__ == "__main__":
    unittest.main()
