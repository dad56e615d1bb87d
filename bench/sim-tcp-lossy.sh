#!/usr/bin/env bash
# bench/sim-tcp-lossy.sh - the packet engine's TCP (GPUDirect-TCPX) where it
# recovers most: a 16 MiB all-to-all on gcp-a3-mega with no flow control and
# 256 KiB switch buffers (tests/fixtures/sim/tcpx-lossy.yaml, golden 8448),
# on 4 nodes (7,040 messages) and on 8 (15,232), where thousands of SACK
# recoveries, probes and timeouts run.
#
# FABTUNE_BASE=PATH (another build of fabtune, e.g. of an older commit) is the
# peer: both run each case RUNS times (default 3), interleaved (base, ours,
# base, ours: they share the load of the moment), and the script prints the
# CPU-time ratio of their best runs and whether their JSON is the same to the
# byte. CALLGRIND=1 adds each one's instruction count under valgrind's
# callgrind (one run each: the count does not move with the load).
# Without FABTUNE_BASE it prints our figures alone.
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
FABTUNE_BASE=${FABTUNE_BASE:+$(realpath "$FABTUNE_BASE")}
RUNS=${RUNS:-3}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FABTUNE_TEST_STABLE=1
cp tests/fixtures/sim/tcpx-lossy.yaml "$tmp/n4.yaml"
sed -e 's/gcp-a3-mega:4/gcp-a3-mega:8/' -e 's/count: 4,/count: 8,/' \
	tests/fixtures/sim/tcpx-lossy.yaml >"$tmp/n8.yaml"
grep -q "count: 8," "$tmp/n8.yaml" || { echo "n8: the fixture no longer reads count: 4"; exit 1; }
echo "# load: $(uptime | sed 's/.*load/load/')"

for c in n4 n8; do
	for r in $(seq "$RUNS"); do
		for who in base ours; do
			bin=$FABTUNE
			if [ "$who" = base ]; then
				[ -n "$FABTUNE_BASE" ] || continue
				bin=$FABTUNE_BASE
			fi
			/usr/bin/time -f "%U" -o "$tmp/t.$c.$who.$r" \
				"$bin" sim "$tmp/$c.yaml" --json >"$tmp/j.$c.$who" ||
				{ echo "$c $who: fabtune sim failed"; exit 1; }
		done
	done
	if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
		for who in base ours; do
			bin=$FABTUNE
			if [ "$who" = base ]; then
				[ -n "$FABTUNE_BASE" ] || continue
				bin=$FABTUNE_BASE
			fi
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$c.$who" \
				"$bin" sim "$tmp/$c.yaml" >/dev/null 2>"$tmp/cg.err" ||
				{ echo "$c $who: callgrind failed"; exit 1; }
			grep '^summary:' "$tmp/cg.$c.$who" | cut -d' ' -f2 >"$tmp/ir.$c.$who"
		done
	fi
	python3 - "$tmp" "$c" "$RUNS" "${FABTUNE_BASE:+1}" <<'PY'
import json, os, sys
tmp, c, runs, base = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
who = ("base", "ours") if base else ("ours",)
best = {w: min(float(open("%s/t.%s.%s.%d" % (tmp, c, w, r)).read().split()[-1])
               for r in range(1, runs + 1)) for w in who}
d = json.load(open("%s/j.%s.ours" % (tmp, c)))
st = d["engine_stats"]
line = "%s: %d messages, %d SACK recoveries, %d timeouts, %d probes; cpu %.2f s" % (
    c, d["flows"]["count"], st["sack_recoveries"], st["tcp_timeouts"], st["loss_probes"],
    best["ours"])
if base:
    same = open("%s/j.%s.base" % (tmp, c), "rb").read() == open("%s/j.%s.ours" % (tmp, c),
                                                              "rb").read()
    line += " against %.2f s (best of %d, interleaved), x%.2f, JSON %s" % (
        best["base"], runs, best["ours"] / best["base"], "same" if same else "differs")
ir = {w: "%s/ir.%s.%s" % (tmp, c, w) for w in who}
if all(os.path.exists(p) for p in ir.values()):
    n = {w: int(open(p).read()) for w, p in ir.items()}
    line += "; instructions %.3fG" % (n["ours"] / 1e9)
    if base:
        line += " against %.3fG, x%.3f" % (n["base"] / 1e9, n["ours"] / n["base"])
print(line)
PY
done
