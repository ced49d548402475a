"""The report from canned results: the JSON-ready dict and the printed table."""
import json
import unittest

from tools.bench import report
from tools.bench.tests import canned
from tools.bench.tests.canned import headsup_bench, peer_round


def headsup(median=20.0, batch=50_000, again=None):
    run = {"256": headsup_bench(median, batch), "1024": headsup_bench(median, batch * 0.95)}
    return {"binary": ".build/release/headsup", "version": "0.1.0",
            "binary_info": {"path": ".build/release/headsup", "built_utc": "2026-11-24T08:00:00Z",
                            "sources_newer_than_binary": []},
            "benches": run, "rounds": [run], "again": again}


def two_batches(result, scale=0.95):
    """A peer result with a 1024 figure next to its 256 one."""
    for row in result["rows"]:
        row["batch"]["1024"] = {"windows_per_s": row["batch"]["256"]["windows_per_s"] * scale}
    return result


def table_line(text, name):
    """The cells of the table's row for `name` (the table is the report's second block)."""
    lines = [line for line in text.split("\n\n")[1].splitlines() if line.startswith(name + " ")]
    assert len(lines) == 1, (name, lines)
    return lines[0].split()


class ReportTests(unittest.TestCase):
    def setUp(self):
        ort = two_batches(peer_round(64.0, 21_000))
        ort["rows"][0]["ops"] = ["LSTM", "MatMul"]
        litert = two_batches(peer_round(180.0, 5_400, name="LiteRT"))
        litert["rows"][0].update(agrees=False, max_abs_diff=9.5e-5, windows_over_tolerance=1, checked_windows=1024)
        keras = two_batches(peer_round(2_500.0, 18_000, name="tf.function"))
        keras["rows"].append({"name": "tf.function XLA", "runtime": "TensorFlow", "unavailable": "ValueError: no XLA"})
        keras["versions"] = {"tensorflow": "2.20.0"}
        keras["notes"] = ["Keras 3 loaded the .keras copy instead"]
        self.results = {"onnx-convert": {"ops": ["LSTM", "MatMul"], "opset": 17, "convert_ms": 800.0},
                        "ort": ort, "litert": litert, "keras": keras,
                        "keras3": {"error": "worker exited (1) without a result", "rows": []}}
        self.report = canned.build(report, headsup(again={"256": headsup_bench(21.0, 48_000)}), self.results,
                                   unavailable={"onnx2": "not asked"}, install_failures={"onnx==1": "no wheel"},
                                   batch_sizes=(256, 1024))
        self.text = report.format_report(self.report)

    def test_the_report_is_json(self):
        again = json.loads(json.dumps(self.report))
        self.assertEqual(again["targets"]["fastest_single_peer"], "ONNX Runtime")
        self.assertEqual(again["install_failures"], {"onnx==1": "no wheel"})
        self.assertEqual(again["conversions"]["onnx-convert"]["opset"], 17)

    def test_speedups_over_each_peer(self):
        rows = {row["name"]: row for row in self.report["peers"]}
        self.assertAlmostEqual(rows["ONNX Runtime"]["headsup_speedup_single"], 3.2)
        self.assertAlmostEqual(rows["LiteRT"]["headsup_speedup_batch"]["256"], 50_000 / 5_400)
        self.assertEqual(table_line(self.text, "ONNX")[:5], ["ONNX", "Runtime", "64.0", "100.0", "21,000"])
        self.assertEqual(table_line(self.text, "HeadsUp")[-4:], ["(reference)", "1.00", "1.00", "1.00"])

    def test_every_peer_is_a_row_and_the_unavailable_ones_say_why(self):
        names = [row["name"] for row in self.report["peers"]]
        self.assertEqual(names, ["ONNX Runtime", "LiteRT", "tf.function", "tf.function XLA", "Keras 3", "onnx2"])
        self.assertEqual(table_line(self.text, "tf.function XLA")[2:], ["unavailable"])
        self.assertIn("unavailable: tf.function XLA: ValueError: no XLA", self.text)
        self.assertIn("unavailable: Keras 3: worker exited (1) without a result", self.text)
        self.assertIn("unavailable: onnx2: not asked", self.text)

    def test_disagreement_notes_versions_and_ops(self):
        self.assertIn("DIFFERS in 1/1024", self.text)
        self.assertIn("outputs: 2 of 3 timed peers agree with `headsup model predict` to 1e-05 on all 1024 windows; "
                      "DIFFER: LiteRT", self.text)
        self.assertIn("note: Keras 3 loaded the .keras copy instead", self.text)
        self.assertIn("onnx-convert: opset 17, ops LSTM MatMul", self.text)
        self.assertIn("versions: python ", self.text)
        self.assertIn("tensorflow 2.20.0; HeadsUp 0.1.0 (.build/release/headsup)", self.text)

    def test_drift_check_and_targets(self):
        self.assertIn("HeadsUp again after the peers (drift check): single median 21.0 µs, p99 42.0 µs; "
                      "batch 256 48,000 windows/s", self.text)
        self.assertIn("  single-window median <= 50 µs: 20.0 µs  met", self.text)
        self.assertIn("  >= 3x faster than the fastest peer (ONNX Runtime): 3.20x  met", self.text)
        self.assertIn("  batch (256) >= 20,000 windows/s on one thread: 50,000  met", self.text)
        self.assertIn("  batch faster than every peer (all batch sizes): met", self.text)
        self.assertNotIn("per round", self.text, "one round: no per-round medians")

    def test_targets_not_met(self):
        slow = canned.build(report, headsup(median=60.0, batch=19_000),
                            {"ort": peer_round(64.0, 21_000)})
        text = report.format_report(slow)
        self.assertIn("  single-window median <= 50 µs: 60.0 µs  NOT met", text)
        self.assertIn("  >= 3x faster than the fastest peer (ONNX Runtime): 1.07x  NOT met", text)
        self.assertIn("  batch (256) >= 20,000 windows/s on one thread: 19,000  NOT met", text)
        self.assertIn("  batch faster than every peer (all batch sizes): NOT met", text)

    def test_without_peers_there_is_no_speed_up_target(self):
        text = report.format_report(canned.build(report, headsup(), {}))
        self.assertIsNone(canned.build(report, headsup(), {})["targets"]["fastest_single_peer"])
        self.assertNotIn("faster than the fastest peer", text)
        self.assertNotIn("batch faster than every peer", text)


if __name__ == "__main__":
    unittest.main()
