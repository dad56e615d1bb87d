#!/usr/bin/env bash
# bench/doctor-stability.sh - how often `fabtune doctor` cries wolf: N (8)
# runs of the same build on the same host into a fresh archive. The first
# three form the host's baseline (doctor-HOST); every later run is judged
# against it, and none of them should be flagged, since nothing changed.
# Prints, per run, the load average, the exit status, the rows the compare
# calls regressed (test, transport, size, change against the band) and the
# jitter findings; then how many judged runs were flagged. The machine's
# load is part of the result: state it with the figures.
# N: runs (default 8); ARGS: more doctor options (default "--np 2"); KEEP=DIR
# keeps the archive and each run's JSON there.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
n=${N:-8}
if [ -n "${KEEP:-}" ]; then
	tmp=$KEEP
	mkdir -p "$tmp" && rm -f "$tmp/archive.db"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
export FABTUNE_ARCHIVE="$tmp/archive.db"
unset FABTUNE_TEST_STABLE
command -v jq >/dev/null || { echo "doctor-stability: needs jq" >&2; exit 2; }
judged=0 flagged=0 jitter_runs=0 band_runs=0
echo "# fabtune doctor x $n, fresh archive; cpus $(nproc)"
for i in $(seq 1 "$n"); do
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	# shellcheck disable=SC2086
	"$fabtune" doctor --json --no-report --no-tools ${ARGS:---np 2} >"$tmp/d$i.json" \
		2>"$tmp/d$i.err"
	rc=$?
	if ! jq -e .archive "$tmp/d$i.json" >/dev/null 2>&1; then
		echo "run $i: exit $rc, no JSON:"; cat "$tmp/d$i.err"; exit 1
	fi
	# no compare (the run that made the baseline) or a baseline still forming
	forming=$(jq -r 'if .archive.compare == null then true else .archive.compare.forming end' \
		"$tmp/d$i.json")
	nreg=$(jq -r '.archive.compare.regressions // [] | length' "$tmp/d$i.json")
	# a jitter finding of warning or worse (info: the host was loaded, said as such)
	njit=$(jq -r '[.diagnosis.findings[]? | select(.rule == "perf-latency-jitter" and
		.severity != "info")] | length' "$tmp/d$i.json")
	state=judged
	[ "$forming" = true ] && state=forming
	ninfo=$(jq -r '[.diagnosis.findings[]? | select(.rule == "perf-latency-jitter" and
		.severity == "info")] | length' "$tmp/d$i.json")
	foreign=$(jq -r '[.diagnosis.findings[]?.evidence[]? | select(.key == "host.cpu_foreign")
		| .num * 100 | round | tostring + "%"][0] // "-"' "$tmp/d$i.json")
	echo "run $i ($state): load $load, foreign CPU share $foreign, exit $rc, $nreg regressed," \
		"$njit jitter findings (+$ninfo as info)"
	jq -r '.archive.compare.regressions // [] | .[] |
		"  regressed \(.transport) \(.test) \(.bytes) B \(.metric): \(.current) vs \(.baseline),"
		+ " \(.delta_rel * 100 | round)% against a band of \(.threshold_rel * 100 | round)%"' \
		"$tmp/d$i.json"
	jq -r '.diagnosis.findings[]? | select(.rule == "perf-latency-jitter") |
		"  jitter (\(.severity)) \(.entity): \(.message)"' "$tmp/d$i.json"
	[ "$state" = judged ] || continue
	judged=$((judged + 1))
	[ "$nreg" -gt 0 ] && band_runs=$((band_runs + 1))
	[ "$njit" -gt 0 ] && jitter_runs=$((jitter_runs + 1))
	[ "$nreg" -gt 0 ] || [ "$njit" -gt 0 ] || [ "$rc" != 0 ] && flagged=$((flagged + 1))
done
echo "flagged: $flagged of $judged judged runs ($band_runs with a regressed row, $jitter_runs with" \
	"a jitter warning or error; a flagged run exits 1); load now $(cut -d' ' -f1-3 /proc/loadavg)"
