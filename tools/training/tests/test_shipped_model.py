"""The shipped weights, run by HeadsUp's Swift engine, give the figures their
model card states (numpy only: the windows come from headsup_data.py, the
scores from `headsup model predict`).

    python3 -m unittest discover -s tools/training/tests

Environment: HEADSUP_BIN as in test_windows_match_swift.py;
HEADSUP_TEST_SEED_MODEL=1 also checks weights/seed.h5 (slower in a debug
build: two LSTMs).
"""
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


class ShippedModel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = headsup_binary()
        if not cls.binary.exists():
            message = "no headsup binary at %s (set HEADSUP_BIN)" % cls.binary
            if os.environ.get("HEADSUP_ALLOW_SKIP") == "1":
                raise unittest.SkipTest(message)
            raise AssertionError(message)
        cls.manifest = hd.load_manifest(str(DATASET))

    def check(self, stem):
        card = json.loads((WEIGHTS / (stem + ".json")).read_text())
        contract = card["input"]
        self.assertEqual((contract["rate_hz"], contract["window"], contract["hop"]), (50, 50, 25))
        self.assertEqual(contract["channels"], list(hd.CHANNELS))
        threshold = card["decision"]["threshold"]
        test = [s for s in self.manifest["sessions"] if s["split"] == "test"]
        self.assertEqual(sorted(s["name"] for s in test), sorted(card["test"]["per_session"]))
        windows = hd.concat([hd.session_windows(s["path"], hop=contract["hop"]) for s in test])
        flat = windows.flattened(contract["layout"])
        self.assertEqual(list(flat.shape[1:]), [int(np.prod(contract["shape"]))])
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            for row in flat:
                f.write(",".join("%.9g" % v for v in row) + "\n")
            inputs = f.name
        try:
            done = subprocess.run([str(self.binary), "model", "predict", "--model", str(WEIGHTS / (stem + ".h5")),
                                   inputs], stdout=subprocess.PIPE, check=True)
        finally:
            os.unlink(inputs)
        scores = np.array(done.stdout.decode().split(), dtype=np.float64)
        self.assertEqual(len(scores), len(windows))
        pooled, per_session = ev.summarize(windows.sessions, windows.labels, scores, windows.start_times, threshold)
        stated = card["test"]
        # a score within float rounding of the threshold could flip: allow one window
        self.assertLessEqual(abs(pooled["accuracy"] - stated["pooled"]["accuracy"]), 1.0 / len(scores) + 1e-4)
        self.assertAlmostEqual(pooled["roc_auc"], stated["pooled"]["roc_auc"], delta=1e-3)
        for name, figures in per_session.items():
            self.assertLessEqual(abs(figures["errors"] - stated["per_session"][name]["errors"]), 1, name)
        return pooled

    def test_model(self):
        pooled = self.check("model")
        self.assertGreaterEqual(pooled["accuracy"], 0.97)

    @unittest.skipUnless(os.environ.get("HEADSUP_TEST_SEED_MODEL") == "1", "HEADSUP_TEST_SEED_MODEL=1 to check seed.h5")
    def test_seed(self):
        self.check("seed")


if __name__ == "__main__":
    unittest.main()
