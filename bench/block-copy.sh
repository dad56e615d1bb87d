#!/usr/bin/env bash
# bench/block-copy.sh - what a small shm message costs in the core
# (bench/block-copy.c): the transport's own ring_put/ring_get through the
# head's block and ring_data through the ring, written and read by one
# thread in its own L1, ns per message, best of 200 rounds of 1000. It
# builds the program against the static library of BUILD (build), so the
# figures are those of the code in that build; prints the load before and
# after. The one-way latency of a ping-pong adds one cache-line transfer
# between the two CPUs to these (bench/shm-lat.sh measures that whole).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
[ -f "$BUILD/libfabtune_static.a" ] || { echo "block-copy: no $BUILD/libfabtune_static.a (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the static library's own dependencies, as the CLI links them
libs=$(ldd "$BUILD/cli/fabtune" | awk '/=>/ && !/libc\.so/ && $3 ~ /^\// { print $3 }')
# shellcheck disable=SC2086
cc -O2 -D_GNU_SOURCE -Isrc -Isrc/bench -Iinclude -I"$BUILD" -o "$tmp/block-copy" \
    bench/block-copy.c "$BUILD/libfabtune_static.a" $libs -lm -lpthread || exit 2
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
"$tmp/block-copy" || exit 1
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
