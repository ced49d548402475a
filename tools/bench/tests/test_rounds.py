"""How run_bench.py keeps the best of several rounds (pure logic: no peers, no binary)."""
import sys
import types
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import run_bench  # noqa: E402


def peer_round(median, batch, p99=100.0, name="ONNX Runtime"):
    return {"rows": [{"name": name, "single": {"median_us": median, "p99_us": p99, "cpu_per_wall": 1.0},
                      "batch": {"256": {"windows_per_s": batch}}, "load_ms": 5.0,
                      "max_abs_diff": 3e-7, "agrees": True}], "versions": {}, "notes": []}


def headsup_bench(median, batch):
    return {"single_median_us": median, "single_p99_us": 2 * median, "load_ms": 3.0,
            "batch_windows_per_s_1_thread": batch, "batch_windows_per_s_all_cores": 2 * batch,
            "peak_multiply_adds_per_s": 1e11, "multiply_adds_per_window": 1_595_100,
            "single_fraction_of_peak": 0.7, "batch_fraction_of_peak": 0.7}


class BestRoundTests(unittest.TestCase):
    def test_keeps_the_lowest_single_median_and_every_rounds_figure(self):
        best = run_bench.best_round([peer_round(95.0, 20_000), peer_round(62.0, 21_000, p99=90.0), peer_round(64.0, 23_000)])
        row = best["rows"][0]
        self.assertEqual(row["single"]["median_us"], 62.0)
        self.assertEqual(row["single"]["p99_us"], 90.0, "p99 comes from the same round as the median")
        self.assertEqual(row["single_rounds_us"], [95.0, 62.0, 64.0])
        self.assertEqual(row["batch"]["256"]["windows_per_s"], 23_000, "batch keeps its best round")
        self.assertEqual(best["rounds"], 3)

    def test_a_failed_round_is_skipped_and_a_peer_that_always_failed_keeps_its_error(self):
        failed = {"error": "worker exited (1) without a result", "rows": []}
        best = run_bench.best_round([failed, peer_round(70.0, 20_000)])
        self.assertEqual(best["rows"][0]["single_rounds_us"], [70.0])
        self.assertEqual(run_bench.best_round([failed, failed])["error"], failed["error"])

    def test_rows_without_timings_pass_through(self):
        unavailable = {"name": "LiteRT", "unavailable": "conversion failed"}
        one = peer_round(70.0, 20_000)
        one["rows"].append(unavailable)
        best = run_bench.best_round([one, peer_round(60.0, 19_000)])
        self.assertEqual(best["rows"][0]["single"]["median_us"], 60.0)
        self.assertNotIn(unavailable, best["rows"], "the best round's rows are kept, not the other round's")


class HeadsUpRoundsTests(unittest.TestCase):
    def test_report_uses_headsups_best_round_and_compares_best_with_best(self):
        args = types.SimpleNamespace(batch_sizes=[256], headsup_iterations=5000, iterations=2000, slow_iterations=1000,
                                     batch_seconds=1.0, quick=False, rounds=3, count=1024, out_dir="/tmp")
        headsup = {"binary": "headsup", "version": "test",
                   "benches": {"256": headsup_bench(30.0, 40_000)},
                   "rounds": [{"256": headsup_bench(30.0, 40_000)}, {"256": headsup_bench(21.0, 39_000)},
                              {"256": headsup_bench(22.0, 45_000)}]}
        ort = run_bench.best_round([peer_round(95.0, 20_000), peer_round(63.0, 21_000)])
        report = run_bench.build_report(args, Path("/tmp/model.h5"), "tf_keras", "test", 450,
                                        {"after": [0, 0, 0], "waited_s": 0, "threshold": 0.5, "reached": True}, [],
                                        [0, 0, 0], headsup, {"ort": ort}, {}, {}, 1.0)
        self.assertEqual(report["headsup"]["single"]["median_us"], 21.0)
        self.assertEqual(report["headsup"]["single_rounds_us"], [30.0, 21.0, 22.0])
        self.assertEqual(report["headsup"]["batch"]["256"]["windows_per_s"], 45_000)
        self.assertAlmostEqual(report["targets"]["single_speedup_vs_fastest_peer"], 3.0)
        self.assertTrue(report["targets"]["single_speedup_met"])
        self.assertIn("HeadsUp 30.0 21.0 22.0; ONNX Runtime 95.0 63.0", run_bench.format_report(report))


if __name__ == "__main__":
    unittest.main()
