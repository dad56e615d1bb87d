#!/usr/bin/env bash
# tests/report/check-cardinality.sh - the Prometheus exposition keeps its
# series from run to run: reports of different runs of the same tests give
# the same set of series (names and label sets; only values differ), no
# label is a run id, and a verdict is a label only of the per-verdict
# counts. Latency tests come out as one summary with quantile labels, never
# as bus bandwidth. The probe's exposition follows node_exporter's names.
set -u
fabtune=${1:?usage: check-cardinality.sh PATH-TO-FABTUNE}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FABTUNE_ARCHIVE="$tmp/archive.db"
unset FABTUNE_TEST_STABLE # ids and times are in: they must not become labels
F=tests/fixtures/archive
fail=0
no() { echo "FAIL: $*"; fail=1; }
"$fabtune" archive import "$F/h100-baseline.json" >/dev/null || no "import baseline"
"$fabtune" archive import "$F/h100-current.json" >/dev/null || no "import current"
"$fabtune" archive import "$F/fabric-doctor.json" >/dev/null || no "import doctor"
"$fabtune" archive baseline add ref 1 2 >/dev/null || no "baseline add"
series() { sed -e '/^#/d' -e 's/ [^ ]*$//' "$1" | sort; }
for r in 3 4; do
	"$fabtune" report "$r" --vs ref --format prom >"$tmp/r$r.prom" || no "report $r"
	series "$tmp/r$r.prom" >"$tmp/r$r.series"
done
if ! cmp -s "$tmp/r3.series" "$tmp/r4.series"; then
	no "runs 3 and 4 have different series:"
	diff "$tmp/r3.series" "$tmp/r4.series" | head -20
fi
n=$(wc -l <"$tmp/r3.series")
[ "$n" -gt 20 ] || no "only $n series"
# the values did change between the runs: the comparison above is not vacuous
cmp -s <(grep -v '^#' "$tmp/r3.prom") <(grep -v '^#' "$tmp/r4.prom") && no "runs 3 and 4 gave the same values"
grep -E '[{,]run="' "$tmp/r3.prom" && no "a run label"
grep -v '^fabtune_compare_results' "$tmp/r3.prom" | grep -E '[{,]verdict="' && no "a verdict label outside fabtune_compare_results"
grep -q '^fabtune_compare_regressed{' "$tmp/r3.prom" || no "no per-result regression values"
# latency: a summary in seconds with quantiles; no bandwidth for a latency test
"$fabtune" report 5 --format prom >"$tmp/d.prom" || no "report 5"
grep -q '^# TYPE fabtune_latency_seconds summary' "$tmp/d.prom" || no "no latency summary"
grep -q '^fabtune_latency_seconds{.*test="pt2pt_lat".*quantile="0.99"} 1.52' "$tmp/d.prom" ||
	no "no p99 of pt2pt_lat in seconds"
grep -E '^fabtune_(bus|algorithm)_bandwidth.*test="pt2pt_lat"' "$tmp/d.prom" &&
	no "latency exported as bandwidth"
# the probe: node_exporter's names with the fabtune_ prefix, bytes not 4-byte words
"$fabtune" probe --root tests/fixtures/sysfs/gpu-node --no-tools --interval 0.05s \
	--format prometheus >"$tmp/p.prom" || no "probe --format prometheus"
grep -q '^fabtune_infiniband_port_data_transmitted_bytes_total{host="gpu07",device="mlx5_0",port="1"} 4000000$' \
	"$tmp/p.prom" || no "port_xmit_data not in bytes"
grep -q '^# TYPE fabtune_infiniband_np_cnp_packets_sent_per_second gauge' "$tmp/p.prom" ||
	no "no CNP rate"
grep -q '^fabtune_infiniband_np_ecn_marked_roce_packets_received_total{' "$tmp/p.prom" ||
	no "no ECN counter"
if command -v promtool >/dev/null 2>&1; then
	for f in r3 d p; do
		promtool check metrics <"$tmp/$f.prom" >"$tmp/out" 2>&1 ||
			{ no "promtool on $f:"; cat "$tmp/out"; }
	done
fi
[ "$fail" = 0 ] && echo "ok: $n series, the same for two runs; probe exposition named as node_exporter"
exit $fail
