#!/usr/bin/env python3
"""Mutated-model campaign: damaged copies of the bundled model files through
the headsup command line. libhdf5 itself crashes on some damaged files, so
this runs whole processes instead of fuzzing in process.

    python3 tools/fuzz/mutate_models.py [--count 300] [--binary .build/release/headsup] [--keep DIR]

Each copy gets byte flips, a truncation or an overwritten range (seeded, so
a run is repeatable). For each copy it runs

  * `headsup model check FILE`: the bare load in one process, to count how
    often libhdf5 or the loader crash outright (a signal);
  * `headsup model inspect FILE`: what users run, which loads the file in a
    child first; it must end with exit 0 or with a typed error naming the
    file, never by a signal and never hang.

Exit status 1 when any `inspect` crashed, hung, or failed without naming the
file. `--keep DIR` keeps the copies that crashed the bare load.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MODELS = ["weights/model.h5", "weights/cnn.h5", "weights/seed.h5", "Tests/Fixtures/keras/conv_keras3_keras/model.keras"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    kind = rng.choice(["flip", "flip", "truncate", "overwrite"])
    if kind == "truncate":
        return bytes(data[: rng.randrange(1, len(data))])
    if kind == "overwrite":
        start = rng.randrange(len(data))
        length = rng.choice([1, 4, 8, 64, 512])
        filler = rng.choice([0x00, 0xFF, None])
        for i in range(start, min(len(data), start + length)):
            data[i] = rng.randrange(256) if filler is None else filler
        return bytes(data)
    for _ in range(rng.choice([1, 2, 8, 32])):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data)


def run(binary, arguments, timeout):
    try:
        result = subprocess.run([binary] + arguments, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if result.returncode < 0:
        return "signal %s" % signal.Signals(-result.returncode).name, result.stderr
    return ("ok" if result.returncode == 0 else "error"), result.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="mutated copies per model file (default 300)")
    parser.add_argument("--binary", default=str(REPO / ".build/release/headsup"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--keep", help="keep the copies that crashed the bare load or failed inspect here")
    parser.add_argument("--models", nargs="*", help="only these model files (default: the bundled ones)")
    args = parser.parse_args()
    failures = []
    work = Path(tempfile.mkdtemp(prefix="headsup-mutants-"))
    try:
        for model in args.models or MODELS:
            source = REPO / model
            if not source.exists():
                print("%s: not there, skipped" % model)
                continue
            original = source.read_bytes()
            rng = random.Random("%s:%d" % (model, args.seed))
            counts = {}
            bare_crashes = 0
            for index in range(args.count):
                path = work / ("%s-%04d%s" % (source.stem, index, source.suffix))
                path.write_bytes(mutate(original, rng))
                bare, _ = run(args.binary, ["model", "check", str(path)], args.timeout)
                if bare.startswith("signal"):
                    bare_crashes += 1
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        shutil.copy(path, Path(args.keep) / path.name)
                outcome, stderr = run(args.binary, ["model", "inspect", str(path)], args.timeout)
                if outcome == "error" and str(path) not in stderr:
                    outcome = "error without the file's name"
                counts[outcome] = counts.get(outcome, 0) + 1
                if outcome not in ("ok", "error"):
                    failures.append("%s: %s %s" % (path.name, outcome, stderr.strip()[-200:]))
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        shutil.copy(path, Path(args.keep) / ("inspect-" + path.name))
                path.unlink()
            summary = ", ".join("%s %d" % item for item in sorted(counts.items()))
            print("%s: %d copies: inspect: %s; bare load crashed %d times" % (model, args.count, summary, bare_crashes))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print("FAIL " + failure)
    print("mutated models: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
