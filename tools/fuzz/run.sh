#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of what HeadsUp
# parses itself, in process:
#   beacon-frames   BLE advertisement frames and region specs
#   session-csv     the session CSV reader (strict and lenient), unit detection, resampling, windows
#   model-config    the Keras model config JSON, the model card, the weight-to-layer mapping
#                   (over in-memory arrays) and a forward pass of what loads
#
#   tools/fuzz/run.sh [SECONDS]   each target for SECONDS (default 30; make test)
#   tools/fuzz/run.sh --long      each target for 10 minutes; prints executions per target
#   FUZZ_TARGETS="session-csv" FUZZ_OUT=.build/fuzz-long tools/fuzz/run.sh --long   one target, its own folder
#
# A crash leaves its input in .build/fuzz/<target>/ and fails. Whole damaged
# HDF5 files go through the command line instead (tools/fuzz/mutate_models.py):
# libhdf5 itself crashes on some of them. The YAML configuration is checked by
# the settings tests (every key, every kind of bad value), not fuzzed here: its
# parser is Yams, built only inside the package.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
[ "$seconds" = "--long" ] && seconds=600
out=${FUZZ_OUT:-.build/fuzz}
targets=${FUZZ_TARGETS:-beacon-frames session-csv model-config}
mkdir -p "$out/bin"
flags=(-sanitize=fuzzer,address -parse-as-library -O -package-name headsup)
hdf5=($(pkg-config --cflags --libs hdf5 | sed -e 's/-I/-Xcc -I/g'))

build() {  # name module sources...
    local name=$1 module=$2
    shift 2
    swiftc "${flags[@]}" -module-name "$module" "$@" -o "$out/bin/$name"
}
build beacon-frames BeaconFuzz Sources/HeadsUpBeacons/Frames/*.swift Sources/HeadsUpBeacons/Regions/BeaconRegion.swift \
    tools/fuzz/BeaconFrameFuzzer.swift
build session-csv SessionFuzz $(find Sources/HeadsUpData -name '*.swift') tools/fuzz/SessionCSVFuzzer.swift
build model-config ModelFuzz -I Sources/CHDF5 "${hdf5[@]}" $(find Sources/HeadsUpModel -name '*.swift') tools/fuzz/ModelConfigFuzzer.swift

status=0
for target in $targets; do
    # A private copy of the seed corpus: what the fuzzer finds stays out of the repository.
    rm -rf "$out/$target" && mkdir -p "$out/$target" && cp -r "tools/fuzz/corpus/$target" "$out/$target/corpus"
    max_len=$([ "$target" = beacon-frames ] && echo 64 || echo 8192)
    if ! "$out/bin/$target" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=4096 -timeout=10 \
        -artifact_prefix="$out/$target/" -print_final_stats=1 "$out/$target/corpus" > "$out/$target/log" 2>&1; then
        status=1
        tail -n 40 "$out/$target/log"
        echo "fuzz: $target FAILED; the input is in $out/$target/"
        continue
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$target/log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $target survived $seconds s ($runs executions, 0 crashes, 0 hangs)"
done
exit $status
