#!/usr/bin/env bash
# tests/hostile/ranks.sh - a rank stopped (SIGSTOP) or killed (SIGKILL) in the
# middle of a collective, for every transport, as TAP: every rank must be gone
# within --timeout plus two seconds (not twice the timeout, not a hang), and the
# messages must name the rank that was stopped or killed, not a neighbour that
# waited on it. tcp and shm run under fabtune's own launcher (--np), mpi under
# mpirun, whose collectives are polled against --timeout; nccl through a test
# double of libnccl (tests/hostile/fake_nccl.c), as no GPU is here. fabtune's
# launcher must sleep while its ranks run (at most 10 wakes in 1.5 s).
set -u
fabtune=${1:?usage: ranks.sh PATH-TO-FABTUNE}
export LC_ALL=C TZ=UTC NO_COLOR=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Open MPI's own allocations look like leaks to LeakSanitizer
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout_s=3
n=0
fail=0

# the processes of the ranks of the run started as $1 (timeout's pid), one a
# line, "RANK PID": only descendants of our own run, never another run's
# processes (the machine may be shared)
ranks_of() {
	local launcher p r
	launcher=$(pgrep -P "$1" | head -n 1)
	[ -n "$launcher" ] || return
	for p in $(pgrep -P "$launcher"); do
		r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
			sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
		[ -n "$r" ] || r=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null |
			sed -n 's/.* --rank \([0-9]*\) .*/\1/p')
		[ -n "$r" ] && echo "$r $p"
	done
}

one() { # transport signal
	local t=$1 sig=$2 np=3 bg victim left p limit t0 took rc name="$1: SIG$2 of rank 1"
	local args=(bench all_reduce --transport "$t" -b 1M -n 1000000 -w 0 -c 0 --timeout "${timeout_s}s")
	n=$((n + 1))
	if [ "$t" = mpi ]; then
		command -v mpirun >/dev/null || { echo "ok $n - $name # SKIP no mpirun"; return; }
		# Open MPI under AddressSanitizer hangs at start-up with 3+ ranks here
		grep -q __asan_init "$fabtune" && np=2
		timeout -k 5 60 mpirun -np "$np" --mca btl self,vader \
			--mca btl_vader_single_copy_mechanism none --mca mpi_yield_when_idle 1 \
			"$fabtune" "${args[@]}" >"$tmp/out" 2>"$tmp/err" &
	else
		timeout -k 5 60 "$fabtune" "${args[@]}" --np "$np" >"$tmp/out" 2>"$tmp/err" &
	fi
	bg=$!
	for _ in $(seq 300); do
		ranks_of "$bg" >"$tmp/ranks"
		[ "$(wc -l <"$tmp/ranks")" = "$np" ] && break
		sleep 0.05
	done
	victim=$(sed -n 's/^1 //p' "$tmp/ranks")
	if [ -z "$victim" ]; then
		echo "not ok $n - $name: rank 1 not found"; fail=$((fail + 1)); wait "$bg"; return
	fi
	# fabtune's launcher sleeps while its ranks run (it woke every 20 ms, 75
	# times in these 1.5 s): only a rank's exit, stop or a deadline wakes it
	launcher=$(pgrep -P "$bg" | head -n 1)
	wakes=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$launcher/status" 2>/dev/null)
	sleep 1.5 # in the middle of the collectives
	if [ "$t" != mpi ] && [ -n "$wakes" ]; then
		wakes=$(($(awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$launcher/status") - wakes))
		if [ "$wakes" -gt 10 ]; then
			echo "not ok $n - $name: the launcher woke $wakes times in 1.5 s while its ranks ran"
			fail=$((fail + 1)); kill -KILL $(cut -d' ' -f2 "$tmp/ranks"); wait "$bg"; return
		fi
	fi
	t0=$(date +%s.%N)
	kill -"$sig" "$victim"
	wait "$bg"
	rc=$?
	# the ranks themselves may end a moment after their launcher (mpirun)
	for _ in $(seq 100); do
		left=""
		for p in $(cut -d' ' -f2 "$tmp/ranks"); do
			# alive, and not a zombie waiting for init to reap it
			grep -qv ') Z ' "/proc/$p/stat" 2>/dev/null && left="$left $p"
		done
		[ -z "$left" ] && break
		sleep 0.05
	done
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	sed "s/^/# /" "$tmp/err" | grep -v '^# *$' | head -n 12
	if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$rc" = 137 -a "$t" != mpi ]; then
		echo "not ok $n - $name: exit code $rc"; fail=$((fail + 1)); return
	fi
	if [ -n "$left" ]; then
		echo "not ok $n - $name: ranks left running:$left"; fail=$((fail + 1))
		for p in $left; do kill -KILL "$p"; done
		return
	fi
	# fabtune's own launcher ends everything within a second of the timeout;
	# mpirun takes a second of its own after MPI_Abort, and now and then (an
	# ORTE_ERROR_LOG in its teardown) several more, which are not ours to cut:
	# 10.8 s past the timeout once on a host at a load of 14
	limit=$((timeout_s + 2))
	[ "$t" = mpi ] && limit=$((timeout_s + 20))
	if [ "$(echo "$took > $limit" | bc)" = 1 ]; then
		echo "not ok $n - $name: the others took ${took}s to stop (timeout ${timeout_s}s)"
		fail=$((fail + 1)); return
	fi
	if [ "$sig" = STOP ]; then
		# the survivors name the stopped rank itself (a rank of their host)
		if ! grep -Eq 'rank [02] \(host [^)]*\): rank 1 \(host [^)]*\) is stopped' "$tmp/err"; then
			echo "not ok $n - $name: no survivor named the stopped rank 1"
			fail=$((fail + 1)); return
		fi
		if [ "$t" != mpi ] && ! grep -q 'rank 1 (pid [0-9]*) is stopped' "$tmp/err"; then
			echo "not ok $n - $name: the launcher did not name rank 1"
			fail=$((fail + 1)); return
		fi
	elif ! grep -Eq 'rank 1 .*(killed|exited) on signal 9|rank 1 \(pid [0-9]*\) was killed by signal 9' \
		"$tmp/err"; then
		echo "not ok $n - $name: rank 1 not named"; fail=$((fail + 1)); return
	fi
	echo "ok $n - $name: every rank gone ${took}s after the signal"
}

# UCX over its shared memory (loopback needs no device); skipped where fabtune
# was built without libucx or UCX cannot start here.
export UCX_TLS=${UCX_TLS:-shm,self}
for t in tcp shm mpi ucx; do
	if [ "$t" = ucx ] && ! timeout 30 "$fabtune" bench pt2pt_lat --transport ucx --np 2 -b 8 -e 8 \
		-n 1 -w 0 >/dev/null 2>&1; then
		for sig in STOP KILL; do
			n=$((n + 1))
			echo "ok $n - ucx: SIG$sig of rank 1 # SKIP the ucx transport does not run here"
		done
		continue
	fi
	for sig in STOP KILL; do
		one "$t" "$sig"
	done
done
# fake_nccl VAR=VALUE... -- ARGS...: fabtune ARGS through the test double of
# libnccl and the CUDA runtime with the VARs set; $rc and $took (seconds)
# set, its output in $tmp/out and $tmp/err, the errors echoed as comments
fake_nccl() {
	local t0 vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	t0=$(date +%s.%N)
	env FABTUNE_NCCL_LIBRARY="$FT_FAKE_NCCL" FABTUNE_CUDART_LIBRARY="$FT_FAKE_NCCL" "${vars[@]}" \
		timeout -k 5 60 "$fabtune" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	sed "s/^/# /" "$tmp/err"
}
# nccl, through a test double of libnccl and the CUDA runtime (no GPU here):
# after 50 collectives the stream never completes, as when a peer stopped.
# Each rank must give up within --timeout and abort its communicator, where a
# blocking cudaStreamSynchronize() would wait forever.
n=$((n + 1))
if [ -z "${FT_FAKE_NCCL:-}" ]; then
	echo "ok $n - nccl: a collective that never completes # SKIP no test double (FT_FAKE_NCCL)"
else
	fake_nccl FAKE_NCCL_HANG_AFTER=50 -- bench all_reduce --transport nccl --np 2 \
		-b 1M -e 1M -n 1000000 -w 0 -c 0 --timeout "${timeout_s}s"
	if [ "$rc" != 3 ]; then
		echo "not ok $n - nccl: a collective that never completes: exit code $rc"
		fail=$((fail + 1))
	elif [ "$(grep -c 'nccl all_reduce not done after 3s (--timeout)' "$tmp/err")" != 2 ] ||
		[ "$(grep -c 'fake nccl: communicator aborted' "$tmp/err")" != 2 ]; then
		echo "not ok $n - nccl: a collective that never completes: not both ranks gave up and aborted"
		fail=$((fail + 1))
	elif [ "$(echo "$took > $timeout_s + 3" | bc)" = 1 ]; then
		echo "not ok $n - nccl: a collective that never completes: took ${took}s"
		fail=$((fail + 1))
	else
		echo "ok $n - nccl: a collective that never completes ends in ${took}s, communicator aborted"
	fi
fi
# nccl: rank 1 gives up on its first collective as soon as it is enqueued
# (FT_FAULT_NCCL=coll:1), while it never completes (FAKE_NCCL_HANG_AFTER=0).
# A collective cannot be cancelled: the rank must abort its communicator
# before it frees the collective's buffers, where cudaFree() would wait for
# the collective for ever (the double says so and waits), and end at once,
# before rank 0's --timeout.
n=$((n + 1))
name="nccl: a collective given up on is aborted before its buffers are freed"
if [ -z "${FT_FAKE_NCCL:-}" ]; then
	echo "ok $n - $name # SKIP no test double (FT_FAKE_NCCL)"
else
	fake_nccl FAKE_NCCL_HANG_AFTER=0 FT_FAULT_NCCL=coll:1 -- bench all_reduce --transport nccl \
		--np 2 -b 1M -e 1M -n 10 -w 0 -c 0 --timeout "${timeout_s}s"
	if [ "$rc" != 3 ] || grep -q 'cudaFree waits' "$tmp/err"; then
		echo "not ok $n - $name: exit code $rc"
		fail=$((fail + 1))
	elif ! grep -q 'rank 1 .*nccl all_reduce given up on once enqueued: a fault injected by FT_FAULT_NCCL' "$tmp/err" ||
		! grep -q 'fake nccl: communicator aborted' "$tmp/err"; then
		echo "not ok $n - $name: rank 1's fault not named, or its communicator not aborted"
		fail=$((fail + 1))
	elif [ "$(echo "$took > $timeout_s" | bc)" = 1 ]; then
		# before rank 0's --timeout: the abort was rank 1's (the launcher then stops rank 0)
		echo "not ok $n - $name: took ${took}s"
		fail=$((fail + 1))
	else
		echo "ok $n - $name, in ${took}s"
	fi
fi
# nccl again: ncclCommInitRank never returns (a peer that never joins the
# communicator). Each rank must give up on it within --timeout (a watchdog
# thread; the blocked one is left behind) and say so, naming itself.
n=$((n + 1))
name="nccl: a communicator init that never returns"
if [ -z "${FT_FAKE_NCCL:-}" ]; then
	echo "ok $n - $name # SKIP no test double (FT_FAKE_NCCL)"
else
	fake_nccl FAKE_NCCL_HANG_INIT=1 -- bench all_reduce --transport nccl --np 2 \
		--timeout "${timeout_s}s"
	if [ "$rc" != 3 ]; then
		echo "not ok $n - $name: exit code $rc"
		fail=$((fail + 1))
	elif ! grep -q "nccl: communicator init not done after ${timeout_s}s (--timeout) on rank 0 " "$tmp/err" ||
		! grep -q "nccl: communicator init not done after ${timeout_s}s (--timeout) on rank 1 " "$tmp/err"; then
		echo "not ok $n - $name: not both ranks gave up on it, naming themselves"
		fail=$((fail + 1))
	elif [ "$(echo "$took > $timeout_s + 3" | bc)" = 1 ]; then
		echo "not ok $n - $name: took ${took}s"
		fail=$((fail + 1))
	else
		echo "ok $n - $name ends in ${took}s"
	fi
fi

# nccl-tests' -G N through the test double: the -n x -m timed operations of
# each size and layout are captured into one CUDA graph (nothing runs while
# capturing) and the graph is launched N times. 2 sizes x 2 layouts = 4
# graphs of 10 x 2 = 20 operations, 4 x 3 = 12 launches; the operations run
# are those 240 plus the untimed ones (1 warm-up per size, 1 per layout).
n=$((n + 1))
name="nccl: -G 3 captures each size's 20 operations once and launches the graph 3 times"
if [ -z "${FT_FAKE_NCCL:-}" ]; then
	echo "ok $n - $name # SKIP no test double (FT_FAKE_NCCL)"
else
	FABTUNE_NCCL_LIBRARY=$FT_FAKE_NCCL FABTUNE_CUDART_LIBRARY=$FT_FAKE_NCCL FAKE_NCCL_TRACE=1 \
		timeout -k 5 60 "$fabtune" bench all_reduce --transport nccl --np 2 -b 1M -e 2M \
		-n 10 -m 2 -w 1 -c 0 -G 3 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	sed "s/^/# /" "$tmp/err"
	want="4 graphs of 20 operations, 12 launches, 246 operations run"
	if [ "$rc" != 0 ]; then
		echo "not ok $n - $name: exit code $rc"
		fail=$((fail + 1))
	elif ! grep -q "fake nccl: rank 0: $want" "$tmp/err" ||
		! grep -q "fake nccl: rank 1: $want" "$tmp/err"; then
		echo "not ok $n - $name: the calls made differ"
		fail=$((fail + 1))
	elif ! grep -q "graph: 3$" "$tmp/out" || [ "$(grep -c '^ *[12]097152\|^ *1048576 ' "$tmp/out")" != 2 ]; then
		echo "not ok $n - $name: no 'graph: 3' header or not two rows"
		fail=$((fail + 1))
	else
		echo "ok $n - $name"
	fi
fi
# -G where no CUDA graph exists: said before anything is measured
n=$((n + 1))
name="tcp: -G 2 is not available, naming the transport"
timeout -k 5 60 "$fabtune" bench all_reduce --transport tcp --np 2 -b 1K -G 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
sed "s/^/# /" "$tmp/err"
if [ "$rc" != 2 ] || ! grep -q -- "-G 2: not available: CUDA graphs launch NCCL's kernels, and this run uses the tcp transport" "$tmp/err"; then
	echo "not ok $n - $name: exit code $rc"
	fail=$((fail + 1))
else
	echo "ok $n - $name"
fi

# -d all: nccl-tests keeps one communicator for every type of the sweep, and
# so does fabtune (the endpoint stays open between the sweep's runs): one
# init and one destroy per rank, not one per type (the double's trace prints
# a line per destroy), and a row for each type. (The double reduces nothing
# across processes, so the rows' #wrong is not checked here: the GPU check,
# tests/device/run.sh, runs -d all on a real NCCL.)
n=$((n + 1))
name="nccl: -d all runs its 10 types on one communicator a rank"
if [ -z "${FT_FAKE_NCCL:-}" ]; then
	echo "ok $n - $name # SKIP no test double (FT_FAKE_NCCL)"
else
	fake_nccl FAKE_NCCL_TRACE=1 -- bench all_reduce --transport nccl --np 2 -b 8 -e 64 \
		-n 2 -w 1 -d all --json
	destroys=$(grep -c '^fake nccl: rank [01]: ' "$tmp/err")
	rows=$(grep -o '"dtype":"[a-z0-9]*"' "$tmp/out" | sort -u | wc -l)
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		echo "not ok $n - $name: exit code $rc"
		fail=$((fail + 1))
	elif [ "$destroys" != 2 ] || [ "$rows" != 10 ]; then
		echo "not ok $n - $name: $destroys communicators destroyed, $rows types"
		fail=$((fail + 1))
	else
		echo "ok $n - $name"
	fi
fi

echo "1..$n"
exit 0
