#!/usr/bin/env bash
# bench/sim-common.sh - helpers for the fabtune sim speed benches: run one
# scenario under /usr/bin/time and print wall time, peak memory and the flow
# completion figures from its JSON (sourced by bench/sim-*.sh).
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }

# sim_case NAME FILE [fabtune options...]: one run, one summary line.
sim_case() {
	local name=$1 file=$2
	shift 2
	local tmp
	tmp=$(mktemp -d)
	/usr/bin/time -f "%e %U %M" -o "$tmp/time" "$FABTUNE" sim "$file" --json "$@" >"$tmp/out" ||
		{ echo "$name: fabtune sim failed"; rm -rf "$tmp"; return 1; }
	python3 - "$name" "$tmp/time" "$tmp/out" <<'PY'
import json, sys
name, tpath, opath = sys.argv[1:4]
wall, user, rss_kb = open(tpath).read().split()[-3:]
d = json.load(open(opath))
f = d["flows"]
fct, ideal = f["fct_us"], f["ideal_us"]
rows = d["results"]
op = ""
if rows:
    r = rows[0]
    op = " op %s %s %.1f us busbw %.1f GB/s;" % (r["op"], r["algo"], r["time_us"], r["busbw_GBps"])
print("%s: wall %.2f s (cpu %.2f s), peak %.0f MB, %d flows, %d events, %d rate recomputations;%s"
      " fct us p50 %.1f p99 %.1f max %.1f, ideal p50 %.1f, median slowdown %.2fx"
      % (name, float(wall), float(user), int(rss_kb) / 1024, f["count"], d["engine_stats"]["events"],
         d["engine_stats"]["rate_recomputations"], op, fct["p50"], fct["p99"], fct["max"],
         ideal["p50"], f["slowdown"]["p50"]))
PY
	rm -rf "$tmp"
}
