#!/usr/bin/env bash
# tests/report/check-color.sh - colour in the terminal where it helps
# (verdicts of a comparison, severities of findings, doctor's verdict), and
# none under NO_COLOR, --no-color or a pipe. CLICOLOR_FORCE stands for a
# terminal; `script` gives a real one when it is installed. Coloured tables
# keep their columns: without the escape sequences they equal the plain ones.
set -u
fabtune=${1:?usage: check-color.sh PATH-TO-FABTUNE}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset NO_COLOR CLICOLOR_FORCE
esc=$'\033'
fail=0
no() { echo "FAIL: $*"; fail=1; }
cmp_args=(archive compare examples/archive/h100-current.json --vs examples/archive/h100-baseline.json)
diag_args=(diagnose examples/inputs/perfquery-x.txt)
for c in cmp diag; do
	declare -n args="${c}_args"
	"$fabtune" "${args[@]}" >"$tmp/$c.pipe" 2>/dev/null
	CLICOLOR_FORCE=1 "$fabtune" "${args[@]}" >"$tmp/$c.tty" 2>/dev/null
	NO_COLOR=1 CLICOLOR_FORCE=1 "$fabtune" "${args[@]}" >"$tmp/$c.nocolor" 2>/dev/null
	CLICOLOR_FORCE=1 "$fabtune" --no-color "${args[@]}" >"$tmp/$c.flag" 2>/dev/null
	grep -q "$esc" "$tmp/$c.pipe" && no "$c: colour in a pipe"
	grep -q "$esc" "$tmp/$c.nocolor" && no "$c: colour under NO_COLOR"
	grep -q "$esc" "$tmp/$c.flag" && no "$c: colour with --no-color"
	grep -q "$esc" "$tmp/$c.tty" || no "$c: no colour on a terminal"
	sed "s/$esc\[[0-9;]*m//g" "$tmp/$c.tty" | cmp -s - "$tmp/$c.pipe" ||
		no "$c: the coloured output is not the plain one plus colour"
done
grep -q "${esc}\[1;31mregressed${esc}\[0m" "$tmp/cmp.tty" || no "regressed is not red"
grep -q "${esc}\[32mimproved${esc}\[0m" "$tmp/cmp.tty" || no "improved is not green"
grep -q "${esc}\[33mwarning${esc}\[0m" "$tmp/diag.tty" || no "warning is not yellow"
if command -v script >/dev/null 2>&1; then
	script -qec "$fabtune ${cmp_args[*]}" /dev/null >"$tmp/pty" 2>&1
	grep -q "$esc" "$tmp/pty" || no "no colour on a pseudo-terminal"
fi
[ "$fail" = 0 ] && echo "ok: colour on terminals only, columns kept"
exit $fail
