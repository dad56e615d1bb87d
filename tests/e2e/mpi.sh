#!/usr/bin/env bash
# tests/e2e/mpi.sh - fabtune bench ranks launched by Open MPI's mpirun on this
# host: the mpi transport (MPI's own collectives) and the tcp transport
# bootstrapped through MPI, both with data validation.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
command -v mpirun >/dev/null || { echo "skip: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpi() {
	# oversubscribed ranks must yield when idle, or they starve each other
	timeout 60 mpirun -np "$1" --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		--mca mpi_yield_when_idle 1 "${@:2}"
}
# Open MPI under AddressSanitizer hangs at start-up with 3+ ranks on this kind of
# machine (a bare MPI_Allreduce program built with -fsanitize=address does too):
# sanitized builds run the 3-rank cases with 2 ranks
n3=3
grep -q __asan_init "$fabtune" && n3=2
fail=0
check() { # name file: every row validated, none wrong
	local name=$1 f=$2
	if ! grep -q '"rows":\[{' "$f"; then
		echo "not ok: $name: no rows"; cat "$f"; fail=1; return
	fi
	if grep -q '"wrong":[1-9]' "$f"; then
		echo "not ok: $name: wrong elements"; cat "$f"; fail=1; return
	fi
	echo "ok: $name"
}
mpi 2 "$fabtune" bench all_reduce --transport mpi -b 1K -e 1M -f 32 -n 3 --json >"$tmp/a.json" 2>"$tmp/a.err" ||
	{ echo "not ok: mpi all_reduce exited $?"; cat "$tmp/a.err"; exit 1; }
grep -q '"transport":"mpi"' "$tmp/a.json" && grep -q '"algo":"library"' "$tmp/a.json" ||
	{ echo "not ok: not the mpi transport"; cat "$tmp/a.json"; fail=1; }
check "mpi all_reduce, 2 ranks" "$tmp/a.json"
mpi "$n3" "$fabtune" bench alltoall --transport mpi -b 3K -e 30K -f 10 -n 2 -d int32 --json >"$tmp/b.json" \
	2>"$tmp/b.err" || { echo "not ok: mpi alltoall exited $?"; cat "$tmp/b.err"; exit 1; }
check "mpi alltoall, $n3 ranks" "$tmp/b.json"
mpi "$n3" "$fabtune" bench reduce_scatter --transport tcp -b 3K -e 30K -f 10 -n 2 --json >"$tmp/c.json" \
	2>"$tmp/c.err" || { echo "not ok: tcp under mpirun exited $?"; cat "$tmp/c.err"; exit 1; }
grep -q "\"nranks\":$n3" "$tmp/c.json" || { echo "not ok: tcp under mpirun: not 3 ranks"; fail=1; }
check "tcp reduce_scatter bootstrapped by MPI, $n3 ranks" "$tmp/c.json"
# 16-bit floats through a user-defined MPI operation; avg and mulsum as a sum with a step
mpi "$n3" "$fabtune" bench all_reduce --transport mpi -d all -o all -b 64 -e 4K -f 64 -n 1 -w 1 \
	--json >"$tmp/e.json" 2>"$tmp/e.err" || { echo "not ok: mpi -d all -o all exited $?"; cat "$tmp/e.err"; exit 1; }
grep -q '"dtype":"bfloat16","redop":"mulsum"' "$tmp/e.json" &&
	grep -q '"dtype":"half","redop":"avg"' "$tmp/e.json" ||
	{ echo "not ok: mpi -d all -o all lacks half or bfloat16 rows"; fail=1; }
grep -q '"wrong":-1' "$tmp/e.json" && { echo "not ok: mpi -d all -o all: rows not checked"; fail=1; }
check "mpi all_reduce -d all -o all, $n3 ranks" "$tmp/e.json"
mpi 2 "$fabtune" bench pt2pt_lat --transport mpi -n 200 >"$tmp/d.out" 2>"$tmp/d.err" ||
	{ echo "not ok: mpi latency exited $?"; cat "$tmp/d.err"; exit 1; }
grep -q 't_typical' "$tmp/d.out" && echo "ok: mpi ping-pong latency" ||
	{ echo "not ok: mpi latency table"; cat "$tmp/d.out"; fail=1; }
# A rank that may spin waits for MPI's collective as MPI_Allreduce itself
# does, testing without sched_yield() (Open MPI yields only when told the
# node is oversubscribed: mpi_yield_when_idle, left off here). 20 + 2
# all_reduce of 4 MiB with --spin always made 2,200 yields an operation when
# every idle test yielded, 34 since (the bootstrap's and the library's), 8
# once the bootstrap napped instead (the library's own).
if command -v strace >/dev/null && [ "$(nproc)" -ge 2 ]; then
	timeout 120 strace -f -qq -c -e trace=sched_yield -o "$tmp/y.txt" \
		mpirun -np 2 --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
		"$fabtune" bench all_reduce --transport mpi -b 4M -e 4M -n 20 -w 2 --spin always \
		>"$tmp/y.out" 2>"$tmp/y.err" ||
		{ echo "not ok: mpi all_reduce under strace exited $?"; cat "$tmp/y.err"; exit 1; }
	y=$(awk '$NF == "sched_yield" { print $4 }' "$tmp/y.txt")
	if [ "${y:-0}" -lt $((22 * 200)) ]; then
		echo "ok: mpi waits without sched_yield when it may spin (${y:-0} calls, 22 operations)"
	else
		echo "not ok: mpi --spin always: $y sched_yield calls for 22 operations"; fail=1
	fi
fi
# Two ranks on one host: the host is probed once, not once per rank.
"$fabtune" probe --no-tools --json >"$tmp/p1.json" 2>"$tmp/p1.err" ||
	{ echo "not ok: probe alone exited $?"; cat "$tmp/p1.err"; exit 1; }
mpi 2 "$fabtune" probe --no-tools --json >"$tmp/p2.json" 2>"$tmp/p2.err" ||
	{ echo "not ok: probe under mpirun exited $?"; cat "$tmp/p2.err"; exit 1; }
n1=$(grep -o '"key":"eth.link.mtu"' "$tmp/p1.json" | wc -l)
n2=$(grep -o '"key":"eth.link.mtu"' "$tmp/p2.json" | wc -l)
if [ "$n1" -gt 0 ] && [ "$n1" = "$n2" ]; then
	echo "ok: one probe per host under mpirun ($n2 interface MTUs, as alone)"
else
	echo "not ok: probe under mpirun: $n2 interface MTUs, $n1 alone"; fail=1
fi
exit $fail
