#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of the beacon frame
# parsers, for a bounded time: tools/fuzz/run.sh [SECONDS] (default 30).
# make test runs it; a crash leaves its input in .build/fuzz/ and fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
out=.build/fuzz
mkdir -p "$out" tools/fuzz/corpus/beacon-frames
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name BeaconFuzz \
    Sources/HeadsUpBeacons/Frames/*.swift Sources/HeadsUpBeacons/Regions/BeaconRegion.swift \
    tools/fuzz/BeaconFrameFuzzer.swift -o "$out/beacon-frames"
# A private copy of the seed corpus: what the fuzzer finds stays out of the repository.
rm -rf "$out/corpus" && cp -r tools/fuzz/corpus/beacon-frames "$out/corpus"
"$out/beacon-frames" -max_total_time="$seconds" -max_len=64 -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" 2>&1 | tail -n 12
echo "fuzz: beacon frame parsers survived ${seconds} s"
