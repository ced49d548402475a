"""run_bench.py's report: the figures of one run as a JSON-ready dict
(build_report) and as the printed table (format_report). Pure logic but for
machine_info and git_info; the tests feed it canned results."""

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from common import REPO, THREAD_ENV, TOLERANCE, rel

# Targets printed next to the figures (never asserted).
TARGET_SINGLE_US = 50.0
TARGET_SINGLE_SPEEDUP = 3.0
TARGET_BATCH_WPS = 20_000.0



def best_round(rounds):
    """One peer's result over several rounds: each row keeps the round with its
    lowest single-window median, the best batch figure of any round, and every
    round's single-window median (`single_rounds_us`)."""
    timed = [r for r in rounds if r.get("rows") and not r.get("error")]
    if not timed:
        return rounds[0]
    best = dict(min(timed, key=lambda r: min(row["single"]["median_us"] for row in r["rows"] if "single" in row)))
    rows = []
    for row in best["rows"]:
        if "single" not in row:
            rows.append(row)
            continue
        same = [other for r in timed for other in r["rows"] if other.get("name") == row["name"] and "single" in other]
        merged = dict(min(same, key=lambda other: other["single"]["median_us"]))
        merged["single_rounds_us"] = [other["single"]["median_us"] for other in same]
        merged["batch"] = {b: max((other["batch"][b] for other in same if b in other.get("batch", {})),
                                  key=lambda v: v["windows_per_s"]) for b in row.get("batch", {})}
        rows.append(merged)
    best["rows"] = rows
    best["rounds"] = len(rounds)
    return best
# report


def build_report(args, model, framework, windows_source, input_count, quiet, busy, end_load,
                 headsup, results, unavailable, install_failures, seconds):
    b0 = str(args.batch_sizes[0])
    # Every round timed the first batch size; the first round also the others.
    rounds = headsup.get("rounds") or [headsup["benches"]]
    hb = min((r[b0] for r in rounds), key=lambda f: f["single_median_us"])
    sizes = list(headsup["benches"])
    hu = {
        "name": "HeadsUp", "runtime": headsup.get("version", "headsup"),
        "load_ms": hb["load_ms"],
        "single": {"median_us": hb["single_median_us"], "p99_us": hb["single_p99_us"],
                   "calls": args.headsup_iterations},
        "single_rounds_us": [r[b0]["single_median_us"] for r in rounds],
        "batch": {b: {"windows_per_s": max(r[b]["batch_windows_per_s_1_thread"] for r in rounds if b in r)}
                  for b in sizes},
        "batch_all_cores": {b: max(r[b]["batch_windows_per_s_all_cores"] for r in rounds if b in r) for b in sizes},
        "max_abs_diff": 0.0, "agrees": True, "reference": True,
    }
    rows = []
    versions = {"python": platform.python_version()}
    notes = {}
    remarks = []
    for key, res in results.items():
        versions.update(res.get("versions", {}))
        remarks.extend(res.get("notes", []))
        if key in ("onnx-convert", "tflite-convert"):
            notes[key] = {k: res.get(k) for k in ("ops", "opset", "convert_ms", "error", "seconds") if k in res}
            continue
        if res.get("error") and not res.get("rows"):
            rows.append({"name": {"keras": "Keras (%s)" % framework, "keras3": "Keras 3", "ort": "ONNX Runtime",
                                  "litert": "LiteRT"}.get(key, key), "unavailable": res["error"]})
        rows.extend(res.get("rows", []))
    for key, reason in unavailable.items():
        rows.append({"name": {"onnx": "ONNX Runtime", "litert": "LiteRT", "keras": "Keras",
                              "keras3": "Keras 3"}.get(key, key), "unavailable": reason})
    # HeadsUp's speed-up over each peer
    for row in rows:
        if "single" in row:
            row["headsup_speedup_single"] = row["single"]["median_us"] / hu["single"]["median_us"]
            row["headsup_speedup_batch"] = {
                b: hu["batch"][b]["windows_per_s"] / v["windows_per_s"]
                for b, v in row["batch"].items() if b in hu["batch"]}
    timed = [r for r in rows if "single" in r]
    fastest_single = min(timed, key=lambda r: r["single"]["median_us"]) if timed else None
    targets = {
        "single_median_us_at_most": TARGET_SINGLE_US,
        "single_median_us": hu["single"]["median_us"],
        "single_met": hu["single"]["median_us"] <= TARGET_SINGLE_US,
        "single_speedup_vs_fastest_peer_at_least": TARGET_SINGLE_SPEEDUP,
        "fastest_single_peer": fastest_single["name"] if fastest_single else None,
        "single_speedup_vs_fastest_peer": fastest_single["headsup_speedup_single"] if fastest_single else None,
        "batch_windows_per_s_at_least": TARGET_BATCH_WPS,
        "batch_windows_per_s": hu["batch"][b0]["windows_per_s"],
        "batch_met": hu["batch"][b0]["windows_per_s"] >= TARGET_BATCH_WPS,
        "batch_faster_than_every_peer": all(
            all(s > 1 for s in r["headsup_speedup_batch"].values()) for r in timed) if timed else None,
    }
    targets["single_speedup_met"] = (targets["single_speedup_vs_fastest_peer"] or 0) >= TARGET_SINGLE_SPEEDUP
    return {
        "command": "python3 tools/bench/" + " ".join([Path(sys.argv[0]).name] + sys.argv[1:]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": seconds,
        "machine": machine_info(),
        "git": git_info(),
        "load": {"wait": quiet, "at_start": quiet["after"], "at_end": end_load, "top_processes": busy},
        "model": rel(model), "framework": framework,
        "windows": {"source": windows_source, "count": args.count, "input_count": input_count,
                    "file": rel(Path(args.out_dir) / "windows.csv")},
        "settings": {"iterations": args.iterations, "slow_iterations": args.slow_iterations, "headsup_iterations": args.headsup_iterations,
                     "batch_seconds": args.batch_seconds, "batches": args.batch_sizes, "quick": args.quick,
                     "rounds": args.rounds,
                     "tolerance": TOLERANCE, "threads": THREAD_ENV},
        "headsup": hu,
        "headsup_binary": headsup["binary"],
        "headsup_binary_info": headsup.get("binary_info", {}),
        "headsup_bench_json": headsup["benches"],
        "headsup_bench_json_at_end": headsup.get("again"),
        "peers": rows,
        "conversions": notes,
        "notes": remarks,
        "install_failures": install_failures,
        "versions": versions,
        "peak_multiply_adds_per_s": hb["peak_multiply_adds_per_s"],
        "multiply_adds_per_window": hb["multiply_adds_per_window"],
        "single_fraction_of_peak": hb["single_fraction_of_peak"],
        "batch_fraction_of_peak": hb["batch_fraction_of_peak"],
        "targets": targets,
    }


def machine_info():
    info = {"cores": os.cpu_count(), "platform": platform.platform()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def git_info():
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "Sources", "Package.swift"],
                               capture_output=True, text=True).stdout.strip()
        return {"head": head, "sources_modified": bool(dirty)}
    except OSError:
        return {}


def fmt_num(v, digits=0):
    if v is None:
        return "-"
    if digits == 0:
        return "{:,.0f}".format(v)
    return "{:,.{d}f}".format(v, d=digits)


def format_report(r):
    hu = r["headsup"]
    batches = [str(b) for b in r["settings"]["batches"]]
    lines = []
    lines.append("HeadsUp benchmark: %s (%s), %d windows (%s)" % (
        r["model"], r["framework"], r["windows"]["count"], r["windows"]["source"]))
    m = r["machine"]
    lines.append("machine: %s, %s cores; everything single-threaded; git %s%s" % (
        m.get("cpu", "?"), m.get("cores"), r["git"].get("head", "?"),
        " (Sources modified)" if r["git"].get("sources_modified") else ""))
    ld = r["load"]
    w = ld["wait"]
    lines.append("load average (1/5/15 min): %.2f %.2f %.2f at start (waited %.0f s for < %.2f: %s), "
                 "%.2f %.2f %.2f at end; timed at nice %d" % (
                     tuple(ld["at_start"]) + (w["waited_s"], w["threshold"], "reached" if w["reached"] else "NOT reached")
                     + tuple(ld["at_end"]) + (w.get("nice", 0),)))
    bi = r.get("headsup_binary_info", {})
    lines.append("headsup binary: %s, built %s%s" % (
        bi.get("path", r["headsup_binary"]), bi.get("built_utc", "?"),
        ("; WARNING: newer sources than the binary (rebuild?): " + ", ".join(bi["sources_newer_than_binary"]))
        if bi.get("sources_newer_than_binary") else ""))
    if ld.get("top_processes"):
        lines.append("busiest processes when timing started (%%CPU command): %s" % "; ".join(ld["top_processes"][:4]))
    lines.append("")
    rounds = r["settings"].get("rounds", 1)
    head = ["runtime", "single median µs" + (" (best of %d)" % rounds if rounds > 1 else ""), "p99 µs"] + ["batch %s w/s" % b for b in batches] + \
           ["load ms", "max |Δ| vs HeadsUp", "HeadsUp × single"] + ["HeadsUp × b%s" % b for b in batches]
    table = [head]

    def row_cells(row):
        if "unavailable" in row:
            return [row["name"], "unavailable"] + [""] * (len(head) - 2)
        cells = [row["name"], fmt_num(row["single"]["median_us"], 1), fmt_num(row["single"]["p99_us"], 1)]
        cells += [fmt_num(row["batch"].get(b, {}).get("windows_per_s")) for b in batches]
        cells += [fmt_num(row.get("load_ms"), 1)]
        if row.get("reference"):
            cells += ["(reference)", "1.00"] + ["1.00"] * len(batches)
        else:
            cells += ["%.1e %s" % (row["max_abs_diff"], "ok" if row["agrees"] else "DIFFERS in %d/%d" % (
                          row["windows_over_tolerance"], row["checked_windows"])),
                      "%.2f" % row["headsup_speedup_single"]]
            cells += ["%.2f" % row["headsup_speedup_batch"][b] if b in row["headsup_speedup_batch"] else "-"
                      for b in batches]
        return cells

    table.append(row_cells(hu))
    for row in r["peers"]:
        table.append(row_cells(row))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for i, t in enumerate(table):
        lines.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * wd for wd in widths))
    lines.append("")
    if rounds > 1:
        lines.append("single-window medians per round, µs (fresh processes, alternating; the table keeps the best): " +
                     "; ".join("%s %s" % (row["name"], " ".join("%.1f" % v for v in row["single_rounds_us"]))
                               for row in [hu] + r["peers"] if row.get("single_rounds_us")))
    lines.append("HeadsUp all cores (%d): %s windows/s" % (
        m.get("cores") or 0, ", ".join("batch %s %s" % (b, fmt_num(v)) for b, v in hu["batch_all_cores"].items())))
    if r.get("headsup_bench_json_at_end"):
        e = r["headsup_bench_json_at_end"]
        lines.append("HeadsUp again after the peers (drift check): single median %.1f µs, p99 %.1f µs; %s windows/s" % (
            e[batches[0]]["single_median_us"], e[batches[0]]["single_p99_us"],
            ", ".join("batch %s %s" % (b, fmt_num(f["batch_windows_per_s_1_thread"])) for b, f in e.items())))
    lines.append("HeadsUp model load: %.2f ms; %s multiply-adds per window" % (
        hu["load_ms"], fmt_num(r["multiply_adds_per_window"])))
    lines.append("peak multiply-add rate (one core, HeadsUp's SIMD type): %.1f G/s; HeadsUp reaches %.0f %% of it "
                 "single-window, %.0f %% batched" % (r["peak_multiply_adds_per_s"] / 1e9,
                                                    100 * r["single_fraction_of_peak"], 100 * r["batch_fraction_of_peak"]))
    agree = [p for p in r["peers"] if "agrees" in p]
    bad = [p["name"] for p in agree if not p["agrees"]]
    lines.append("outputs: %d of %d timed peers agree with `headsup model predict` to %.0e on all %d windows%s" % (
        len(agree) - len(bad), len(agree), r["settings"]["tolerance"], r["windows"]["count"],
        ("; DIFFER: " + ", ".join(bad)) if bad else ""))
    cpu = [(p["name"], p["single"]["cpu_per_wall"]) for p in agree]
    if cpu:
        lines.append("threads: process CPU time / wall time while timing single windows: " +
                     ", ".join("%s %.2f" % c for c in cpu))
    for note in r["notes"]:
        lines.append("note: " + note)
    for p in r["peers"]:
        if "unavailable" in p:
            lines.append("unavailable: %s: %s" % (p["name"], p["unavailable"]))
    for key, c in r["conversions"].items():
        if c.get("ops"):
            lines.append("%s: opset %s, ops %s" % (key, c.get("opset"), " ".join(c["ops"])))
    lite = [p for p in r["peers"] if p.get("ops") and p["name"] == "LiteRT"]
    if lite:
        lines.append("LiteRT ops: %s" % " ".join(lite[0]["ops"]))
    t = r["targets"]
    lines.append("")
    lines.append("targets (reported, not asserted):")
    lines.append("  single-window median <= %.0f µs: %.1f µs  %s" % (
        t["single_median_us_at_most"], t["single_median_us"], "met" if t["single_met"] else "NOT met"))
    if t["fastest_single_peer"]:
        lines.append("  >= %.0fx faster than the fastest peer (%s): %.2fx  %s" % (
            t["single_speedup_vs_fastest_peer_at_least"], t["fastest_single_peer"],
            t["single_speedup_vs_fastest_peer"], "met" if t["single_speedup_met"] else "NOT met"))
    lines.append("  batch (%s) >= %s windows/s on one thread: %s  %s" % (
        batches[0], fmt_num(t["batch_windows_per_s_at_least"]), fmt_num(t["batch_windows_per_s"]),
        "met" if t["batch_met"] else "NOT met"))
    if t["batch_faster_than_every_peer"] is not None:
        lines.append("  batch faster than every peer (all batch sizes): %s" % (
            "met" if t["batch_faster_than_every_peer"] else "NOT met"))
    v = r["versions"]
    lines.append("")
    lines.append("versions: " + ", ".join("%s %s" % kv for kv in sorted(v.items())) +
                 "; HeadsUp %s (%s)" % (hu["runtime"], r["headsup_binary"]))
    lines.append("run took %.0f s: %s" % (r["seconds"], r["command"]))
    return "\n".join(lines)
