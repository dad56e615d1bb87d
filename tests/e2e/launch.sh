#!/usr/bin/env bash
# tests/e2e/launch.sh - the one launcher detection, seen from fabtune bench:
# srun without PMI (SLURM_PROCID, SLURM_NTASKS set) is refused with a clear
# message instead of silently running one rank; torchrun-style RANK and
# WORLD_SIZE join two processes through the bootstrap at MASTER_ADDR; the
# sim sweep refuses srun without PMI as bench does.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
# Slurm without PMI: exit 2, and the message says why and what to do.
env SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_STEP_ID=0 SLURM_JOB_ID=1 \
	"$fabtune" bench pt2pt_lat --transport tcp -n 10 >"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'srun started 4 tasks (SLURM_PROCID=0 SLURM_NTASKS=4) without PMI' \
	"$tmp/s.err"; then
	echo "ok: srun without PMI is refused"
else
	echo "not ok: srun without PMI: exit $rc"; cat "$tmp/s.err"; fail=1
fi
# The sim sweep too: without PMI every task would print the whole sweep.
env SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_STEP_ID=0 "$fabtune" sim --sweep scenarios/sweep-example.yaml \
	>"$tmp/w.out" 2>"$tmp/w.err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$tmp/w.out" ] && grep -q 'without PMI' "$tmp/w.err"; then
	echo "ok: the sweep under srun without PMI is refused"
else
	echo "not ok: sweep under srun without PMI: exit $rc"; cat "$tmp/w.err"; fail=1
fi
# One Slurm task alone is an ordinary run (srun -n 1).
env SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_STEP_ID=0 \
	"$fabtune" bench pt2pt_lat --transport tcp --np 2 -n 10 -e 8 --json >"$tmp/one.json" 2>"$tmp/one.err" &&
	grep -q '"nranks":2' "$tmp/one.json" && echo "ok: srun -n 1 runs as usual" ||
	{ echo "not ok: srun -n 1"; cat "$tmp/one.err"; fail=1; }
# torchrun: two tasks, rank 0's bootstrap on MASTER_PORT + 1.
port=$((20000 + $$ % 20000))
for r in 1 0; do
	env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
		MASTER_PORT=$port timeout 60 "$fabtune" bench pt2pt_lat --transport tcp -n 20 -e 8 \
		--ifname lo --timeout 20s --json >"$tmp/t$r.json" 2>"$tmp/t$r.err" &
	pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
pids=()
if [ "$rc" = 0 ] && grep -q '"nranks":2' "$tmp/t0.json" && grep -q '"test":"pt2pt_lat"' "$tmp/t0.json"; then
	echo "ok: torchrun-style RANK/WORLD_SIZE join through MASTER_ADDR"
else
	echo "not ok: torchrun-style launch (exit $rc)"; cat "$tmp/t0.err" "$tmp/t1.err"; fail=1
fi
exit $fail
