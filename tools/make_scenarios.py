#!/usr/bin/env python3
"""Writes the replay scenarios under datasets/scenarios/ (deterministic).

Each scenario is a folder with session.csv (a slice of a bundled session
the shipped model never trained on: the test split) and beacons.csv (the
beacon sightings BlueZ would have reported on the same walk: a crossing
beacon approached from 10 s, passed at about 35 s, gone by 52 s).

    crossing-hands   data_sensors_data_3 (phone in the hands), 55 s
    crossing-pocket  data_sensors_data_4 (phone in a pocket),  55 s

`headsup replay datasets/scenarios/crossing-hands` should warn once at the
entry; the pocket walk never.

The mapped-crossing scenarios play the hands walk (its first 45 s) with a
location track (locations.csv) on the Monaco extract's crossings
(datasets/crossings/monaco.tsv, made by `headsup crossings import`), and
each carries the crossings near its walk in its own crossings.tsv (with
the OpenStreetMap credit: the data is under the ODbL 1.0):

    map-crossing-walk      over a mapped crossing at 1.3 m/s, 5 m fixes: one warning
    map-parallel-street    the same walk 40 m to the side: none
    map-bus                the same line at 9 m/s (a bus): none
    map-wifi-fix           the walk with 60 m fixes (Wi-Fi positions): none The expected outputs (expected.jsonl) are
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
    map_scenarios()


MAP_SECONDS = 45.0
CROSSINGS = REPO / "datasets" / "crossings" / "monaco.tsv"
EARTH = 6371008.8


def read_crossings(path):
    """The header lines and (id, kind, lat, lon, kerbs) rows of a crossings file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[:8]
    rows = [line.split("\t") for line in lines[8:]]
    return header, [(int(r[0]), r[1], float(r[2]), float(r[3]), r[4]) for r in rows]


def offset(lat0, lon0, lat, lon):
    """East and north metres of (lat, lon) from (lat0, lon0)."""
    east = math.radians(lon - lon0) * EARTH * math.cos(math.radians((lat + lat0) / 2))
    return east, math.radians(lat - lat0) * EARTH


def moved(lat0, lon0, east, north):
    return (lat0 + math.degrees(north / EARTH), lon0 + math.degrees(east / (EARTH * math.cos(math.radians(lat0)))))


def line_distance(points, lat, lon, lat0, lon0):
    """Closest approach (m) of a path of (east, north) points to a crossing."""
    east, north = offset(lat0, lon0, lat, lon)
    return min(math.hypot(east - e, north - n) for e, n in points)


def choose_crossing(crossings):
    """A crossing and a walking direction (along its kerb line where mapped,
    else one of 8 compass directions) whose walk, 60 m either side, passes no
    other crossing within 30 m, and whose 40 m parallel passes none within 45 m."""
    for cid, kind, lat, lon, kerbs in sorted(crossings):
        if kind.startswith("rail"):
            continue
        directions = [(math.sin(math.radians(a)), math.cos(math.radians(a))) for a in range(0, 360, 45)]
        if kerbs:
            (alat, alon), (blat, blon) = [tuple(map(float, k.split(","))) for k in kerbs.split(";")]
            east, north = offset(alat, alon, blat, blon)
            length = math.hypot(east, north)
            directions = [(east / length, north / length)] + directions if length > 1 else directions
        others = [c for c in crossings if c[0] != cid]
        for ux, uy in directions:
            walk = [(ux * d, uy * d) for d in range(-60, 61)]
            side = [(x - uy * 40, y + ux * 40) for x, y in walk]
            if all(line_distance(walk, c[2], c[3], lat, lon) > 30 for c in others) and \
                    all(line_distance(side, c[2], c[3], lat, lon) > 45 for c in others):
                return (cid, kind, lat, lon), (ux, uy)
    raise SystemExit("no crossing in %s suits the walk" % CROSSINGS)


def track(center, direction, start, speed, accuracy, side=0.0, seed=11, seconds=MAP_SECONDS):
    """time,latitude,longitude,accuracy,speed,heading at 1 Hz along the crossing's line."""
    (_, _, lat0, lon0), (ux, uy) = center, direction
    rng = random.Random(seed)
    heading = (math.degrees(math.atan2(ux, uy)) + 360) % 360
    rows = [LOCATIONS_HEADER]
    t = 0.0
    while t <= seconds:
        along = start + speed * t
        east = ux * along - uy * side + rng.gauss(0, accuracy / 3)
        north = uy * along + ux * side + rng.gauss(0, accuracy / 3)
        lat, lon = moved(lat0, lon0, east, north)
        rows.append(f"{t:.1f},{lat:.7f},{lon:.7f},{accuracy:g},{speed:g},{heading:.0f}")
        t += 1.0
    return rows


LOCATIONS_HEADER = "time,latitude,longitude,accuracy,speed,heading"


def nearby_crossings(header, crossings, center, radius=400):
    """A crossings file of those within `radius` m of the walk's crossing (same header, its count and making updated)."""
    _, _, lat0, lon0 = center
    kept = [c for c in crossings if math.hypot(*offset(lat0, lon0, c[2], c[3])) <= radius]
    lines = list(header)
    lines[5] = lines[5] + f"; then tools/make_scenarios.py kept the {len(kept)} within {radius} m of node {center[0]}"
    lines[6] = f"# count: {len(kept)}"
    rows = ["\t".join([str(c[0]), c[1], _coordinate(c[2]), _coordinate(c[3]), c[4]]) for c in kept]
    return lines + rows


def _coordinate(value):
    text = f"{value:.7f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def map_scenarios():
    header, crossings = read_crossings(CROSSINGS)
    center, direction = choose_crossing(crossings)
    session = slice_session("data_sensors_data_3", MAP_SECONDS)
    walks = {
        "map-crossing-walk": track(center, direction, -45, 1.3, 5),
        "map-parallel-street": track(center, direction, -45, 1.3, 5, side=40),
        "map-bus": track(center, direction, -200, 9, 5),
        "map-wifi-fix": track(center, direction, -45, 1.3, 60),
    }
    for folder, rows in walks.items():
        target = OUT / folder
        target.mkdir(parents=True, exist_ok=True)
        (target / "session.csv").write_text("\n".join(session) + "\n")
        (target / "locations.csv").write_text("\n".join(rows) + "\n")
        (target / "crossings.tsv").write_text("\n".join(nearby_crossings(header, crossings, center)) + "\n", encoding="utf-8")
        print(f"wrote {target} (crossing osm:node/{center[0]}, {center[1]})")


if __name__ == "__main__":
    main()
