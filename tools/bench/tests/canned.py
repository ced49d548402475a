"""Canned results, shaped like what run_bench.py collects, for the report tests."""
import types

from tools.bench.common import REPO


def peer_round(median, batch, p99=100.0, name="ONNX Runtime"):
    return {"rows": [{"name": name, "single": {"median_us": median, "p99_us": p99, "cpu_per_wall": 1.0},
                      "batch": {"256": {"windows_per_s": batch}}, "load_ms": 5.0,
                      "max_abs_diff": 3e-7, "agrees": True}], "versions": {}, "notes": []}


CPU = "AMD EPYC 9R45, Linux 6.18.44-fc-v669"  # `headsup model bench --json`'s "cpu"
LEVELS = ["avx512", "avx2", "baseline"]


def headsup_bench(median, batch, level="avx512", cpu=CPU, peak=1e11):
    figures = {"single_median_us": median, "single_p99_us": 2 * median, "load_ms": 3.0,
               "batch_windows_per_s_1_thread": batch, "batch_windows_per_s_all_cores": 2 * batch,
               "peak_multiply_adds_per_s": peak, "multiply_adds_per_window": 1_595_100,
               "single_fraction_of_peak": 0.7, "batch_fraction_of_peak": 0.7}
    if level:  # a binary from before the kernel levels names none
        figures.update(kernel_level=level, cpu=cpu)
    return figures


def headsup_levels(rounds, requested="all", supported=LEVELS, outputs=None):
    """HeadsUp's runs as run_bench.py collects them with --kernels: rounds is
    {level: [(median, batch) per round]}, best level first; outputs {level: compare_outputs result}."""
    runs = []
    for n, (level, figures) in enumerate(rounds.items()):
        benches = [{"256": headsup_bench(median, batch, level, peak=1e11 / 2 ** n)} for median, batch in figures]
        run = {"binary": ".build/release/headsup", "version": "0.1.0", "level": level,
               "benches": benches[0], "rounds": benches}
        run["outputs"] = (outputs or {}).get(level, {"max_abs_diff": 0.0 if level == supported[0] else 2e-7,
                                                     "agrees": True, "windows_over_tolerance": 0,
                                                     "checked_windows": 1024})
        runs.append(run)
    return dict(runs[0], levels=runs, kernel_levels={"requested": requested, "supported": list(supported),
                                                      "automatic": supported[0], "measured": list(rounds)})


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
