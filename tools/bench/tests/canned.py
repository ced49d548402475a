"""Canned results, shaped like what run_bench.py collects, for the report tests."""
import types

from common import REPO


def peer_round(median, batch, p99=100.0, name="ONNX Runtime"):
    return {"rows": [{"name": name, "single": {"median_us": median, "p99_us": p99, "cpu_per_wall": 1.0},
                      "batch": {"256": {"windows_per_s": batch}}, "load_ms": 5.0,
                      "max_abs_diff": 3e-7, "agrees": True}], "versions": {}, "notes": []}


def headsup_bench(median, batch):
    return {"single_median_us": median, "single_p99_us": 2 * median, "load_ms": 3.0,
            "batch_windows_per_s_1_thread": batch, "batch_windows_per_s_all_cores": 2 * batch,
            "peak_multiply_adds_per_s": 1e11, "multiply_adds_per_window": 1_595_100,
            "single_fraction_of_peak": 0.7, "batch_fraction_of_peak": 0.7}


def args(rounds=1, batch_sizes=(256,)):
    return types.SimpleNamespace(batch_sizes=list(batch_sizes), headsup_iterations=5000, iterations=2000,
                                 slow_iterations=1000, batch_seconds=1.0, quick=False, rounds=rounds, count=1024,
                                 out_dir=str(REPO / "tools" / "bench" / "out"))


def quiet(reached=True):
    return {"after": [0.2, 0.3, 0.4], "waited_s": 0.0 if reached else 30.0, "threshold": 0.5,
            "reached": reached, "nice": 0}


def build(report, headsup, results, unavailable=None, install_failures=None, rounds=1, batch_sizes=(256,)):
    """report.build_report on canned inputs (the model file need not exist)."""
    return report.build_report(args(rounds, batch_sizes), REPO / "model.h5", "tf_keras", "canned windows", 450,
                               quiet(), [], [0.5, 0.4, 0.3], headsup, results, unavailable or {},
                               install_failures or {}, 12.0)
