#!/usr/bin/env bash
# Installs HeadsUp's data, laid out like the source tree, into DATADIR
# (<prefix>/share/headsup): the replay scenarios (datasets/scenarios, so
# `headsup replay crossing-hands` works anywhere) and, of the bundled dataset,
# the manifest and the sessions of its test split (what `headsup evaluate`
# reads by default: about 5.5 MB of the 44 MB), with a SHA256SUMS of just
# those. The models are installed by the Makefile.
#
#   tools/package/install-data.sh DATADIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DATADIR" >&2; exit 64; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
data=$1
dataset=datasets/phone-motion-v1

cd "$repo"
find datasets/scenarios -type f ! -name '*~' | sort | while read -r file; do
    install -D -m 0644 "$file" "$data/$file"
done

install -d -m 0755 "$data/$dataset/sessions"
install -m 0644 "$dataset/manifest.json" "$dataset/README.md" "$data/$dataset/"
test_files=$(python3 -c '
import json, sys
manifest = json.load(open(sys.argv[1]))
for session in manifest["sessions"]:
    if session.get("split") == "test":
        print(session["file"])
' "$dataset/manifest.json")
[ -n "$test_files" ] || { echo "$0: $dataset/manifest.json lists no test sessions" >&2; exit 1; }
: > "$data/$dataset/SHA256SUMS"
for file in $test_files; do
    install -m 0644 "$dataset/$file" "$data/$dataset/$file"
    grep -F "  $file" "$dataset/SHA256SUMS" >> "$data/$dataset/SHA256SUMS"
done
chmod 0644 "$data/$dataset/SHA256SUMS"
(cd "$data/$dataset" && sha256sum --quiet -c SHA256SUMS)
