#!/usr/bin/env bash
# bench/model-cache.sh - what the model's cache of a node's shared in-node
# links saves (bench/model-cache.c): the same all-to-all and send/recv
# queries without a cache and with one, alternated in one run, best of
# REPEATS (5); the ratio is uncached / cached, and the run fails where a
# cached result differs. Prints the load before and after.
#
# usage: bench/model-cache.sh [path/to/build]     (default: build)
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
[ -f "$build/libfabtune_static.a" ] || { echo "model-cache: no $build/libfabtune_static.a (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Iinclude -o "$tmp/model-cache" bench/model-cache.c "$build/libfabtune_static.a" $(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -lm -lpthread -ldl || exit 2
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
"$tmp/model-cache" "${REPEATS:-5}" || exit 1
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
