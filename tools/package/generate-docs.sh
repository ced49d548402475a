#!/usr/bin/env bash
# Generates what `make install` ships beside the binary from its own argument
# parser: the bash, zsh and fish completions (headsup
# --generate-completion-script) and the man page (swift-argument-parser's
# generate-manual tool, which is what its generate-manual plugin runs; built
# from the package checkout, offline). The man page is dated by the last
# commit, so rebuilding the same tree gives the same bytes.
#
#   tools/package/generate-docs.sh BINARY GENERATE-MANUAL OUTDIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 BINARY GENERATE-MANUAL OUTDIR" >&2; exit 64; }
binary=$1 generate_manual=$2 out=$3
mkdir -p "$out"
for shell in bash zsh fish; do
    "$binary" --generate-completion-script "$shell" > "$out/headsup.$shell.tmp"
    mv "$out/headsup.$shell.tmp" "$out/headsup.$shell"
done
# bash-completion sources the file: a #! line there means nothing (lintian:
# bash-completion-with-hashbang).
sed -i '1{/^#!/d}' "$out/headsup.bash"

date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
rm -rf "$out/man.tmp" && mkdir -p "$out/man.tmp"
"$generate_manual" "$binary" --date "$date" --section 1 --output-directory "$out/man.tmp" > /dev/null
[ -s "$out/man.tmp/headsup.1" ] || { echo "$0: generate-manual wrote no headsup.1" >&2; exit 1; }
# The manual says where this installation's files are (after the generated
# page, which ends without a newline).
[ -z "$(tail -c 1 "$out/man.tmp/headsup.1")" ] || echo >> "$out/man.tmp/headsup.1"
cat >> "$out/man.tmp/headsup.1" <<'MAN'
.Sh FILES
.Bl -tag -width 6n
.It Pa /etc/headsup/config.yaml , Pa $XDG_CONFIG_HOME/headsup/config.yaml
The configuration, layered: built-in defaults, the model card, the system
file, the user's file, then
.Fl -config
and flags.
.Nm headsup Cm config show
lists every key, its value and where it came from.
.It Pa <prefix>/share/headsup/
The shipped model and its card
.Pa ( weights/model.h5 , weights/model.json ) ,
the comparison models, the replay scenarios
.Pa ( datasets/scenarios/NAME ,
so that
.Nm headsup Cm replay Ar crossing-hands
works from any directory) and the test split of the bundled dataset
.Pa ( datasets/phone-motion-v1 ,
the default input of
.Nm headsup Cm evaluate ) ;
found beside the program, then in each
.Ev XDG_DATA_DIRS
entry.
.El
.Sh SEE ALSO
.Xr systemctl 1 ,
.Xr systemd-sysusers 8 ,
.Xr udev 7
MAN
gzip -9n < "$out/man.tmp/headsup.1" > "$out/headsup.1.gz"
mv "$out/man.tmp/headsup.1" "$out/headsup.1"
rm -rf "$out/man.tmp"
