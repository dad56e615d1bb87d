#!/usr/bin/env bash
# tests/e2e/sim-sweep.sh - a sweep run here and split over 2 MPI ranks gives
# the same gathered document, byte for byte.
set -u
fabtune=${1:?usage: sim-sweep.sh PATH-TO-FABTUNE}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
. tests/e2e/lib-sim-mpi.sh
sweep=tests/fixtures/sim/sweep-small.yaml
"$fabtune" sim --sweep "$sweep" >"$tmp/local.json" || { echo "local sweep failed"; exit 1; }
timeout 300 mpirun -np 2 --oversubscribe --mca btl self,vader \
	"$fabtune" sim --sweep "$sweep" >"$tmp/mpi.json" 2>"$tmp/mpi.err" ||
	{ echo "mpirun sweep failed"; cat "$tmp/mpi.err"; exit 1; }
grep -q '"points":32' "$tmp/local.json" || { echo "expected 32 points"; exit 1; }
cmp "$tmp/local.json" "$tmp/mpi.json" || { echo "local and MPI results differ"; exit 1; }
echo "ok: 32 points, same bytes locally and over 2 ranks"
