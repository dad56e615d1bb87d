#!/usr/bin/env bash
# tests/fuzz/run-fuzz.sh EXE SECONDS "DIR..." - run a libFuzzer harness for a
# bounded time, seeded with copies of tests/fixtures/DIR/*.txt, in a
# temporary corpus directory so that the fixtures are never written.
set -eu
exe=$1 seconds=$2 dirs=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
for d in $dirs; do
	for f in tests/fixtures/"$d"/*.txt; do
		[ -f "$f" ] && cp "$f" "$tmp/corpus/"
	done
done
exec "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="${FT_BUILD_ROOT:-.}/fuzz-$(basename "$exe")-" "$tmp/corpus"
