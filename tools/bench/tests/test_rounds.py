"""How the report keeps the best of several rounds (pure logic: no peers, no binary)."""
import unittest

from tools.bench import report
from tools.bench.tests import canned
from tools.bench.tests.canned import headsup_bench, peer_round


class BestRoundTests(unittest.TestCase):
    def test_keeps_the_lowest_single_median_and_every_rounds_figure(self):
        best = report.best_round([peer_round(95.0, 20_000), peer_round(62.0, 21_000, p99=90.0), peer_round(64.0, 23_000)])
        row = best["rows"][0]
        self.assertEqual(row["single"]["median_us"], 62.0)
        self.assertEqual(row["single"]["p99_us"], 90.0, "p99 comes from the same round as the median")
        self.assertEqual(row["single_rounds_us"], [95.0, 62.0, 64.0])
        self.assertEqual(row["batch"]["256"]["windows_per_s"], 23_000, "batch keeps its best round")
        self.assertEqual(best["rounds"], 3)

    def test_a_failed_round_is_skipped_and_a_peer_that_always_failed_keeps_its_error(self):
        failed = {"error": "worker exited (1) without a result", "rows": []}
        best = report.best_round([failed, peer_round(70.0, 20_000)])
        self.assertEqual(best["rows"][0]["single_rounds_us"], [70.0])
        self.assertEqual(report.best_round([failed, failed])["error"], failed["error"])

    def test_rows_without_timings_pass_through(self):
        unavailable = {"name": "LiteRT", "unavailable": "conversion failed"}
        one = peer_round(70.0, 20_000)
        one["rows"].append(unavailable)
        best = report.best_round([one, peer_round(60.0, 19_000)])
        self.assertEqual(best["rows"][0]["single"]["median_us"], 60.0)
        self.assertNotIn(unavailable, best["rows"], "the best round's rows are kept, not the other round's")


class HeadsUpRoundsTests(unittest.TestCase):
    def test_report_uses_headsups_best_round_and_compares_best_with_best(self):
        headsup = {"binary": "headsup", "version": "test",
                   "benches": {"256": headsup_bench(30.0, 40_000)},
                   "rounds": [{"256": headsup_bench(30.0, 40_000)}, {"256": headsup_bench(21.0, 39_000)},
                              {"256": headsup_bench(22.0, 45_000)}]}
        ort = report.best_round([peer_round(95.0, 20_000), peer_round(63.0, 21_000)])
        result = canned.build(report, headsup, {"ort": ort}, rounds=3)
        self.assertEqual(result["headsup"]["single"]["median_us"], 21.0)
        self.assertEqual(result["headsup"]["single_rounds_us"], [30.0, 21.0, 22.0])
        self.assertEqual(result["headsup"]["batch"]["256"]["windows_per_s"], 45_000)
        self.assertAlmostEqual(result["targets"]["single_speedup_vs_fastest_peer"], 3.0)
        self.assertTrue(result["targets"]["single_speedup_met"])
        self.assertIn("HeadsUp 30.0 21.0 22.0; ONNX Runtime 95.0 63.0", report.format_report(result))


if __name__ == "__main__":
    unittest.main()
