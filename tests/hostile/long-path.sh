#!/usr/bin/env bash
# tests/hostile/long-path.sh - an input at a path of over 300 bytes keeps its
# whole path as evidence, as TAP: parse, diagnose (text and JSON), the
# archive (save, export, import, export again) and the report (text, JSON,
# HTML), and advise. docs/guarantees.md ("Evidence paths") rests on these cases.
set -u
fabtune=${1:?usage: long-path.sh PATH-TO-FABTUNE}
export LC_ALL=C TZ=UTC FABTUNE_TEST_STABLE=1 NO_COLOR=1
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1: $2"
	cut -c1-400 "$tmp/out" 2>/dev/null | sed 's/^/# out: /' | head -n 8
	cut -c1-400 "$tmp/err" 2>/dev/null | sed 's/^/# err: /' | head -n 8
}
# run ARGS...: fabtune under a time limit, output in $tmp/out and $tmp/err
run() {
	timeout -k 5 120 "$fabtune" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}
# count NAME WANT FILE: the whole path occurs WANT times in FILE
count() {
	local got
	got=$(grep -oF -- "$path" "$3" | wc -l)
	if [ "$got" = "$2" ]; then ok "$1"; else notok "$1" "$got occurrences, expected $2"; fi
}

# four directory levels of 60 to 90 bytes: the path is over 300 bytes, the
# start (the temporary directory) far from the file name
dir=$tmp/$(printf 'a%.0s' {1..60})/$(printf 'b%.0s' {1..80})/$(printf 'c%.0s' {1..90})/$(printf 'd%.0s' {1..70})
mkdir -p "$dir" || exit 1
path=$dir/ibstat.txt
cp tests/fixtures/ibstat/cx6-hdr200-active-plus-port-disabled-lid65535-excerpt.txt "$path" || exit 1
echo "1..12"
if [ "${#path}" -gt 300 ]; then ok "path is ${#path} bytes"; else notok "path length" "${#path}"; fi

# the fixture has 30 observations; ib-port-down cites 3 of them (lines 32, 33, 40)
run parse --json "$path"
# the input itself and its 30 observations
count "parse --json: the input and every observation have the whole path" 31 "$tmp/out"

run diagnose "$path"
if grep -qF -- "    $path:32: mlx5_2/port 1 ib.port.state = Down" "$tmp/out" &&
	grep -qF -- "    $path:40: mlx5_2/port 1 ib.port.link_layer = InfiniBand" "$tmp/out"; then
	ok "diagnose: evidence shows the whole path and line"
else
	notok "diagnose: evidence" "whole path not found"
fi

run diagnose --json "$path"
if grep -qF -- "{\"file\":\"$path\",\"line\":32," "$tmp/out"; then
	ok "diagnose --json: evidence file is the whole path"
else
	notok "diagnose --json: evidence file" "whole path not found"
fi
count "diagnose --json: 3 evidence records" 3 "$tmp/out"

# the advice cites its evidence too (an NCCL log that fell back to sockets)
log=$dir/nccl.log
cp tests/fixtures/diag/socket-fallback-nccl.log "$log" || exit 1
run advise --json "$log"
files=$(grep -o '"file":"[^"]*"' "$tmp/out" | sort -u)
if [ "$files" = "\"file\":\"$log\"" ]; then
	ok "advise --json: every evidence file is the whole path"
else
	notok "advise --json: evidence files" "$(echo "$files" | cut -c1-200 | head -n 3)"
fi

export FABTUNE_ARCHIVE=$tmp/first.db
run diagnose --save "$path"
[ "$rc" = 0 ] && ok "diagnose --save" || notok "diagnose --save" "exit code $rc"
run archive export -o "$tmp/first.json"
count "archive export: 30 observations and 3 evidence records" 33 "$tmp/first.json"

FABTUNE_ARCHIVE=$tmp/second.db run archive import "$tmp/first.json"
FABTUNE_ARCHIVE=$tmp/second.db run archive export -o "$tmp/second.json"
if cmp -s "$tmp/first.json" "$tmp/second.json"; then
	ok "archive import then export: the same export"
else
	notok "archive import then export" "exports differ"
fi

for f in text json html; do
	FABTUNE_ARCHIVE=$tmp/second.db run report -f "$f"
	count "report -f $f of the imported run" 33 "$tmp/out"
done
[ "$n" = 12 ] || echo "# planned 12, ran $n"
exit $((fail > 0))
