#!/usr/bin/env python3
"""How close each model family runs to the core's peak, on every kernel
level this CPU supports: `headsup model bench` on the shipped LSTM and CNN
and on the seed-sized GRU, Bidirectional and SimpleRNN models and the
near-empty one in tools/bench/models/ (made by make_family_models.py).

    python3 -m tools.bench.families [--binary .build/release/headsup] [--levels all|avx2,baseline] [--json FILE]

Prints the CPU model and kernel release first; per model and level the
multiply-adds per window, single-window time, the fraction of the level's
measured peak (fused multiply-adds for the FMA levels, a multiply plus an
add for the baseline) single and batched, and for the near-empty model the
time of a call, which is the fixed cost every model pays.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from tools.bench.common import KERNEL_LEVELS as LEVELS, REPO

MODELS = [("lstm (shipped)", "weights/model.h5"), ("cnn", "weights/cnn.h5"), ("seed lstm", "weights/seed.h5"),
          ("gru", "tools/bench/models/gru.h5"), ("bidirectional", "tools/bench/models/bidirectional.h5"),
          ("simplernn", "tools/bench/models/simplernn.h5"), ("near-empty", "tools/bench/models/near_empty.h5")]


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def bench(binary, model, level, iterations):
    env = dict(os.environ, HEADSUP_KERNELS=level)
    done = subprocess.run([binary, "model", "bench", "--model", str(REPO / model), "--iterations", str(iterations), "--json"],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return None, done.stderr.strip()
    return json.loads(done.stdout), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(REPO / ".build/release/headsup"))
    parser.add_argument("--levels", default="all")
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args()
    levels = LEVELS if args.levels == "all" else args.levels.split(",")
    print("cpu: %s; Linux %s; binary %s" % (cpu_model(), platform.release(), args.binary))
    rows = []
    print("%-15s %-9s %10s %10s %9s %9s" % ("model", "level", "MACs", "single µs", "single %", "batch %"))
    for level in levels:
        for name, model in MODELS:
            figures, error = bench(args.binary, model, level, args.iterations)
            if figures is None:
                print("%-15s %-9s skipped: %s" % (name, level, error.splitlines()[-1] if error else "failed"))
                break
            rows.append(dict(model=name, file=model, level=level, **figures))
            print("%-15s %-9s %10d %10.2f %8.0f%% %8.0f%%" % (
                name, level, figures["multiply_adds_per_window"], figures["single_median_us"],
                100 * figures["single_fraction_of_peak"], 100 * figures["batch_fraction_of_peak"]))
    for row in rows:
        if row["model"] == "near-empty":
            print("fixed cost of a call (%s): %.2f µs" % (row["level"], row["single_median_us"]))
    if args.json:
        Path(args.json).write_text(json.dumps({"cpu": cpu_model(), "kernel": platform.release(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
