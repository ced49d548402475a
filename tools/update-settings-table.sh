#!/usr/bin/env bash
# Replaces the settings table in docs/configuration.md (between its BEGIN and
# END markers) with `headsup config reference --markdown`: the table is
# generated from the settings schema, and HeadsUpRuntimeTests fails when the
# page and the schema differ.
#
#   tools/update-settings-table.sh [HEADSUP_BINARY] [PAGE]
set -euo pipefail
binary=${1:-.build/debug/headsup}
page=${2:-docs/configuration.md}
begin='<!-- BEGIN settings table'
end='<!-- END settings table -->'
grep -q "^$begin" "$page" && grep -q "^$end" "$page" || { echo "$page: no settings table markers ($begin … $end)" >&2; exit 1; }
table=$(mktemp)
trap 'rm -f "$table" "$table.page"' EXIT
"$binary" config reference --markdown > "$table"
awk -v begin="$begin" -v end="$end" -v table="$table" '
    index($0, begin) == 1 { print; while ((getline line < table) > 0) print line; skipping = 1; next }
    index($0, end) == 1 { skipping = 0 }
    !skipping { print }
' "$page" > "$table.page"
cat "$table.page" > "$page"
echo "$page: settings table updated"
