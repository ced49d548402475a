# The arm64 package's own checks, sourced by
# Tests/Harness/install/clean_root_test.sh --checks inside its namespace,
# with the package installed in the clean arm64 root ($root), every program
# there running under qemu-user. arm64_test.sh sets HEADSUP_ARM64_REPO (the
# source tree), HEADSUP_ARM64_REFERENCE (the amd64 binary's evaluate output)
# and HEADSUP_ARM64_AMD64 (that binary).
# shellcheck shell=bash

arm64_repo=$HEADSUP_ARM64_REPO
reference=$HEADSUP_ARM64_REFERENCE

check "the installed headsup is an aarch64 program" "AArch64" sh -c 'od -An -tx1 -j18 -N2 /usr/bin/headsup | grep -q "b7 00" && echo AArch64'

# The same files as the amd64 package (make test's test-install built it),
# the units and udev rule in trixie's /usr/lib where bookworm's has /lib.
amd64_deb=$(cat "$arm64_repo/.build-dist/deb-path" 2>/dev/null)
[ -n "$amd64_deb" ] && amd64_deb=$arm64_repo/$amd64_deb
if [ -f "$amd64_deb" ]; then
    files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./lib/|./usr/lib/|' | sort; }
    if diff <(files "$amd64_deb") <(files "$deb") > "$work/files.diff"; then
        ok "the arm64 package holds the amd64 package's files ($(grep -c . <(files "$deb")))"
    else
        fail "the arm64 package's files differ from $(basename "$amd64_deb")'s"
        head -10 "$work/files.diff" | sed 's/^/#   /'
    fi
else
    ok "# SKIP the file list against the amd64 package: no .build-dist/deb-path (make deb)"
fi

# Every replay scenario of the source tree, as the amd64 test replays it
# (Tests/HeadsUpCLITests/ReplayTests.swift), byte for byte against its
# expected.jsonl (written by the amd64 build: make scenarios).
mkdir -p "$root/tmp/scenarios"
scenarios=0
for dir in "$arm64_repo"/datasets/scenarios/*/; do
    name=$(basename "$dir")
    [ -f "$dir/expected.jsonl" ] || continue
    scenarios=$((scenarios + 1))
    cp -r "$dir" "$root/tmp/scenarios/$name"
    in_root headsup replay "/tmp/scenarios/$name" --json --model /usr/share/headsup/weights/model.h5 --no-desktop \
        > "$work/replay-$name.jsonl" 2> "$work/replay-$name.err"
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "$work/replay-$name.jsonl" "$dir/expected.jsonl"; then
        ok "replay $name on arm64: byte for byte its expected.jsonl ($(wc -l < "$dir/expected.jsonl") lines)"
    else
        fail "replay $name on arm64 (exit $rc) differs from datasets/scenarios/$name/expected.jsonl"
        diff "$dir/expected.jsonl" "$work/replay-$name.jsonl" | head -10 | sed 's/^/#   /'
        tail -5 "$work/replay-$name.err" | sed 's/^/#   /'
    fi
done
[ $scenarios -gt 0 ] || fail "no scenario with an expected.jsonl in $arm64_repo/datasets/scenarios"

# evaluate of the bundled test sessions: the installed model and test split
# (the same files the amd64 reference read from the source tree).
in_root headsup evaluate --json /tmp/evaluate.json > "$work/evaluate.txt" 2> "$work/evaluate.err"
rc=$?
if [ $rc -ne 0 ]; then
    fail "headsup evaluate --json on arm64 (exit $rc)"
    tail -10 "$work/evaluate.err" | sed 's/^/#   /'
elif out=$(python3 "$arm64_repo/Tests/Harness/arm64/compare_evaluations.py" "$reference/evaluate.json" "$root/tmp/evaluate.json" 2>&1); then
    ok "evaluate on arm64 gives the amd64 binary's figures: $out"
else
    fail "evaluate on arm64 differs from the amd64 binary's"
    sed 's/^/#   /' <<<"$out" | head -20
fi
if diff <(grep -v "^wrote" "$reference/evaluate.txt") <(grep -v "^wrote" "$work/evaluate.txt") > "$work/evaluate.diff"; then
    ok "evaluate's table on arm64 is the amd64 binary's, line for line"
else
    fail "evaluate's table on arm64 differs from the amd64 binary's"
    head -10 "$work/evaluate.diff" | sed 's/^/#   /'
fi

# libhdf5: the package names the version its headers were (trixie: 1.14),
# and the error names that version and its package when it cannot be loaded.
hdf5=$(sed -nE 's/.*(libhdf5-[0-9]+[^ ,]*).*/\1/p' <<<"$(dpkg-deb -f "$deb" Depends)")
check "the package depends on trixie's libhdf5 1.14 (libhdf5-310)" "libhdf5-310" echo "$hdf5"
check "a libhdf5 that cannot be loaded is named with the version built for and its package" \
    "needs libhdf5 1.14.x, the version HeadsUp was built for (Debian: apt install libhdf5-310" \
    sh -c 'HEADSUP_LIBHDF5=/nonexistent/libhdf5_serial.so.310 headsup model inspect /usr/share/headsup/weights/model.h5 2>&1; true'
check "the model check loads the system's libhdf5 1.14 (libhdf5_serial.so.310)" "libhdf5_serial.so.310" \
    sh -c 'HEADSUP_LIBHDF5=libhdf5_serial.so.310 headsup model inspect /usr/share/headsup/weights/model.h5 > /dev/null && echo libhdf5_serial.so.310'

# The kernel level the engine runs on arm64.
check "model inspect names the kernel level it runs on arm64" "Kernels: " \
    headsup model inspect /usr/share/headsup/weights/model.h5

# The kernel self-test (headsup model selftest): the engine against the
# reference layers (LSTMs of 1-50 units) and, with --fixtures, against
# Keras's own outputs for the source tree's fixture models, alone and in
# batches to the bit. Run once to list the levels this CPU runs (its table's
# first column), then once per level with HEADSUP_KERNELS set, with the
# fixtures.
if in_root headsup model selftest --help > /dev/null 2>&1; then
    cp -r "$arm64_repo/Tests/Fixtures/keras" "$root/tmp/keras-fixtures"
    in_root headsup model selftest > "$work/selftest.txt" 2>&1
    rc=$?
    levels=$(awk '$NF == "ok" || $NF == "FAILED" { print $1 }' "$work/selftest.txt" | uniq)
    if [ $rc -eq 0 ] && [ -n "$levels" ]; then
        ok "model selftest on arm64 lists the levels it runs: $(echo $levels)"
    else
        fail "model selftest on arm64 (exit $rc, levels: ${levels:-none})"
        tail -15 "$work/selftest.txt" | sed 's/^/#   /'
    fi
    for level in $levels; do
        check "model selftest --fixtures with HEADSUP_KERNELS=$level" "" \
            sh -c "HEADSUP_KERNELS=$level headsup model selftest --fixtures /tmp/keras-fixtures"
    done
else
    fail "the arm64 binary has no model selftest"
fi
