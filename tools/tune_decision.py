#!/usr/bin/env python3
"""Chooses the shipped model's decision values (hop, smoothing, minimum
duration) on the cross-validation fold models' held-out TRAINING sessions
and writes them into the model card's `decision` block.

    python3 tools/tune_decision.py --headsup .build/release/headsup
    python3 tools/tune_decision.py --check     # only print the choice

It runs `headsup evaluate --folds weights/folds/folds.json --split train
--sweep --json FILE`: every fold model scores only the sessions it never
saw, restricted to the training split, so the test sessions play no part.
Each candidate is judged on spliced pocket -> hands transitions (latency
from the joint to the distracted state) and on false distracted episodes
in steady pocket data.

Rule: each candidate with no missed splice is judged by what a user
feels, each figure as a multiple of its target (issue 41): steady false
episodes per steady hour against 1 per hour, plus the median spliced
latency against 1.0 s. The lowest sum wins, so one false episode per hour
weighs as much as a second of latency; candidates within TIE of the lowest
sum are tied, and among them the fewest false episodes before a joint, the
lowest maximum latency (within TIE_SECONDS; a user feels
the slow cases too), then the largest hop (the fewest windows scored, so
the least CPU on a phone: hop 10 scores 5 windows a second, hop 25 two;
docs/notes/2026-11-29-upright-poses.md measures the difference), then the
longest minimum duration and time constant (the most damping).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIE_SECONDS = 0.05


FALSE_EPISODES_PER_HOUR_TARGET = 1.0
MEDIAN_LATENCY_TARGET_SECONDS = 1.0
TIE = 0.05


def cost(row):
    """The candidate's steady false episodes per hour and median spliced
    latency, each as a multiple of its target, summed."""
    hours = max(row["steadyPocketHours"], 1e-9)
    return (row["steadyFalseEpisodes"] / hours / FALSE_EPISODES_PER_HOUR_TARGET
            + row["splices"]["medianLatency"] / MEDIAN_LATENCY_TARGET_SECONDS)


def choose(sweep):
    found = [row for row in sweep if row["splices"]["missed"] == 0 and row["splices"]["medianLatency"] is not None]
    if not found:
        raise SystemExit("tune_decision: every candidate misses a splice; widen the sweep or look at the model")
    best = min(cost(row) for row in found)
    tied = [row for row in found if cost(row) <= best + TIE]
    calmest = min(row["splices"]["falseEpisodes"] for row in tied)
    tied = [row for row in tied if row["splices"]["falseEpisodes"] == calmest]
    fastest = min(row["splices"]["maximumLatency"] for row in tied)
    tied = [row for row in tied if row["splices"]["maximumLatency"] <= fastest + TIE_SECONDS]
    return max(tied, key=lambda row: (row["candidate"]["hop"], row["candidate"]["minimumDuration"],
                                      row["candidate"]["timeConstant"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--headsup", default=os.environ.get("HEADSUP_BIN", str(REPO / ".build/release/headsup")))
    parser.add_argument("--card", default=str(REPO / "weights/model.json"))
    parser.add_argument("--folds", default=str(REPO / "weights/folds/folds.json"))
    parser.add_argument("--check", action="store_true", help="print the choice, write nothing")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "sweep.json"
        command = [args.headsup, "evaluate", "--folds", args.folds, "--split", "train", "--sweep", "--json", str(out)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        figures = json.loads(out.read_text())
    row = choose(figures["sweep"])
    candidate, splices = row["candidate"], row["splices"]
    print("chosen: hop %d, time constant %.2f s, minimum duration %.2f s: spliced median %.2f s (max %.2f s, %d splices, "
          "%d false episodes before a joint), %d steady false episodes in %.2f h of steady not-distracted data"
          % (candidate["hop"], candidate["timeConstant"], candidate["minimumDuration"], splices["medianLatency"],
             splices["maximumLatency"], splices["splices"], splices["falseEpisodes"], row["steadyFalseEpisodes"],
             row["steadyPocketHours"]))
    if args.check:
        return
    card_path = Path(args.card)
    card = json.loads(card_path.read_text())
    decision = card["decision"]
    decision.update({
        "hop": candidate["hop"],
        "time_constant": candidate["timeConstant"],
        "minimum_duration": candidate["minimumDuration"],
        "tuning": {
            "chosen_by": "tools/tune_decision.py: the cross-validation fold models on their held-out training sessions "
                         "(test sessions never used); among candidates with no missed splice, the lowest sum of steady "
                         "false episodes per steady hour (target 1) and median spliced latency (target 1.0 s), each as a "
                         "multiple of its target (ties within %.2f: the fewest false episodes before a joint, the lowest "
                         "maximum latency within %.2f s, then the largest hop and the most damping)" % (TIE, TIE_SECONDS),
            "cost": round(cost(row), 3),
            "command": "headsup evaluate --folds %s --split train --sweep" % os.path.relpath(args.folds, REPO),
            "spliced_median_seconds": round(splices["medianLatency"], 3),
            "spliced_max_seconds": round(splices["maximumLatency"], 3),
            "splices": splices["splices"],
            "steady_false_episodes": row["steadyFalseEpisodes"],
            "false_episodes_before_joint": splices["falseEpisodes"],
            "steady_pocket_hours": round(row["steadyPocketHours"], 3),
            "candidates": len(figures["sweep"]),
            "date": datetime.date.today().isoformat(),
        },
    })
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    print("wrote %s" % card_path)


if __name__ == "__main__":
    sys.exit(main())
