#!/usr/bin/env python3
"""Two builds of headsup against each other, per kernel level and model:
`model bench` of each, alternating A and B run by run (so drift on a shared
machine hits both), pinned to one core; prints the medians and the range of
the per-pair ratios B/A for the single-window time and the one-thread batch
throughput. For a kernel change: build the old tree in a worktree, then

    python3 -m tools.bench.ab --a OLD/.build/release/headsup --b .build/release/headsup \\
        --levels avx512,avx2,baseline --models seed,model,cnn --rounds 7

A level the CPU cannot run is reported and skipped. Every line says the CPU.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from tools.bench.common import REPO


def bench(binary, model, level, iterations):
    env = dict(os.environ, HEADSUP_KERNELS=level)
    run = subprocess.run(["taskset", "-c", "1", binary, "model", "bench", "--model", str(model), "--json", "--iterations",
                          str(iterations), "--batch", "256"], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"
    figures = json.loads(run.stdout)
    return (figures["single_median_us"], figures["batch_windows_per_s_1_thread"]), None


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="the baseline binary")
    parser.add_argument("--b", required=True, help="the binary to compare with it")
    parser.add_argument("--levels", default="avx512,avx2,baseline")
    parser.add_argument("--models", default="seed,model,cnn", help="names of weights/NAME.h5")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=1500)
    args = parser.parse_args()
    print("cpu: %s; Linux %s; A %s; B %s" % (cpu_model(), os.uname().release, args.a, args.b))
    for level in args.levels.split(","):
        for name in args.models.split(","):
            model = REPO / "weights" / ("%s.h5" % name)
            runs = {"a": [], "b": []}
            error = None
            for round_ in range(args.rounds):
                for side in ("a", "b") if round_ % 2 == 0 else ("b", "a"):
                    figures, error = bench(getattr(args, side), model, level, args.iterations)
                    if figures is None:
                        break
                    runs[side].append(figures)
                if error:
                    break
            if error:
                print("%-10s %-6s skipped: %s" % (level, name, error))
                continue
            a, b = runs["a"], runs["b"]
            single = [y[0] / x[0] for x, y in zip(a, b)]
            batch = [y[1] / x[1] for x, y in zip(a, b)]
            print("%-10s %-6s single us A %.1f B %.1f, B/A %.3f-%.3f median %.3f | batch w/s A %.0f B %.0f, B/A %.3f-%.3f median %.3f"
                  % (level, name, statistics.median(x[0] for x in a), statistics.median(x[0] for x in b), min(single), max(single),
                     statistics.median(single), statistics.median(x[1] for x in a), statistics.median(x[1] for x in b), min(batch),
                     max(batch), statistics.median(batch)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
