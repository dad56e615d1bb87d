#!/usr/bin/env bash
# tests/e2e/fail.sh - under mpirun, a rank that fails inside its benchmark
# and goes on (FT_FAULT_BENCH makes rank 1 fail once it has measured, while
# its peers go on to the barrier that ends the benchmark): the doctor's
# ranks must not wait for it in that barrier nor in the gather of their CPU
# use (host.cpu_foreign), and rank 0's report must name rank 1 and say why.
# glibc fills freed memory (MALLOC_PERTURB_) so that its heap checks see a
# write into it: with 3 ranks, a
# live peer's part of a collective that rank 0 gave up on could land in a
# buffer freed by then. FT_FAULT_BENCH_LATE=2 makes rank 2 come to the
# final barrier a second late, after rank 1's notice, so the race is run
# every time; FT_E2E_FAIL_REPEAT=N runs each size N times (default 1).
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
# skip without mpirun, Open MPI as root, $tmp
. tests/e2e/lib-sim-mpi.sh
export OMPI_MCA_rmaps_base_oversubscribe=1
fail=0
# Open MPI under AddressSanitizer hangs at start-up with 3+ ranks (tests/e2e/mpi.sh)
sizes="2 3"
grep -q __asan_init "$fabtune" && sizes=2
repeat=${FT_E2E_FAIL_REPEAT:-1}
for n in $(for s in $sizes; do seq "$repeat" | sed "s/.*/$s/"; done); do
	start=$(date +%s.%N)
	ASAN_OPTIONS=detect_leaks=0 timeout 60 mpirun -np "$n" -x FT_FAULT_BENCH=1 \
		-x FT_FAULT_BENCH_LATE=2 -x MALLOC_PERTURB_=165 \
		--mca btl self,vader --mca mpi_yield_when_idle 1 \
		"$fabtune" --archive "$tmp/a$n.db" doctor --transports tcp --no-report --no-tools \
		--timeout 5s >"$tmp/out" 2>"$tmp/err"
	rc=$?
	took=$(echo "$(date +%s.%N) - $start" | bc)
	sed "s/^/# $n ranks stdout: /" "$tmp/out"
	if [ "$rc" = 124 ]; then
		echo "not ok: $n ranks: still waiting after 60 s"; fail=1; continue
	fi
	# a corrupted heap aborts a rank (glibc's message, or a sanitizer's)
	if [ "$rc" != 3 ] || grep -qE 'corrupted|free\(\)|malloc\(\)|AddressSanitizer|runtime error' "$tmp/err"; then
		echo "not ok: $n ranks: exit $rc, not the doctor's 3 for an incomplete run"
		sed "s/^/# stderr: /" "$tmp/err"; fail=1; continue
	fi
	# the first benchmark failed on every rank: the doctor says so (exit 3)
	# after a report that names the failed rank and its error
	if ! grep -q 'tcp pt2pt_lat: rank 1 (host [^)]*) failed: a fault injected by FT_FAULT_BENCH' \
		"$tmp/out"; then
		echo "not ok: $n ranks: the report does not name rank 1's failure"
		sed "s/^/# stderr: /" "$tmp/err"; fail=1; continue
	fi
	if ! grep -q 'host.cpu_foreign: not recorded: rank 1 (host [^)]*) failed' "$tmp/out"; then
		echo "not ok: $n ranks: the CPU-use gather did not end on rank 1's failure"
		fail=1; continue
	fi
	# a notice, not a timeout: well inside the 5 s --timeout after start-up
	if grep -q 'stopped answering' "$tmp/out" "$tmp/err"; then
		echo "not ok: $n ranks: a rank timed out instead of hearing of the failure"
		fail=1; continue
	fi
	echo "ok: $n ranks: rank 1's failure named, done in ${took}s (exit $rc)"
done
# The mpi transport: rank 1 gives up on requests still in flight, which the
# MPI library may go on with (FT_FAULT_MPI): a post that fails after a
# 64 KiB receive was posted, a test that fails with such a receive posted,
# an all_reduce given up at once. Rank 0's messages then come after rank 1
# freed its buffers, unless the transport cancelled the receives or kept
# the buffers until MPI_Finalize. The doctor's exit is 0, 1 or 3 (findings
# or none; the first benchmark ran): a signal or a heap check is not.
for fault in post wait coll; do
	for n in $sizes; do
		start=$(date +%s.%N)
		ASAN_OPTIONS=detect_leaks=0 timeout 60 mpirun -np "$n" -x FT_FAULT_MPI=$fault:1 \
			-x MALLOC_PERTURB_=165 --mca btl self,vader --mca mpi_yield_when_idle 1 \
			"$fabtune" --archive "$tmp/m$fault$n.db" doctor --transports mpi --no-report \
			--no-tools --timeout 5s >"$tmp/out" 2>"$tmp/err"
		rc=$?
		took=$(echo "$(date +%s.%N) - $start" | bc)
		what="mpi $fault, $n ranks"
		if [ "$rc" = 124 ]; then
			echo "not ok: $what: still waiting after 60 s"; fail=1; continue
		fi
		if ! [[ "$rc" =~ ^[013]$ ]] ||
			grep -qE 'corrupted|free\(\)|malloc\(\)|AddressSanitizer|runtime error|Segmentation|signal' \
				"$tmp/err"; then
			echo "not ok: $what: exit $rc"
			sed "s/^/# stderr: /" "$tmp/err"; fail=1; continue
		fi
		if ! grep -q "rank 1 (host [^)]*) failed: mpi.*a fault injected by FT_FAULT_MPI" \
			"$tmp/out"; then
			echo "not ok: $what: the report does not name rank 1's failure"
			sed "s/^/# stdout: /" "$tmp/out"; fail=1; continue
		fi
		# rank 0 hears of it (a notice), it does not wait out --timeout
		if grep -q 'stopped answering' "$tmp/out" "$tmp/err"; then
			echo "not ok: $what: a rank timed out instead of hearing of the failure"
			fail=1; continue
		fi
		echo "ok: $what: rank 1's failure named, done in ${took}s (exit $rc)"
	done
done
exit $fail
