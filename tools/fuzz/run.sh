#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of what HeadsUp
# parses itself, in process:
#   beacon-frames   BLE advertisement frames and region specs
#   session-csv     the session CSV reader (strict and lenient), unit detection, resampling, windows
#   model-config    the Keras model config JSON, the model card, the weight-to-layer mapping
#                   (over in-memory arrays) and a forward pass of what loads
#   dbus-values     the D-Bus value decoder on signals as sd-bus receives them from a peer (signature
#                   and body from the input; sd-bus checks a body as it is read)
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
targets=${FUZZ_TARGETS:-beacon-frames session-csv model-config dbus-values}
mkdir -p "$out/bin"
flags=(-sanitize=fuzzer,address -parse-as-library -O -package-name headsup)

build() {  # name module sources...
    local name=$1 module=$2
    shift 2
    swiftc "${flags[@]}" -module-name "$module" "$@" -o "$out/bin/$name"
}
# Modules the targets import, built first: HeadsUpSystem (also the model's library loader) and HeadsUpData (for
# the beacon regions and the CSV reader), and for HeadsUpModel the kernel modules (one per CPU level, each
# with its own -target-cpu, as in Package.swift) and the cpuid shim.
modules="$out/modules"
mkdir -p "$modules"
module() {  # name [swiftc flags...] -- sources...
    local name=$1
    shift
    local extra=()
    while [ "$1" != "--" ]; do extra+=("$1"); shift; done
    shift
    swiftc "${flags[@]}" -wmo -I "$modules" -module-name "$name" -emit-module -emit-module-path "$modules/$name.swiftmodule" \
        "${extra[@]}" -c "$@" -o "$modules/$name.o"
}
module HeadsUpSystem -- Sources/HeadsUpSystem/*.swift
module HeadsUpData -- $(find Sources/HeadsUpData -name '*.swift')
build beacon-frames BeaconFuzz -I "$modules" Sources/HeadsUpBeacons/Frames/*.swift Sources/HeadsUpBeacons/Regions/BeaconRegion.swift \
    tools/fuzz/BeaconFrameFuzzer.swift "$modules/HeadsUpData.o" "$modules/HeadsUpSystem.o"
build session-csv SessionFuzz -I "$modules" $(find Sources/HeadsUpData -name '*.swift') tools/fuzz/SessionCSVFuzzer.swift \
    "$modules/HeadsUpSystem.o"
build dbus-values DBusFuzz -I Sources/CSDBus Sources/HeadsUpDBus/*.swift tools/fuzz/DBusValueFuzzer.swift
module HeadsUpKernels -- Sources/HeadsUpKernels/*.swift
module HeadsUpKernelsAVX512 -target-cpu skylake-avx512 -- Sources/HeadsUpKernelsAVX512/*.swift
module HeadsUpKernelsAVX512Zen -target-cpu znver4 -- Sources/HeadsUpKernelsAVX512Zen/*.swift
module HeadsUpKernelsAVX2 -target-cpu haswell -- Sources/HeadsUpKernelsAVX2/*.swift
module HeadsUpKernelsNEON -- Sources/HeadsUpKernelsNEON/*.swift
module HeadsUpKernelsBaseline -- Sources/HeadsUpKernelsBaseline/*.swift
clang -O2 -fsanitize=fuzzer-no-link,address -I Sources/CCPUFeatures/include -c Sources/CCPUFeatures/cpu_features.c -o "$modules/cpu_features.o"
printf 'module CCPUFeatures {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CCPUFeatures/include/cpu_features.h" > "$modules/module.modulemap"
build model-config ModelFuzz -I Sources/CHDF5 -I "$modules" -Xcc -fmodule-map-file="$modules/module.modulemap" \
    $(find Sources/HeadsUpModel -name '*.swift') tools/fuzz/ModelConfigFuzzer.swift "$modules"/HeadsUpKernels*.o "$modules"/cpu_features.o \
    "$modules/HeadsUpSystem.o"

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
