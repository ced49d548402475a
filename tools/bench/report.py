"""run_bench.py's report: the figures of one run as a JSON-ready dict
(build_report) and as the printed table (format_report). Pure logic but for
machine_info and git_info; the tests feed it canned results."""

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from tools.bench.common import REPO, THREAD_ENV, TOLERANCE, rel

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


def headsup_row(args, run, version, automatic=None):
    """One HeadsUp row (one kernel level) from its rounds of `headsup model bench --json`,
    and the bench figures of its best round."""
    b0 = str(args.batch_sizes[0])
    # Every round timed the first batch size; the first round also the others.
    rounds = run.get("rounds") or [run["benches"]]
    hb = min((r[b0] for r in rounds), key=lambda f: f["single_median_us"])
    sizes = list(run["benches"])
    level = run.get("level")
    row = {
        "name": "HeadsUp (%s)" % level if level else "HeadsUp", "runtime": version,
        "kernel_level": hb.get("kernel_level", level),
        "kernels_forced": bool(level),  # HEADSUP_KERNELS=level; else the automatic choice
        "load_ms": hb["load_ms"],
        "single": {"median_us": hb["single_median_us"], "p99_us": hb["single_p99_us"],
                   "calls": args.headsup_iterations},
        "single_rounds_us": [r[b0]["single_median_us"] for r in rounds],
        "batch": {b: {"windows_per_s": max(r[b]["batch_windows_per_s_1_thread"] for r in rounds if b in r)}
                  for b in sizes},
        "batch_all_cores": {b: max(r[b]["batch_windows_per_s_all_cores"] for r in rounds if b in r) for b in sizes},
        "peak_multiply_adds_per_s": hb["peak_multiply_adds_per_s"],
        "single_fraction_of_peak": hb["single_fraction_of_peak"],
        "batch_fraction_of_peak": hb["batch_fraction_of_peak"],
        "max_abs_diff": 0.0, "agrees": True,
    }
    # The automatic choice's `headsup model predict` is the reference; a forced
    # level's own outputs are compared with it.
    row.update(run.get("outputs") or {})
    row["reference"] = not level or level == automatic
    return row, hb


def speedups(row, over):
    """How many times faster `row` is than `over`: single-window median, and windows/s per batch size."""
    return (over["single"]["median_us"] / row["single"]["median_us"],
            {b: row["batch"][b]["windows_per_s"] / v["windows_per_s"]
             for b, v in over["batch"].items() if b in row["batch"]})


def build_report(args, model, framework, windows_source, input_count, quiet, busy, end_load,
                 headsup, results, unavailable, install_failures, seconds):
    b0 = str(args.batch_sizes[0])
    version = headsup.get("version", "headsup")
    kernel_levels = dict(headsup.get("kernel_levels") or {})
    # one run per kernel level (--kernels), best first; without it one, the automatic choice
    level_rows, level_benches = [], []
    for run in headsup.get("levels") or [headsup]:
        row, bench = headsup_row(args, run, version, kernel_levels.get("automatic"))
        level_rows.append(row)
        level_benches.append(bench)
    hu, hb = level_rows[0], level_benches[0]
    kernel_levels["measured"] = [row["kernel_level"] for row in level_rows]
    kernel_levels.setdefault("requested", None)
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
    # HeadsUp's speed-up over each peer (and over its other kernel levels): the first level's
    for row in level_rows + rows:
        if "single" in row:
            row["headsup_speedup_single"], row["headsup_speedup_batch"] = speedups(hu, row)
    timed = [r for r in rows if "single" in r]
    # each kernel level's speed-up over each timed peer
    for row in level_rows:
        row["speedup_over_peers"] = {}
        for peer in timed:
            single, batch = speedups(row, peer)
            row["speedup_over_peers"][peer["name"]] = {"single": single, "batch": batch}
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
        "machine": machine_info(hb.get("cpu")),
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
        "headsup_levels": level_rows,
        "kernel_levels": kernel_levels,
        "headsup_binary": headsup["binary"],
        "headsup_binary_info": headsup.get("binary_info", {}),
        "headsup_bench_json": headsup["benches"],
        "headsup_bench_json_by_level": {
            (run.get("level") or "automatic"): run["benches"] for run in headsup.get("levels") or [headsup]},
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


def machine_info(described=None):
    """Cores, CPU model and kernel release: the CPU and release as `headsup model bench
    --json` describes them ("cpu": "MODEL, Linux RELEASE") when it does, else read here."""
    info = {"cores": os.cpu_count(), "platform": platform.platform(), "kernel_release": platform.release()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    if described:
        info["headsup_cpu"] = described
        cpu, sep, release = described.rpartition(", Linux ")
        if sep and cpu:
            info["cpu"], info["kernel_release"] = cpu, release
        else:
            info["cpu"] = described
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


def kernel_levels_line(r):
    """The header's line on HeadsUp's kernel levels: which were measured and which this CPU runs."""
    k = r.get("kernel_levels") or {}
    measured = [level or "?" for level in k.get("measured") or []]
    auto = k.get("automatic")
    runs = "; this CPU runs %s" % ", ".join(k["supported"]) if k.get("supported") else ""
    if not k.get("requested"):
        if not any(level != "?" for level in measured):
            return "HeadsUp kernel level: not reported by this binary (its bench JSON has no kernel_level)"
        return "HeadsUp kernel level measured: %s, the automatic choice%s (--kernels all times every level)" % (
            ", ".join(measured), runs)
    return "HeadsUp kernel levels measured: %s (--kernels %s, one run each with HEADSUP_KERNELS)%s" % (
        ", ".join("%s (the automatic choice)" % level if level == auto else level for level in measured),
        k["requested"], runs)


def level_table(r, batches):
    """With --kernels: each HeadsUp level's speed-up over each timed peer (lines, then a blank one)."""
    levels = r.get("headsup_levels") or []
    if not (r.get("kernel_levels") or {}).get("requested") or not levels:
        return []
    peers = [p["name"] for p in r["peers"] if "single" in p]
    if not peers:
        return []
    lines = ["HeadsUp's speed-up over each peer per kernel level, single window / %s "
             "(the peers choose their own kernels for this CPU, whatever HEADSUP_KERNELS says):" %
             " / ".join("batch %s" % b for b in batches)]
    table = [["kernel level"] + peers]
    for row in levels:
        cells = [row["name"]]
        for name in peers:
            over = row["speedup_over_peers"][name]
            cells.append(" / ".join(["%.2f" % over["single"]] + [
                "%.2f" % over["batch"][b] if b in over["batch"] else "-" for b in batches]))
        table.append(cells)
    widths = [max(len(t[i]) for t in table) for i in range(len(table[0]))]
    for i, t in enumerate(table):
        lines.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * wd for wd in widths))
    lines.append("")
    return lines


def break_even_lines(r, levels, batches):
    """With more than one level: the fraction of each level's own peak at
    which HeadsUp's largest batch would match the fastest peer's. A ratio
    against a peer running the CPU's widest kernels says as much about the
    vector width as about the code; this says how hard a level's target is,
    next to the fraction HeadsUp reaches."""
    if len(levels) < 2 or not batches:
        return []
    batch = max(batches, key=int)
    peers = [(p["batch"][batch]["windows_per_s"], p["name"]) for p in r["peers"]
             if (p.get("batch") or {}).get(batch, {}).get("windows_per_s")]
    if not peers or not r.get("multiply_adds_per_window"):
        return []
    windows, name = max(peers)
    rate = windows * r["multiply_adds_per_window"]
    return ["to match %s's batch %s (%s windows/s, %.1f G multiply-adds/s), a level needs this fraction of its peak "
            "(HeadsUp's own in brackets): %s" % (
                name, batch, fmt_num(windows), rate / 1e9, "; ".join(
                    "%s %.0f %% (%.0f %%)" % (row["kernel_level"], 100 * rate / row["peak_multiply_adds_per_s"],
                                              100 * row["batch_fraction_of_peak"])
                    for row in levels if row.get("peak_multiply_adds_per_s")))]


def format_report(r):
    hu = r["headsup"]
    batches = [str(b) for b in r["settings"]["batches"]]
    lines = []
    lines.append("HeadsUp benchmark: %s (%s), %d windows (%s)" % (
        r["model"], r["framework"], r["windows"]["count"], r["windows"]["source"]))
    m = r["machine"]
    lines.append("machine: %s, %s cores, Linux %s; everything single-threaded; git %s%s" % (
        m.get("cpu", "?"), m.get("cores"), m.get("kernel_release", "?"), r["git"].get("head", "?"),
        " (Sources modified)" if r["git"].get("sources_modified") else ""))
    lines.append(kernel_levels_line(r))
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

    levels = r.get("headsup_levels") or [hu]
    for row in levels + r["peers"]:
        table.append(row_cells(row))
    widths = [max(len(t[i]) for t in table) for i in range(len(head))]
    for i, t in enumerate(table):
        lines.append("  ".join(c.ljust(widths[j]) if j == 0 else c.rjust(widths[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * wd for wd in widths))
    if len(levels) > 1:
        lines.append("(the \"HeadsUp ×\" columns: %s's speed-up over each row; each level's own against the peers below)"
                     % hu["name"])
    lines.append("")
    lines.extend(level_table(r, batches))
    if rounds > 1:
        lines.append("single-window medians per round, µs (fresh processes, alternating; the table keeps the best): " +
                     "; ".join("%s %s" % (row["name"], " ".join("%.1f" % v for v in row["single_rounds_us"]))
                               for row in levels + r["peers"] if row.get("single_rounds_us")))
    for row in levels:
        lines.append("%s all cores (%d): %s windows/s" % (
            row["name"], m.get("cores") or 0,
            ", ".join("batch %s %s" % (b, fmt_num(v)) for b, v in row["batch_all_cores"].items())))
    if r.get("headsup_bench_json_at_end"):
        e = r["headsup_bench_json_at_end"]
        lines.append("%s again after the peers (drift check): single median %.1f µs, p99 %.1f µs; %s windows/s" % (
            hu["name"], e[batches[0]]["single_median_us"], e[batches[0]]["single_p99_us"],
            ", ".join("batch %s %s" % (b, fmt_num(f["batch_windows_per_s_1_thread"])) for b, f in e.items())))
    lines.append("HeadsUp model load: %.2f ms; %s multiply-adds per window" % (
        hu["load_ms"], fmt_num(r["multiply_adds_per_window"])))
    if len(levels) == 1:
        lines.append("peak multiply-add rate (one core, HeadsUp's SIMD type): %.1f G/s; HeadsUp reaches %.0f %% of it "
                     "single-window, %.0f %% batched" % (r["peak_multiply_adds_per_s"] / 1e9,
                                                        100 * r["single_fraction_of_peak"], 100 * r["batch_fraction_of_peak"]))
    else:
        lines.append("peak multiply-add rate (one core, each level's SIMD type) and HeadsUp's fraction of it, "
                     "single-window / batched: " + "; ".join(
                         "%s %.1f G/s, %.0f %% / %.0f %%" % (
                             row["kernel_level"], row["peak_multiply_adds_per_s"] / 1e9,
                             100 * row["single_fraction_of_peak"], 100 * row["batch_fraction_of_peak"])
                         for row in levels))
    lines.extend(break_even_lines(r, levels, batches))
    agree = [p for p in r["peers"] if "agrees" in p]
    bad = [p["name"] for p in agree if not p["agrees"]]
    lines.append("outputs: %d of %d timed peers agree with `headsup model predict` to %.0e on all %d windows%s" % (
        len(agree) - len(bad), len(agree), r["settings"]["tolerance"], r["windows"]["count"],
        ("; DIFFER: " + ", ".join(bad)) if bad else ""))
    forced = [row for row in levels if not row.get("reference")]
    if forced:
        auto = r.get("kernel_levels", {}).get("automatic")
        lines.append("outputs per kernel level against the automatic choice's%s: %s" % (
            " (%s)" % auto if auto else "",
            ", ".join("%s %s (max |Δ| %.1e)" % (row["kernel_level"], "agrees" if row["agrees"] else "DIFFERS in %d/%d" % (
                row["windows_over_tolerance"], row["checked_windows"]), row["max_abs_diff"]) for row in forced)))
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
