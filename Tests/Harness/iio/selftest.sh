#!/bin/bash
# Proves the fake IIO kernel with the REAL libiio 0.24 tools (iio_info,
# iio_attr, iio_readdev, iiod) and the real libiio.so (libiio_probe.py).
# Takes about 30 s.  Exit 0 = all passed, 1 = a check failed, 77 = cannot
# run here (not root / no namespaces / tools missing).
#
#   Tests/Harness/iio/selftest.sh            run everything
#   Tests/Harness/iio/selftest.sh --inner X  (internal) checks run inside the harness
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
H="$here/run_in_fake_kernel.sh"
PY=/usr/bin/python3
FAKE="$here/fake_iio.py"
failures=0

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }
# check LABEL COMMAND... : ok when COMMAND succeeds
check() { local label=$1; shift; if "$@"; then ok "$label"; else fail "$label"; fi; }
contains() { grep -F -q -- "$2" "$1"; }
# wait_gone PID SECONDS: 0 when the process ended in time
wait_gone() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
        sleep 0.1
    done
    return 1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
verify() {  # verify FILE DEVICE CHANNELS SAMPLES RATE
    local out
    out=$("$PY" "$FAKE" verify --truth "$FAKE_IIO_TRUTH" --device "$2" --channels "$3" \
        --samples "$4" --rate "$5" "$1")
    local rc=$?
    echo "#   $out" | head -3
    return $rc
}
probe_field() {  # probe_field JSONFILE EXPR: prints json.load(f) evaluated with EXPR
    "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# ---------------------------------------------------------------------------
# Checks that run INSIDE the fake kernel
# ---------------------------------------------------------------------------
inner_local() {
    local t=$1
    iio_info >"$t/info.txt" 2>&1
    check "iio_info lists bmi160 as buffer capable" contains "$t/info.txt" "iio:device0: bmi160 (buffer capable)"
    check "iio_info lists lis3mdl" contains "$t/info.txt" "iio:device1: lis3mdl (buffer capable)"
    check "iio_info lists the trigger" contains "$t/info.txt" "trigger0: lis3mdl-trigger"
    check "iio_info shows lis3mdl's current trigger" contains "$t/info.txt" "Current trigger: trigger0(lis3mdl-trigger)"
    check "iio_info shows accel_x scan element" contains "$t/info.txt" "accel_x:  (input, index: 0, format: le:S16/16>>0)"
    check "iio_info shows timestamp index 6 s64" contains "$t/info.txt" "timestamp:  (input, index: 6, format: le:S64/64>>0)"
    check "iio_info shows accel scale" contains "$t/info.txt" "scale value: 0.000598205"
    check "iio_info shows anglvel scale" contains "$t/info.txt" "scale value: 0.001065264"
    check "iio_info shows magn scale" contains "$t/info.txt" "scale value: 0.000146"
    check "in_mount_matrix appears as channel 'mount' attr 'matrix'" contains "$t/info.txt" "matrix value: 0, 1, 0; 1, 0, 0; 0, 0, -1"
    check "in_magn_mount_matrix appears on magn channels" contains "$t/info.txt" "mount_matrix value: -1, 0, 0; 0, 1, 0; 0, 0, -1"
    check "iio_info shows sampling_frequency" contains "$t/info.txt" "sampling_frequency value: 104.000000"
    check "iio_info shows sampling_frequency_available" contains "$t/info.txt" "sampling_frequency_available value: 12.500000 26.000000 52.000000 104.000000 208.000000 416.000000"

    local v
    v=$(iio_attr -d bmi160 sampling_frequency 50 2>&1)
    check "iio_attr write 50 echoes the snapped 52.000000 (synchronous store)" [ "$v" = "52.000000" ]
    v=$(iio_attr -d bmi160 sampling_frequency 2>&1)
    check "a later read gives 52.000000" [ "$v" = "52.000000" ]
    v=$(iio_attr -d bmi160 sampling_frequency_available 3 2>&1)
    check "writing a read-only attribute fails with EACCES" contains <(echo "$v") "Permission denied (13)"
    v=$(iio_attr -d bmi160 sampling_frequency bogus 2>&1)
    check "writing a malformed value fails with EINVAL" contains <(echo "$v") "Invalid argument (22)"

    iio_readdev -u local: -b 25 -s 100 -T 5000 bmi160 accel_x accel_y accel_z timestamp \
        >"$t/accel.bin" 2>"$t/accel.err"
    check "iio_readdev local: 100 accel samples decode to the truth at 52 Hz" \
        verify "$t/accel.bin" bmi160 accel_x,accel_y,accel_z,timestamp 100 52
    iio_readdev -u local: -b 26 -s 52 -T 5000 bmi160 >"$t/all.bin" 2>/dev/null
    check "iio_readdev local: all 7 bmi160 channels (24-byte samples, ts at offset 16)" \
        verify "$t/all.bin" bmi160 accel_x,accel_y,accel_z,anglvel_x,anglvel_y,anglvel_z,timestamp 52 52
    iio_readdev -u local: -b 20 -s 40 -T 5000 lis3mdl >"$t/magn.bin" 2>/dev/null
    check "iio_readdev local: lis3mdl (triggered) 40 samples at 80 Hz" \
        verify "$t/magn.bin" lis3mdl magn_x,magn_y,magn_z,timestamp 40 80

    # --- the kernel's rules: one opener of /dev/iio:deviceN, raw reads EBUSY while buffered ---
    "$PY" - >"$t/rules.txt" 2>&1 <<'PYEOF'
import errno, os
d = "/sys/bus/iio/devices/iio:device0/"
def put(a, v):
    with open(d + a, "w") as f:
        f.write(v)
def code(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
put("scan_elements/in_accel_x_en", "1")
put("buffer/enable", "1")
print("raw_buffered", code(lambda: open(d + "in_accel_x_raw").read()))
a = os.open("/dev/iio:device0", os.O_RDONLY | os.O_NONBLOCK)
print("second_open", code(lambda: os.close(os.open("/dev/iio:device0", os.O_RDONLY | os.O_NONBLOCK))))
os.close(a)
print("open_after_close", code(lambda: os.close(os.open("/dev/iio:device0", os.O_RDONLY | os.O_NONBLOCK))))
put("buffer/enable", "0")
put("scan_elements/in_accel_x_en", "0")
print("raw_idle", code(lambda: open(d + "in_accel_x_raw").read()))
PYEOF
    check "a raw read while the buffer is enabled fails with EBUSY" contains "$t/rules.txt" "raw_buffered EBUSY"
    check "a second open of /dev/iio:device0 fails with EBUSY" contains "$t/rules.txt" "second_open EBUSY"
    check "the device opens again after the first opener closes it" contains "$t/rules.txt" "open_after_close ok"
    check "raw reads work again once the buffer is off" contains "$t/rules.txt" "raw_idle ok"

    # --- unplug while streaming ---
    iio_readdev -u local: -b 13 -s 0 -T 1000 bmi160 accel_x timestamp >/dev/null 2>"$t/unplug.err" &
    local rd=$! t0
    sleep 0.6
    echo "unplug iio:device0 1.5" >"$FAKE_IIO_CONTROL"
    t0=$(now_ms)
    check "unplug removes /sys/bus/iio/devices/iio:device0" [ ! -e /sys/bus/iio/devices/iio:device0 ]
    check "unplug removes /dev/iio:device0" [ ! -e /dev/iio:device0 ]
    check "attribute read of the vanished device fails (ENOENT)" \
        bash -c '! cat /sys/bus/iio/devices/iio:device0/name 2>/dev/null'
    if wait_gone "$rd" 3; then
        ok "iio_readdev returned $(( $(now_ms) - t0 )) ms after the unplug (timeout 1000 ms), no hang"
    else
        fail "iio_readdev still running 3 s after the unplug"
        kill "$rd" 2>/dev/null
    fi
    echo "#   $(grep refill "$t/unplug.err")"
    check "iio_readdev reports 'Unable to refill buffer: Connection timed out (110)'" \
        contains "$t/unplug.err" "Unable to refill buffer: Connection timed out (110)"
    local i
    for ((i = 0; i < 40; i++)); do [ -e /sys/bus/iio/devices/iio:device0/name ] && break; sleep 0.1; done
    check "device replugged as iio:device0" [ -e /sys/bus/iio/devices/iio:device0/name -a -e /dev/iio:device0 ]
    v=$(iio_attr -d bmi160 sampling_frequency 2>&1)
    check "replug restores driver defaults (104.000000)" [ "$v" = "104.000000" ]
    iio_readdev -u local: -b 26 -s 52 -T 3000 bmi160 accel_x accel_y accel_z timestamp >"$t/re.bin" 2>/dev/null
    check "streaming works again after replug (104 Hz)" \
        verify "$t/re.bin" bmi160 accel_x,accel_y,accel_z,timestamp 52 104

    # --- what a long-lived libiio context sees (libiio.so through ctypes) ---
    "$PY" "$here/libiio_probe.py" unplug --uri local: >"$t/probe.json" 2>"$t/probe.err"
    echo "#   $(cat "$t/probe.json")"
    check "libiio: refill after unplug returns -110 (ETIMEDOUT) after the context timeout" \
        [ "$(probe_field "$t/probe.json" 'd["refill_after_unplug"]')" = -110 ]
    check "libiio: attribute reads on the old context return -2 (ENOENT)" \
        [ "$(probe_field "$t/probe.json" 'd["attr_read_sampling_frequency"]')" = -2 ]
    check "libiio: a new context while unplugged has no bmi160" \
        [ "$(probe_field "$t/probe.json" 'd["new_context_while_unplugged"]["bmi160"]')" = False ]
    check "libiio: the old context streams again after replug" \
        [ "$(probe_field "$t/probe.json" 'd["old_context_after_replug"]["refill"]')" = 208 ]
}

inner_iiod() {
    local t=$1 v
    iio_info -u ip:127.0.0.1 >"$t/info.txt" 2>&1
    check "iio_info -u ip:127.0.0.1 lists bmi160 via iiod" contains "$t/info.txt" "iio:device0: bmi160 (buffer capable)"
    check "iio_info -u ip:127.0.0.1 lists lis3mdl via iiod" contains "$t/info.txt" "iio:device1: lis3mdl (buffer capable)"
    iio_info >"$t/info2.txt" 2>&1
    check "IIOD_REMOTE makes the default context a network one" \
        contains "$t/info2.txt" "IIO context created with network backend."
    v=$(iio_attr -u ip:127.0.0.1 -d bmi160 sampling_frequency 50 2>&1)
    check "iio_attr via iiod: 50 -> 52.000000" [ "$v" = "52.000000" ]
    iio_readdev -u ip:127.0.0.1 -b 25 -s 100 -T 5000 bmi160 accel_x accel_y accel_z timestamp \
        >"$t/accel.bin" 2>/dev/null
    check "iio_readdev -u ip:127.0.0.1: 100 accel samples decode to the truth at 52 Hz" \
        verify "$t/accel.bin" bmi160 accel_x,accel_y,accel_z,timestamp 100 52

    iio_readdev -u ip:127.0.0.1 -b 13 -s 0 -T 1000 bmi160 accel_x timestamp >/dev/null 2>"$t/unplug.err" &
    local rd=$! t0
    sleep 0.8
    echo "unplug iio:device0 1" >"$FAKE_IIO_CONTROL"
    t0=$(now_ms)
    if wait_gone "$rd" 4; then
        ok "iio_readdev via iiod returned $(( $(now_ms) - t0 )) ms after the unplug, no hang"
    else
        fail "iio_readdev via iiod still running 4 s after the unplug"
        kill "$rd" 2>/dev/null
    fi
    echo "#   $(grep refill "$t/unplug.err")"
    check "iio_readdev via iiod reports the refill timeout" \
        contains "$t/unplug.err" "Unable to refill buffer: Connection timed out (110)"
    sleep 1
    "$PY" "$here/libiio_probe.py" unplug --uri ip:127.0.0.1 >"$t/probe.json" 2>"$t/probe.err"
    echo "#   $(cat "$t/probe.json")"
    check "libiio via iiod: refill after unplug returns -110" \
        [ "$(probe_field "$t/probe.json" 'd["refill_after_unplug"]')" = -110 ]
    check "libiio via iiod: a new context still lists bmi160 (iiod's context is stale)" \
        [ "$(probe_field "$t/probe.json" 'd["new_context_while_unplugged"]["bmi160"]')" = True ]
    check "libiio via iiod: streams again after replug" \
        [ "$(probe_field "$t/probe.json" 'd["new_context_after_replug"]["refill"]')" = 208 ]
}

inner_polled() {
    local t=$1 v a b
    iio_info >"$t/info.txt" 2>&1
    check "polled: ak8975 listed without buffer" contains "$t/info.txt" "iio:device1: ak8975"
    check "polled: ak8975 is not buffer capable" bash -c "! grep -q 'ak8975 (buffer capable)' '$t/info.txt'"
    check "polled: per-channel scale shown" contains "$t/info.txt" "scale value: 0.002964844"
    check "polled: no /dev node for the unbuffered device" [ ! -e /dev/iio:device1 ]
    v="$(iio_attr -c ak8975 magn_x raw) $(iio_attr -c ak8975 magn_y raw) $(iio_attr -c ak8975 magn_z raw)"
    check "polled: raw values are the truth (67 -33 129 = 0.2/-0.1/0.4 G)" [ "$v" = "67 -33 129" ]
    v=$(iio_attr -c ak8975 mount matrix)
    check "polled: ak8975 in_mount_matrix as channel mount/matrix" [ "$v" = "-1, 0, 0; 0, 1, 0; 0, 0, -1" ]
    # three reads 0.1 s apart of the 0.5 Hz sine cannot all be equal
    a=$(cat /sys/bus/iio/devices/iio:device0/in_accel_x_raw); sleep 0.1
    b=$(cat /sys/bus/iio/devices/iio:device0/in_accel_x_raw); sleep 0.1
    c=$(cat /sys/bus/iio/devices/iio:device0/in_accel_x_raw)
    check "polled: _raw reads are fresh (accel_x $a, $b, $c)" [ "$a" != "$b" -o "$b" != "$c" ]
}

inner_variants() {
    local t=$1 v
    iio_info >"$t/info.txt" 2>&1
    v=$(iio_attr -d bmi160 mount_matrix)
    check "variants: device-level mount_matrix is a device attribute" [ "$v" = "0, 1, 0; 1, 0, 0; 0, 0, -1" ]
    check "variants: no 'mount' channel then" bash -c "! grep -q 'mount:  (input' '$t/info.txt'"
    v=$(iio_attr -c lis3mdl magn_z mount_matrix)
    check "variants: in_magn_mount_matrix is a magn channel attribute" [ "$v" = "-1, 0, 0; 0, 1, 0; 0, 0, -1" ]
}

inner_per_type() {
    local v
    v="$(iio_attr -c bmi160 accel_x mount_matrix)|$(iio_attr -c bmi160 anglvel_z mount_matrix)"
    check "per_type: in_accel_/in_anglvel_mount_matrix are channel attributes" \
        [ "$v" = "0, 1, 0; 1, 0, 0; 0, 0, -1|0, 1, 0; 1, 0, 0; 0, 0, -1" ]
    v=$(iio_attr -c lis3mdl mount matrix)
    check "per_type: lis3mdl in_mount_matrix as channel mount/matrix" [ "$v" = "-1, 0, 0; 0, 1, 0; 0, 0, -1" ]
}

inner_tmpfs() {
    local t=$1 v i
    iio_info >"$t/info.txt" 2>&1
    check "tmpfs backend: iio_info lists bmi160" contains "$t/info.txt" "iio:device0: bmi160 (buffer capable)"
    iio_attr -d bmi160 sampling_frequency 50 >/dev/null 2>&1
    sleep 0.05
    v=$(iio_attr -d bmi160 sampling_frequency 2>&1)
    check "tmpfs backend: write 50, read back 52.000000 (asynchronously applied)" [ "$v" = "52.000000" ]
    iio_readdev -u local: -b 26 -s 52 -T 5000 bmi160 accel_x accel_y accel_z timestamp >"$t/a.bin" 2>/dev/null
    check "tmpfs backend: 52 samples decode to the truth at 52 Hz" \
        verify "$t/a.bin" bmi160 accel_x,accel_y,accel_z,timestamp 52 52
    echo "unplug bmi160 0.5" >"$FAKE_IIO_CONTROL"
    for ((i = 0; i < 20; i++)); do [ -e /sys/bus/iio/devices/iio:device0 ] || break; sleep 0.01; done
    check "tmpfs backend: unplug removes the directory" [ ! -e /sys/bus/iio/devices/iio:device0 ]
    for ((i = 0; i < 20; i++)); do [ -e /sys/bus/iio/devices/iio:device0/name ] && break; sleep 0.1; done
    check "tmpfs backend: replug restores it" [ -e /sys/bus/iio/devices/iio:device0/name ]
}

until_present() {  # until_present yes|no DECISECONDS
    local i
    for ((i = 0; i < $2 * 5; i++)); do
        if [ -e /sys/bus/iio/devices/iio:device0 ]; then [ "$1" = yes ] && return 0
        else [ "$1" = no ] && return 0; fi
        sleep 0.02
    done
    return 1
}

inner_faults() {  # run with --unplug-at 1 --unplug-for 1
    check "scheduled unplug: present at the start" [ -e /sys/bus/iio/devices/iio:device0 ]
    sleep 0.5
    check "scheduled unplug: still present at 0.5 s" [ -e /sys/bus/iio/devices/iio:device0 ]
    check "scheduled unplug: gone by 1 s" until_present no 15
    check "scheduled unplug: back by 2 s" until_present yes 20
    kill -USR1 "$FAKE_IIO_PID"
    check "SIGUSR1 unplugs iio:device0" until_present no 20
    kill -USR2 "$FAKE_IIO_PID"
    check "SIGUSR2 replugs it" until_present yes 20
    echo "stall bmi160" >"$FAKE_IIO_CONTROL"
    iio_readdev -u local: -b 4 -s 4 -T 500 bmi160 accel_x 2>"$1/stall.err" >/dev/null
    check "stall: refill times out while the device stays present" \
        contains "$1/stall.err" "Connection timed out (110)"
    echo "resume bmi160" >"$FAKE_IIO_CONTROL"
    check "resume: streaming again" bash -c "iio_readdev -u local: -b 4 -s 4 -T 1000 bmi160 accel_x 2>/dev/null | wc -c | grep -qx 8"
    check "bad control command fails the write" bash -c "! echo frobnicate >'$FAKE_IIO_CONTROL' 2>/dev/null"
}

if [ "${1:-}" = "--inner" ]; then
    t=$(mktemp -d)
    "inner_$2" "$t"
    rm -rf "$t"
    exit $((failures > 0))
fi

# ---------------------------------------------------------------------------
# Outer: preconditions, then one harness run per group
# ---------------------------------------------------------------------------
start=$(date +%s.%N)
for tool in iio_info iio_attr iio_readdev iiod; do
    command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
"$H" -- true
rc=$?
[ $rc = 77 ] && { echo "SKIP: the harness cannot run here (see message above)"; exit 77; }
[ $rc = 0 ] || { echo "not ok - the harness does not start (status $rc)"; exit 1; }

export TMPDIR
TMPDIR=$(mktemp -d)     # our work dirs only, to check the cleanup
iiods_before=$(pgrep -x iiod | sort)    # other people's iiod are not ours to judge
group() {  # group NAME HARNESS-ARGS...
    local name=$1; shift
    echo "# --- $name: run_in_fake_kernel.sh $* -- selftest.sh --inner $name"
    if ! "$H" "$@" -- "$0" --inner "$name"; then
        failures=$((failures + 1))
    fi
}

echo "# truth file"
check "truth.json is up to date with fake_iio.py" \
    cmp -s "$here/truth.json" <("$PY" "$FAKE" truth --all)
group local --scenario standard
group iiod --scenario standard --iiod
group polled --scenario polled
group variants --scenario mount_matrix_variants
group per_type --scenario per_type_matrix
group tmpfs --backend tmpfs
group faults --unplug-at 1 --unplug-for 1

echo "# --- harness behaviour"
"$H" -- sh -c 'exit 3'
check "exit status passes through (3)" [ $? = 3 ]
"$H" -- sh -c 'kill -TERM $$'
check "a command killed by SIGTERM gives 143" [ $? = 143 ]
v=$(echo "hello stdin" | "$H" -- cat)
check "stdin and stdout pass through" [ "$v" = "hello stdin" ]
"$H" -- sh -c 'test -c /dev/null && echo x > /dev/null && test -d /dev/pts && test -d /sys/bus/pci -o -d /sys/bus/platform'
check "/dev/null, /dev/pts and the other /sys/bus entries still work inside" [ $? = 0 ]
t0=$(now_ms)
timeout -s TERM 2 "$H" --iiod -- sleep 30
rc=$?
check "a harness killed by timeout(1) stops within 5 s (status $rc, $(( $(now_ms) - t0 )) ms)" \
    [ $rc = 124 -a $(( $(now_ms) - t0 )) -lt 5000 ]
sleep 0.3
check "no work directory left behind" [ -z "$(ls -A "$TMPDIR")" ]
new_iiods=$(comm -13 <(echo "$iiods_before") <(pgrep -x iiod | sort))
harnesses=$(pgrep -f "fake_iio.py run --workdir $TMPDIR/")   # no pattern in our own argv
check "no iiod or fake_iio.py process left behind" [ -z "$new_iiods$harnesses" ]
"$PY" -c 'import os; print("# host /sys/bus/iio exists:", os.path.exists("/sys/bus/iio"), "| host /dev/iio:device0 exists:", os.path.exists("/dev/iio:device0"))'
check "nothing leaked into the host mount namespace" [ ! -e /dev/iio:device0 ]
rmdir "$TMPDIR"

elapsed=$(echo "$(date +%s.%N) - $start" | bc)
if [ $failures = 0 ]; then
    echo "# PASS: all checks passed in ${elapsed%.*} s"
    exit 0
fi
echo "# FAIL: $failures group(s)/check(s) failed (${elapsed%.*} s)"
exit 1
