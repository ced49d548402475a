#!/usr/bin/env python3
"""What a city's crossings cost HeadsUp: import time, file size, the daemon's
memory, and the monitor's time per fix as the file grows.

A city of N crossings (100,000 by default) is synthesised from the Monaco
extract's crossings (datasets/crossings/monaco.tsv, 388 over Monaco's ~2 km²,
about 190 per km²): Monaco's crossings tiled side by side until there are N,
each kind written back as its OSM tags, with FILLER untagged nodes per
crossing so osmium reads an extract of a real city's size, not only its
crossings. Then:

  import   `headsup crossings import city.osm.pbf` (wall time; the file's size)
  lookup   `headsup crossings bench` (ns per fix for 100 … N crossings, the
           same 100 around every fix: flat means the lookup does not grow)
  daemon   `headsup live --simulate map-crossing-walk` with the scenario's
           48 crossings and with the city's N: peak RSS of each, and the growth

    python3 -m tools.bench.crossings [--binary .build/release/headsup] [--count 100000] [--keep DIR]

Map data © OpenStreetMap contributors, ODbL 1.0: the synthesised city is a
derivative of Monaco's map; keep it to yourself or share it under the ODbL.
"""
import argparse
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
MONACO = REPO / "datasets" / "crossings" / "monaco.tsv"
TAGS = {
    "signals": [("highway", "crossing"), ("crossing", "traffic_signals")],
    "marked": [("highway", "crossing"), ("crossing", "marked")],
    "uncontrolled": [("highway", "crossing"), ("crossing", "uncontrolled")],
    "unmarked": [("highway", "crossing"), ("crossing", "unmarked")],
    "island": [("highway", "crossing"), ("crossing", "island")],
    "rail-foot": [("railway", "crossing")],
    "rail-road": [("railway", "level_crossing")],
}


def cpu():
    model = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return f"{model} ({platform.machine()}), Linux {platform.release()}"


def monaco():
    rows = [line.split("\t") for line in MONACO.read_text(encoding="utf-8").splitlines()[8:]]
    return [(r[1], float(r[2]), float(r[3])) for r in rows]


def synthesise(path, count, filler):
    """An .osm file of `count` crossings: Monaco's, tiled."""
    crossings = monaco()
    lats = [c[1] for c in crossings]
    lons = [c[2] for c in crossings]
    height = max(lats) - min(lats) + 0.002
    width = max(lons) - min(lons) + 0.002
    tiles = math.ceil(count / len(crossings))
    side = math.ceil(math.sqrt(tiles))
    node = 1
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"tools/bench/crossings.py\">\n")
        for tile in range(tiles):
            dlat, dlon = (tile // side) * height, (tile % side) * width
            for kind, lat, lon in crossings:
                if written == count:
                    break
                tags = "".join(f'<tag k="{k}" v="{v}"/>' for k, v in TAGS[kind])
                out.write(f'<node id="{node}" version="1" timestamp="2016-03-05T00:26:02Z" lat="{lat + dlat:.7f}" lon="{lon + dlon:.7f}">{tags}</node>\n')
                node += 1
                written += 1
                for step in range(filler):
                    out.write(f'<node id="{node}" version="1" timestamp="2016-03-05T00:26:02Z" lat="{lat + dlat + 0.00003 * (step + 1):.7f}" lon="{lon + dlon:.7f}"/>\n')
                    node += 1
        out.write("</osm>\n")
    return written, node - 1


def peak_rss(command):
    """Runs `command`; its exit status, peak resident memory (MB, sampled) and standard error."""
    status, peak, _, err = run_sampled(command, settle=0)
    return status, peak, err


def run_sampled(command, settle=1.0):
    """Runs `command`, sampling its VmRSS every 20 ms: exit status, the
    largest sample (MB), the median of the samples after `settle` s (MB:
    what it holds while it runs), and standard error."""
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        started, samples, settled = time.monotonic(), [], []
        while process.poll() is None:
            try:
                with open(f"/proc/{process.pid}/status") as status:
                    for line in status:
                        if line.startswith("VmRSS:"):
                            samples.append(int(line.split()[1]) / 1024)
                            if time.monotonic() - started > settle:
                                settled.append(samples[-1])
            except OSError:
                pass
            time.sleep(0.02)
        err.seek(0)
        steady = sorted(settled)[len(settled) // 2] if settled else float("nan")
        return process.returncode, max(samples, default=float("nan")), steady, err.read().decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "headsup"))
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--filler", type=int, default=10, help="untagged nodes per crossing in the extract")
    parser.add_argument("--keep", help="a folder to keep the city's files in")
    args = parser.parse_args()
    binary = args.binary
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="headsup-city-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"cpu: {cpu()}")
        osm, pbf, tsv = work / "city.osm", work / "city.osm.pbf", work / "city.tsv"
        crossings, nodes = synthesise(osm, args.count, args.filler)
        subprocess.run(["osmium", "cat", "-O", "--no-progress", str(osm), "-o", str(pbf)], check=True)
        osm.unlink()
        print(f"extract: {crossings} crossings among {nodes} nodes, {pbf.stat().st_size / 1e3:.0f} kB .osm.pbf")
        started = time.monotonic()
        status, rss, err = peak_rss([binary, "crossings", "import", str(pbf), "--out", str(tsv)])
        if status != 0:
            sys.exit(f"import failed: {err}")
        print(f"import: {time.monotonic() - started:.2f} s, peak RSS {rss:.1f} MB; crossings file {tsv.stat().st_size / 1e6:.2f} MB "
              f"({tsv.stat().st_size / crossings:.0f} bytes a crossing)")
        sizes = ",".join(str(n) for n in sorted({100, 1_000, 10_000, 100_000, crossings}) if n <= crossings)
        bench = subprocess.run([binary, "crossings", "bench", str(tsv), "--sizes", sizes], check=True, capture_output=True, text=True)
        print(bench.stdout, end="")
        runs = []
        for label, extra in [("scenario's 48 crossings", []), (f"city's {crossings} crossings", ["--crossings", str(tsv)])]:
            status, _, steady, err = run_sampled([binary, "live", "--simulate", "map-crossing-walk", "--speed", "10", "--no-desktop",
                                                  "--model", str(REPO / "weights" / "model.h5")] + extra)
            if status != 0:
                sys.exit(f"live failed: {err}")
            runs.append(steady)
            print(f"daemon (live --simulate map-crossing-walk, {label}): RSS while running {steady:.1f} MB (median of 20 ms samples)")
        print(f"daemon RSS growth with the city: {runs[1] - runs[0]:+.1f} MB")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
