"""The report with --kernels: one HeadsUp row per kernel level, each level's
ratios against every peer, and the header's CPU, kernel release and levels."""
import json
import unittest

from tools.bench import report
from tools.bench.tests import canned
from tools.bench.tests.canned import headsup_bench, headsup_levels, peer_round


def header(text):
    """The report's first block (before the table)."""
    return text.split("\n\n")[0]


def table_lines(text, block, name):
    lines = [line for line in text.split("\n\n")[block].splitlines() if line.startswith(name + " ")]
    assert len(lines) == 1, (name, lines)
    return lines[0].split()


class KernelLevelReportTests(unittest.TestCase):
    def setUp(self):
        self.headsup = headsup_levels({"avx512": [(22.0, 48_000), (20.0, 50_000)],
                                       "avx2": [(26.0, 36_000), (27.0, 37_000)],
                                       "baseline": [(70.0, 12_000), (72.0, 11_000)]})
        self.headsup["again"] = {"256": headsup_bench(21.0, 49_000)}
        ort = report.best_round([peer_round(66.0, 21_000), peer_round(64.0, 22_000)])
        self.results = {"ort": ort, "litert": peer_round(180.0, 5_400, name="LiteRT")}
        self.report = canned.build(report, self.headsup, self.results, rounds=2)
        self.text = report.format_report(self.report)

    def test_one_headsup_row_per_level_in_the_json(self):
        again = json.loads(json.dumps(self.report))
        rows = again["headsup_levels"]
        self.assertEqual([row["name"] for row in rows], ["HeadsUp (avx512)", "HeadsUp (avx2)", "HeadsUp (baseline)"])
        self.assertEqual([row["kernel_level"] for row in rows], ["avx512", "avx2", "baseline"])
        self.assertTrue(all(row["kernels_forced"] for row in rows))
        self.assertEqual(again["headsup"]["kernel_level"], "avx512", "the best level is the headline row")
        self.assertEqual(again["kernel_levels"], {"requested": "all", "supported": ["avx512", "avx2", "baseline"],
                                                  "automatic": "avx512", "measured": ["avx512", "avx2", "baseline"]})
        self.assertEqual(sorted(again["headsup_bench_json_by_level"]), ["avx2", "avx512", "baseline"])
        self.assertEqual([p["name"] for p in again["peers"]], ["ONNX Runtime", "LiteRT"], "levels are not peers")

    def test_each_level_keeps_its_best_round(self):
        rows = {row["kernel_level"]: row for row in self.report["headsup_levels"]}
        self.assertEqual(rows["avx512"]["single"]["median_us"], 20.0)
        self.assertEqual(rows["avx2"]["single_rounds_us"], [26.0, 27.0])
        self.assertEqual(rows["avx2"]["batch"]["256"]["windows_per_s"], 37_000)
        self.assertEqual(rows["baseline"]["peak_multiply_adds_per_s"], 2.5e10, "each level's own peak")

    def test_each_levels_ratios_against_each_peer(self):
        rows = {row["kernel_level"]: row for row in self.report["headsup_levels"]}
        ort = rows["avx2"]["speedup_over_peers"]["ONNX Runtime"]
        self.assertAlmostEqual(ort["single"], 64.0 / 26.0)
        self.assertAlmostEqual(ort["batch"]["256"], 37_000 / 22_000)
        self.assertAlmostEqual(rows["baseline"]["speedup_over_peers"]["LiteRT"]["single"], 180.0 / 70.0)
        self.assertEqual(table_lines(self.text, 2, "HeadsUp (avx2)")[2:], ["2.46", "/", "1.68", "6.92", "/", "6.85"])
        self.assertEqual(table_lines(self.text, 2, "HeadsUp (baseline)")[2:], ["0.91", "/", "0.55", "2.57", "/", "2.22"])
        self.assertIn("single window / batch 256 (the peers choose their own kernels", self.text)

    def test_the_fraction_of_each_levels_peak_that_matches_the_fastest_peers_batch(self):
        # ONNX Runtime's best batch, 22,000 windows/s of 1,595,100 multiply-adds: 35.1 G/s, against peaks of 100, 50 and 25 G/s.
        self.assertIn("to match ONNX Runtime's batch 256 (22,000 windows/s, 35.1 G multiply-adds/s), a level needs this "
                      "fraction of its peak (HeadsUp's own in brackets): avx512 35 % (70 %); avx2 70 % (70 %); "
                      "baseline 140 % (70 %)", self.text)

    def test_one_level_gets_no_break_even_line(self):
        headsup = headsup_levels({"avx512": [(22.0, 48_000)]}, requested="avx512")
        text = report.format_report(canned.build(report, headsup, {"ort": peer_round(66.0, 21_000)}))
        self.assertNotIn("to match", text)

    def test_the_peers_are_compared_with_the_best_level(self):
        peers = {row["name"]: row for row in self.report["peers"]}
        self.assertAlmostEqual(peers["ONNX Runtime"]["headsup_speedup_single"], 3.2)
        self.assertEqual(self.report["targets"]["single_median_us"], 20.0)
        self.assertIn("  >= 3x faster than the fastest peer (ONNX Runtime): 3.20x  met", self.text)

    def test_the_main_table_has_a_row_per_level(self):
        self.assertEqual(table_lines(self.text, 1, "HeadsUp (avx512)")[2:], [
            "20.0", "40.0", "50,000", "3.0", "(reference)", "1.00", "1.00"])
        self.assertEqual(table_lines(self.text, 1, "HeadsUp (avx2)")[2:], [
            "26.0", "52.0", "37,000", "3.0", "2.0e-07", "ok", "1.30", "1.35"])
        self.assertIn("HeadsUp (avx512)'s speed-up over each row", self.text)
        self.assertIn("HeadsUp (avx512) 22.0 20.0; HeadsUp (avx2) 26.0 27.0; HeadsUp (baseline) 70.0 72.0; "
                      "ONNX Runtime 66.0 64.0", self.text)
        self.assertIn("HeadsUp (avx512) again after the peers (drift check): single median 21.0 µs", self.text)
        self.assertIn("avx512 100.0 G/s, 70 % / 70 %; avx2 50.0 G/s, 70 % / 70 %; baseline 25.0 G/s", self.text)
        self.assertIn("outputs per kernel level against the automatic choice's (avx512): "
                      "avx2 agrees (max |Δ| 2.0e-07), baseline agrees (max |Δ| 2.0e-07)", self.text)

    def test_the_header_names_the_cpu_the_kernel_release_and_the_levels(self):
        head = header(self.text)
        self.assertRegex(head, r"\nmachine: AMD EPYC 9R45, \d+ cores, Linux 6\.18\.44-fc-v669; ")
        self.assertIn("\nHeadsUp kernel levels measured: avx512 (the automatic choice), avx2, baseline "
                      "(--kernels all, one run each with HEADSUP_KERNELS); this CPU runs avx512, avx2, baseline", head)
        self.assertEqual(self.report["machine"]["cpu"], "AMD EPYC 9R45")
        self.assertEqual(self.report["machine"]["kernel_release"], "6.18.44-fc-v669")

    def test_lower_levels_only_and_a_level_that_differs(self):
        headsup = headsup_levels({"avx2": [(26.0, 36_000)], "baseline": [(70.0, 12_000)]}, requested="baseline,avx2",
                                 outputs={"avx2": {"max_abs_diff": 1e-7, "agrees": True, "windows_over_tolerance": 0,
                                                   "checked_windows": 1024},
                                          "baseline": {"max_abs_diff": 3e-5, "agrees": False,
                                                       "windows_over_tolerance": 2, "checked_windows": 1024}})
        headsup["kernel_levels"]["automatic"] = "avx512"
        headsup["kernel_levels"]["supported"] = ["avx512", "avx2", "baseline"]
        r = canned.build(report, headsup, {"ort": peer_round(64.0, 21_000)})
        text = report.format_report(r)
        self.assertIn("HeadsUp kernel levels measured: avx2, baseline (--kernels baseline,avx2, one run each", text)
        self.assertEqual(table_lines(text, 1, "HeadsUp (avx2)")[6:], ["1.0e-07", "ok", "1.00", "1.00"],
                         "not the automatic choice: compared with its outputs")
        self.assertIn("baseline DIFFERS in 2/1024 (max |Δ| 3.0e-05)", text)
        self.assertAlmostEqual(r["headsup_levels"][1]["speedup_over_peers"]["ONNX Runtime"]["single"], 64.0 / 70.0)


class AutomaticLevelTests(unittest.TestCase):
    def run_headsup(self, level="avx512"):
        run = {"256": headsup_bench(20.0, 50_000, level)}
        return {"binary": ".build/release/headsup", "version": "0.1.0", "benches": run, "rounds": [run],
                "kernel_levels": {"requested": None, "supported": ["avx512", "avx2", "baseline"],
                                  "automatic": "avx512"}}

    def test_without_kernels_one_headsup_row_on_the_automatic_choice(self):
        r = canned.build(report, self.run_headsup(), {"ort": peer_round(64.0, 21_000)})
        text = report.format_report(r)
        self.assertEqual([row["name"] for row in r["headsup_levels"]], ["HeadsUp"])
        self.assertEqual(r["headsup"]["kernel_level"], "avx512")
        self.assertFalse(r["headsup"]["kernels_forced"])
        self.assertEqual(r["kernel_levels"]["measured"], ["avx512"])
        self.assertIn("\nHeadsUp kernel level measured: avx512, the automatic choice; this CPU runs avx512, avx2, "
                      "baseline (--kernels all times every level)", header(text))
        self.assertNotIn("per kernel level", text)
        self.assertIn("peak multiply-add rate (one core, HeadsUp's SIMD type): 100.0 G/s", text)

    def test_a_binary_without_levels(self):
        r = canned.build(report, self.run_headsup(level=None), {})
        self.assertIn("HeadsUp kernel level: not reported by this binary", report.format_report(r))

    def test_machine_info_splits_headsups_cpu_description(self):
        info = report.machine_info("Intel(R) Xeon(R) Platinum 8488C, 4th gen, Linux 6.8.0-1019-aws")
        self.assertEqual(info["cpu"], "Intel(R) Xeon(R) Platinum 8488C, 4th gen")
        self.assertEqual(info["kernel_release"], "6.8.0-1019-aws")
        self.assertTrue(report.machine_info()["kernel_release"], "read here without headsup's description")


if __name__ == "__main__":
    unittest.main()
