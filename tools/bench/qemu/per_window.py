#!/usr/bin/env python3
"""Instructions per scored window of an aarch64 `headsup`, counted under
qemu-user with insncount.so, and cycles per window by llvm-mca.

Per kernel level it runs `model bench --iterations N` and `2N` (each timed
call bracketed by clock reads, which the plugin marks) and `model predict`
on the first 256 and 512 lines of --windows, then prints:
  - each timed single-window call's instructions (and class mix), and the
    same by difference of the two bench runs' totals;
  - the one-thread batch of 256's instructions per window;
  - predict's 512-minus-256 difference per window (text parsing included);
  - the hot functions and instructions of a call (block profile, 2N minus N);
  - with --mca, llvm-mca's cycles for those hot blocks per CPU model.
See docs/notes/2026-11-27-arm64-cost-on-paper.md.
"""
import argparse, bisect, collections, json, os, re, statistics, subprocess

CLASSES = ["all", "vfma", "fpsimd", "vldst", "ldst", "branch", "int"]
BASE = 0x5500000000  # where qemu-user 7.2 maps an aarch64 PIE on an x86-64 host


def run(a, level, args, tag):
    env = dict(os.environ, QEMU_LD_PREFIX=a.sysroot, HEADSUP_KERNELS=level, SWIFT_DETERMINISTIC_HASHING="1")
    plugin = f"{a.plugin},total=1,mark=113,out={a.out}/{tag}.counts,profile={a.out}/{tag}.tb"
    with open(f"{a.out}/{tag}.stdout", "w") as stdout:
        subprocess.run(["nice", "-n", "10", a.qemu, "-plugin", plugin, a.binary] + args, env=env, stdout=stdout, check=True)


def counts(path):
    marks, total = [], None
    for line in open(path):
        f = line.split()
        if f[0] == "mark":
            marks.append((int(f[1]), [int(x) for x in f[2:]]))
        elif f[0] == "total":
            total = [int(x) for x in f[2:]]
    return marks, total


def bench(a, tag, n):
    marks, total = counts(f"{a.out}/{tag}.counts")
    main = [c for vcpu, c in marks if vcpu == 0]
    # The timed calls: the last n intervals of a single window's size, every other interval.
    timed = [i for i, c in enumerate(main) if 5e5 < c[0] < 5e6][-n:]
    assert len(timed) == n and timed == list(range(timed[0], timed[0] + 2 * n, 2)), "timed calls not found"
    batches = [c for c in main[timed[-1] + 1:] if 1.5e8 < c[0] < 6.5e8]  # sort + warm-up batch, then the timed batch
    # Loading waits for the model-check child in a loop of identical small intervals (a clock read and a
    # 2 ms sleep each): their number depends on time, not work, so the difference leaves them out.
    waits = collections.Counter(c[0] for c in main[:timed[0]] if c[0] < 1000).most_common(1)
    wait = waits[0][0] * waits[0][1] if waits else 0
    return dict(timed=[main[i] for i in timed], between=[main[i + 1][0] for i in timed[:-1]], batch=batches[1], total=total,
                wait=wait, polls=waits[0] if waits else (0, 0))


def profile(a, level, tag1, tag2, calls):
    def blocks(path):
        d = collections.Counter()
        for line in open(path):
            addr, n, e = line.split()
            d[(int(addr, 16), int(n))] += int(e)
        return d
    b1, b2 = blocks(f"{a.out}/{tag1}.tb"), blocks(f"{a.out}/{tag2}.tb")
    per = {k: (b2[k] - b1.get(k, 0)) / calls for k in set(b1) | set(b2)}
    total = sum(n * v for (addr, n), v in per.items())
    syms = []
    for line in subprocess.run(["llvm-nm", "-n", "--defined-only", a.binary], capture_output=True, text=True).stdout.splitlines():
        f = line.split(maxsplit=2)
        if len(f) == 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16), f[2]))
    starts = [s[0] for s in syms]
    def sym(off):
        i = bisect.bisect_right(starts, off) - 1
        return syms[i][1] if i >= 0 else "?"
    sections = subprocess.run(["llvm-readelf", "-SW", a.binary], capture_output=True, text=True).stdout
    text_start, text_size = (int(x, 16) for x in re.search(r"\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", sections).groups())
    inside = {k: v for k, v in per.items() if text_start <= k[0] - BASE < text_start + text_size}
    by_fn = collections.Counter()
    for (addr, n), v in inside.items():
        by_fn[sym(addr - BASE)] += n * v
    names = [name for name, _ in by_fn.most_common(8)]
    nice = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    print(f"  block profile ({2 * calls} minus {calls} calls): {total:.0f} per call, of which outside the binary {total - sum(by_fn.values()):.0f}")
    for name, readable in zip(names, nice):
        print(f"    {by_fn[name]:9.0f} {100 * by_fn[name] / total:5.1f} %  {readable[:110]}")
    # The hot blocks (99.5 % of the call): disassembled, classified by mnemonic, kept for llvm-mca.
    hot, covered = [], 0.0
    for (addr, n), v in sorted(inside.items(), key=lambda kv: -kv[0][1] * kv[1]):
        if v <= 0 or covered > 0.995 * total:
            break
        off = addr - BASE
        text = subprocess.run(["llvm-objdump", "-d", "--no-show-raw-insn", "--no-leading-addr", f"--start-address={off:#x}",
                               f"--stop-address={off + 4 * n:#x}", a.binary], capture_output=True, text=True).stdout
        insns = [re.sub(r"\s*//.*", "", l.strip()) for l in text.splitlines() if l[:1] in "\t " and l.strip() and not l.strip().endswith(":")]
        assert len(insns) == n, hex(off)
        hot.append((insns, v, sym(off), off))
        covered += n * v
    mnemonics = collections.Counter()
    for insns, v, _, _ in hot:
        for x in insns:
            op = x.split()[0]
            if op in ("ldr", "str", "ldp", "stp", "ldur", "stur"):
                op += " q" if re.search(r"\bq\d+", x) else " s/d" if re.search(r"\b[sd]\d+", x) else " x/w"
            elif op in ("fmla", "fmls"):
                op += " (by element)" if "[" in x else " (vector)"
            mnemonics[op] += v
    # The LSTM gates' per-lane loops: its blocks run at least 10 times per call of it.
    gates = [(i, v, off) for i, v, s, off in hot if "standardLSTMGates" in s]
    entry = next((v for i, v, off in gates if syms[bisect.bisect_right(starts, off) - 1][0] == off), None)
    lanes = sum(len(i) * v for i, v, off in gates if entry and v >= 10 * entry)
    for k, (insns, v, name, off) in enumerate(hot):  # the part llvm-mca's figures are split by
        part = "standardLSTMGates, per-lane loops" if "standardLSTMGates" in name and entry and v >= 10 * entry else \
            "standardLSTMGates, the rest" if "standardLSTMGates" in name else \
            "matrix kernels" if "lstmWindow" in name or "Kernels()" in nice_name(name) else "the rest"
        hot[k] = (insns, v, part, off)
    print(f"  hot blocks: {len(hot)}, {100 * covered / total:.1f} % of the call; standardLSTMGates {sum(len(i) * v for i, v, _ in gates):.0f}, "
          f"of which its per-lane loops {lanes:.0f} (entered {entry} times a call)")
    print("    " + ", ".join(f"{op} {c:.0f}" for op, c in mnemonics.most_common(16)))
    return hot


def nice_name(name):
    return subprocess.run(["swift-demangle", "--simplified", "--compact"], input=name, capture_output=True, text=True).stdout


def mca(a, level, hot):
    insns = sum(len(i) * v for i, v, _, _ in hot)
    for cpu in a.cpus:
        cycles = 0.0
        parts = collections.defaultdict(lambda: [0.0, 0.0])
        for block, v, part, _ in hot:
            text = re.sub(r"0x[0-9a-f]+ <[^>]*>", ".", "\n".join(block) + "\n")  # branch targets: llvm-mca takes no branch
            r = subprocess.run([a.mca, "-mtriple=aarch64", f"-mcpu={cpu}", "-iterations=200", "-skip-unsupported-instructions=parse-failure"],
                               input=text, capture_output=True, text=True, check=True)
            c = int(re.search(r"Total Cycles:\s+(\d+)", r.stdout).group(1)) / 200 * v
            cycles += c
            parts[part][0] += len(block) * v
            parts[part][1] += c
        print(f"  llvm-mca -mcpu={cpu}: {cycles:.0f} cycles for the hot blocks' {insns:.0f} instructions, IPC {insns / cycles:.2f}; by part: "
              + "; ".join(f"{p} {i:.0f} instructions, {c:.0f} cycles" for p, (i, c) in sorted(parts.items(), key=lambda x: -x[1][1])))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--qemu", required=True, help="a qemu-aarch64 with plugin support (Debian bookworm's qemu-user)")
    p.add_argument("--plugin", required=True, help="insncount.so")
    p.add_argument("--binary", required=True, help="the aarch64 headsup (a copy that nothing rebuilds)")
    p.add_argument("--sysroot", required=True, help="an arm64 root with the runtime libraries")
    p.add_argument("--model", required=True)
    p.add_argument("--windows", required=True, help="at least 512 flattened windows, one a line")
    p.add_argument("--out", required=True)
    p.add_argument("--levels", nargs="+", default=["neon", "baseline"])
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--mca", help="llvm-mca (LLVM 19 has the Neoverse N1 model)")
    p.add_argument("--cpus", nargs="+", default=["cortex-a53", "cortex-a72", "neoverse-n1"])
    p.add_argument("--analyse-only", action="store_true", help="reuse the counts already in --out")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    lines = open(a.windows).read().splitlines()
    for n in (256, 512):
        with open(f"{a.out}/windows-{n}.csv", "w") as f:
            f.write("\n".join(lines[:n]) + "\n")
    n1, n2 = a.iterations, 2 * a.iterations
    for level in a.levels:
        if not a.analyse_only:
            for n in (n1, n2):
                run(a, level, ["model", "bench", "--model", a.model, "--iterations", str(n), "--batch", "256", "--windows", a.windows, "--json"], f"bench-{level}-{n}")
            for n in (256, 512):
                run(a, level, ["model", "predict", "--model", a.model, f"{a.out}/windows-{n}.csv"], f"predict-{level}-{n}")
        r1, r2 = bench(a, f"bench-{level}-{n1}", n1), bench(a, f"bench-{level}-{n2}", n2)
        info = json.load(open(f"{a.out}/bench-{level}-{n1}.stdout"))
        timed = [c[0] for c in r1["timed"] + r2["timed"]]
        print(f"== {level} (kernel_level {info['kernel_level']}, multiply_adds_per_window {info['multiply_adds_per_window']:.0f})")
        print(f"  single window, each timed call: min {min(timed)}, median {statistics.median(timed):.0f}, max {max(timed)} ({len(timed)} calls); "
              f"between calls {min(r1['between'])}-{max(r1['between'])}")
        typical = next(c for c in r1["timed"] + r2["timed"] if c[0] == statistics.median_low(timed))
        print("    mix of a median call: " + ", ".join(f"{k} {v}" for k, v in zip(CLASSES, typical)))
        d = r2["total"][0] - r1["total"][0]
        w = d - (r2["wait"] - r1["wait"])
        print(f"  by difference (bench --iterations {n2} minus {n1}): {d} = {d / (n2 - n1):.0f} per timed call and the {statistics.median(r1['between']):.0f} between calls; "
              f"less the model check's wait loops ({r1['polls'][1]} and {r2['polls'][1]} rounds of {r1['polls'][0]}): {w} = {w / (n2 - n1):.0f}")
        for r in (r1, r2):
            print(f"  batch of 256, one thread: {r['batch'][0]} = {r['batch'][0] / 256:.0f} per window")
        print("    mix per window: " + ", ".join(f"{k} {v / 256:.0f}" for k, v in zip(CLASSES, r1["batch"])))
        p1, p2 = counts(f"{a.out}/predict-{level}-256.counts")[1][0], counts(f"{a.out}/predict-{level}-512.counts")[1][0]
        print(f"  model predict, 512 minus 256 windows: {(p2 - p1) / 256:.0f} per window (reading the text and printing included)")
        hot = profile(a, level, f"bench-{level}-{n1}", f"bench-{level}-{n2}", n2 - n1)
        if a.mca:
            mca(a, level, hot)


if __name__ == "__main__":
    main()
