#!/usr/bin/env bash
# bench/archive.sh - the archive and reports against SQLite's own shell, in one run.
#
# 1. import: `fabtune archive import` of RUNS runs x ROWS result rows (JSON
#    parse, one transaction, WAL, synchronous=FULL) against `sqlite3` running
#    the same INSERTs from SQL text into a table of the same columns with the
#    same settings. Ratio > 1 means fabtune is slower.
# 2. csv: `fabtune report -f csv` of one run against `sqlite3 -csv` selecting
#    the same rows.
# 3. html: `fabtune report -f html` of a 64-host pairs matrix (4032 rows),
#    reported as time per row (no peer draws SVG).
# Usage: bench/archive.sh [BUILD-DIR] [RUNS] [ROWS]
set -eu
build=${1:-build}
runs=${2:-20}
rows=${3:-2000}
fabtune=$(cd "$(dirname "$0")/.." && pwd)/$build/cli/fabtune
command -v sqlite3 >/dev/null || { echo "sqlite3 (the shell) is needed as the peer"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

python3 - "$runs" "$rows" <<'PY'
import json, sys
runs, rows = int(sys.argv[1]), int(sys.argv[2])
cols = ["test","transport","bytes","count","dtype","redop","root","nranks","time_us","algbw_GBps",
        "busbw_GBps","wrong","nsamples","src","dst"]
out, sql = [], ["PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;",
    "CREATE TABLE results (run_id, idx, test, transport, bytes, count, dtype, redop, root, nranks,"
    " time_us, algbw_GBps, busbw_GBps, ip_time_us, ip_algbw_GBps, ip_busbw_GBps, wrong, lat_min_us,"
    " lat_avg_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us, lat_stdev_us, nsamples, algo,"
    " proto, bottleneck, src, dst, PRIMARY KEY (run_id, idx));"]
for r in range(runs):
    rr = []
    sql.append("BEGIN;")
    for i in range(rows):
        b = 1 << (i % 34)
        row = {"test": "all_reduce", "transport": "nccl", "bytes": b, "count": b // 4, "dtype": "float",
               "redop": "sum", "root": -1, "nranks": 16, "time_us": 10.0 + i * 0.37 + r,
               "algbw_GBps": 100.0 / (1 + i % 7), "busbw_GBps": 187.5 / (1 + i % 7), "wrong": 0,
               "nsamples": 20, "src": "node%d" % (i % 64), "dst": "node%d" % ((i * 7) % 64)}
        rr.append(row)
        sql.append("INSERT INTO results VALUES (%d, %d, 'all_reduce', 'nccl', %d, %d, 'float', 'sum', -1,"
                   " 16, %r, %r, %r, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 20,"
                   " '', '', '', '%s', '%s');" % (r, i, b, b // 4, row["time_us"], row["algbw_GBps"],
                   row["busbw_GBps"], row["src"], row["dst"]))
    sql.append("COMMIT;")
    out.append({"source": "bench", "kind": "bench", "fingerprint": {"host.name": "node0"},
                "rows": rr, "observations": [], "findings": []})
json.dump({"format": "fabtune-archive", "version": 2, "runs": out}, open("runs.json", "w"))
open("runs.sql", "w").write("\n".join(sql) + "\n")
pairs = [{"test": "pairs", "transport": "verbs", "bytes": 1 << 26, "nranks": 2,
          "busbw_GBps": 40 + (a * 13 + b * 7) % 9, "src": "gpu%02d" % a, "dst": "gpu%02d" % b}
         for a in range(64) for b in range(64) if a != b]
json.dump({"format": "fabtune-archive", "version": 2, "runs": [{"source": "bench", "kind": "pairs",
          "rows": pairs}]}, open("pairs.json", "w"))
PY

now() { date +%s.%N; }
secs() { python3 -c "print('%.3f' % ($2 - $1))"; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }

ti=() ; tp=() ; tc=() ; ts=() ; th=()
for k in 1 2 3; do
	rm -f a.db* peer.db*
	t0=$(now); FABTUNE_ARCHIVE=a.db "$fabtune" archive import runs.json >/dev/null; t1=$(now)
	sqlite3 peer.db <runs.sql >/dev/null; t2=$(now)
	ti+=("$(secs "$t0" "$t1")"); tp+=("$(secs "$t1" "$t2")")
	t0=$(now); FABTUNE_ARCHIVE=a.db "$fabtune" report 1 -f csv >/dev/null; t1=$(now)
	sqlite3 -csv -header peer.db "SELECT test, transport, bytes, nranks, src, dst, dtype, redop, time_us, algbw_GBps, busbw_GBps, lat_p50_us, lat_p99_us, nsamples, wrong FROM results WHERE run_id = 0 ORDER BY idx" >/dev/null; t2=$(now)
	tc+=("$(secs "$t0" "$t1")"); ts+=("$(secs "$t1" "$t2")")
	t0=$(now); "$fabtune" report pairs.json -f html -o pairs.html 2>/dev/null; t1=$(now)
	th+=("$(secs "$t0" "$t1")")
done
i=$(median3 "${ti[@]}"); p=$(median3 "${tp[@]}"); c=$(median3 "${tc[@]}"); s=$(median3 "${ts[@]}"); h=$(median3 "${th[@]}")
n=$((runs * rows))
python3 - "$i" "$p" "$c" "$s" "$h" "$n" "$rows" <<'PY'
import sys
i, p, c, s, h = map(float, sys.argv[1:6]); n, rows = int(sys.argv[6]), int(sys.argv[7])
print("import %d rows: fabtune %.3f s (%.0f rows/s), sqlite3 shell %.3f s: ratio %.2f" % (n, i, n / i, p, i / p))
print("csv of %d rows: fabtune report %.3f s, sqlite3 -csv %.3f s: ratio %.2f" % (rows, c, s, c / s))
print("html of a 64x64 pairs matrix (4032 rows): %.3f s, %.1f us per row" % (h, h / 4032 * 1e6))
PY
