"""The shipped model does not move with a phone's calibration (issue 41):
`headsup evaluate --perturb calibration` reads phone-motion-v1's reserved
test sessions as phones with a magnetometer hard-iron offset (+-600 uT on
every axis, -590 uT on x as the hidden phone A), a magnetometer gain (0.5,
2), an accelerometer bias (+-0.05 g) and a gyroscope bias (+-0.05 rad/s),
through the live pipeline with the card's values, and each must keep the
window accuracy within 0.005 of the clean reading.

    HEADSUP_BIN=/path/to/release/headsup python3 -m unittest tools/training/tests/test_calibration_invariance.py

Needs a headsup binary (HEADSUP_BIN, as test_shipped_model.py; skipped only
with HEADSUP_ALLOW_SKIP=1).
"""
import json
import subprocess
import tempfile
import unittest
from pathlib import Path

from tools.training.tests.test_windows_match_swift import DATASET, REPO, required_binary

HERE = Path(__file__).resolve().parent

WEIGHTS = REPO / "weights"
MAXIMUM_LOSS = 0.005
CALIBRATION = ["mag-offset=600", "mag-offset=-600", "mag-offset=-590:0:0", "mag-gain=0.5", "mag-gain=2",
               "acc-bias=0.05", "acc-bias=-0.05", "gyro-bias=0.05", "gyro-bias=-0.05"]


def evaluate_perturbed(binary, model, perturb):
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        subprocess.run([str(binary), "evaluate", "--model", str(model), "--manifest", str(DATASET / "manifest.json"),
                        "--perturb", perturb, "--json", str(out)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, cwd=str(REPO))
        return json.loads(out.read_text())


class CalibrationInvariance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = required_binary()
        cls.report = evaluate_perturbed(cls.binary, WEIGHTS / "model.h5", "calibration")

    def test_every_calibration_perturbation_was_read(self):
        rows = self.report["robustness"]["rows"]
        self.assertEqual(rows[0]["perturbation"], "clean")
        self.assertEqual([r["perturbation"] for r in rows[1:]], CALIBRATION)
        self.assertTrue(all(r["calibration"] for r in rows[1:]))
        self.assertTrue(all(r["windows"] == rows[0]["windows"] > 900 for r in rows))

    def test_the_shipped_model_keeps_its_accuracy_under_each(self):
        rows = self.report["robustness"]["rows"]
        clean = rows[0]["accuracy"]
        for r in rows[1:]:
            with self.subTest(perturbation=r["perturbation"]):
                self.assertGreaterEqual(r["accuracy"], clean - MAXIMUM_LOSS,
                                        "%s: accuracy %.4f against %.4f clean" % (r["perturbation"], r["accuracy"], clean))

    def test_the_card_says_what_the_runtime_feeds(self):
        card = json.loads((WEIGHTS / "model.json").read_text())
        feed = card["input"].get("feed")
        self.assertIsNotNone(feed, "the shipped card must say what the runtime feeds (input.feed)")
        self.assertEqual(feed.get("magnetometer"), "zero")
        self.assertEqual(feed.get("accelerometer"), "measured")


if __name__ == "__main__":
    unittest.main()
