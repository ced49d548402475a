#!/usr/bin/env python3
"""Writes the replay scenarios under datasets/scenarios/ (deterministic).

Each scenario is a folder with session.csv (a slice of a bundled session
the shipped model never trained on: the test split) and beacons.csv (the
beacon sightings BlueZ would have reported on the same walk: a crossing
beacon approached from 10 s, passed at about 35 s, gone by 52 s).

    crossing-hands   data_sensors_data_3 (phone in the hands), 55 s
    crossing-pocket  data_sensors_data_4 (phone in a pocket),  55 s

`headsup replay datasets/scenarios/crossing-hands` should warn once at the
entry; the pocket walk never. The expected outputs (expected.jsonl) are
written by `make scenarios` from the replay itself and checked by the tests.
"""
import math
import random
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SESSIONS = REPO / "datasets" / "phone-motion-v1" / "sessions"
OUT = REPO / "datasets" / "scenarios"
UUID = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"
BEACON = f"ibeacon:{UUID}:1:7"
SECONDS = 55.0


def walk():
    """RSSI of the crossing beacon at 5 Hz: far, approaching, at the kerb, passing, gone."""
    rng = random.Random(7)
    rows = []
    t = 10.0
    while t < 52.0:
        if t < 32:
            base = -95 + (t - 10) * (35 / 22)  # -95 → -60 over 22 s
        elif t < 40:
            base = -60
        else:
            base = -60 - (t - 40) * 3  # walking away
        rssi = int(round(base + rng.gauss(0, 2.5)))
        rows.append(f"{t:.1f},{BEACON},{max(-100, min(-30, rssi))},-59")
        t = round(t + 0.2, 1)
    return rows


def slice_session(name, seconds):
    lines = (SESSIONS / f"{name}.csv").read_text().splitlines()
    start = float(lines[0].split(",")[1])
    return [line for line in lines if float(line.split(",")[1]) - start <= seconds]


def main():
    beacons = ["# Beacon sightings for a walk to a crossing: seconds since the session start,",
               "# beacon identity, RSSI (dBm), measured power at 1 m (dBm). Made by tools/make_scenarios.py.",
               f"region,crossing={UUID}:1", "time,beacon,rssi,power"] + walk()
    for folder, session in [("crossing-hands", "data_sensors_data_3"), ("crossing-pocket", "data_sensors_data_4")]:
        target = OUT / folder
        target.mkdir(parents=True, exist_ok=True)
        (target / "session.csv").write_text("\n".join(slice_session(session, SECONDS)) + "\n")
        (target / "beacons.csv").write_text("\n".join(beacons) + "\n")
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
