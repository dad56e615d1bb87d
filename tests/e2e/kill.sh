#!/usr/bin/env bash
# tests/e2e/kill.sh - a rank killed mid-run: every other rank must stop within
# the --timeout, and the messages must name the dead rank.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for t in tcp shm tcp-stop; do
	sig=9
	[ "$t" = tcp-stop ] && sig=STOP
	"$fabtune" bench all_reduce --np 3 --transport "${t%-stop}" -b 8M -n 100000 -w 0 -c 0 \
		--timeout 3s >"$tmp/out" 2>"$tmp/err" &
	launcher=$!
	(sleep 60 && kill -9 "$launcher") >/dev/null 2>&1 &
	watchdog=$!
	# wait for the three ranks (children of the launcher), then kill rank 1
	for _ in $(seq 100); do
		kids=$(pgrep -P "$launcher" | wc -l)
		[ "$kids" = 3 ] && break
		sleep 0.05
	done
	sleep 1
	victim=$(pgrep -P "$launcher" -f -- '--rank 1 ')
	[ -n "$victim" ] || { echo "not ok: $t: rank 1 not found"; kill "$launcher"; exit 1; }
	# timed from the signal: the ranks' start (exec, bootstrap) is no part
	# of how soon a lost peer is noticed, and takes seconds on a loaded host
	start=$(date +%s.%N)
	kill -"$sig" "$victim"
	wait "$launcher"
	rc=$?
	kill "$watchdog" 2>/dev/null
	took=$(echo "$(date +%s.%N) - $start" | bc)
	sed "s/^/# $t stderr: /" "$tmp/err"
	if [ "$rc" = 0 ] || [ "$rc" = 124 ]; then
		echo "not ok: $t: exit code $rc"; fail=1; continue
	fi
	if [ "$sig" = STOP ]; then
		# a silent peer: a rank times out naming the stopped rank itself (its
		# process state on this host), not the neighbour it waited on
		if ! grep -Eq 'rank [02] \(host [^)]*\): rank 1 \(host [^)]*\) is stopped' "$tmp/err"; then
			echo "not ok: $t: no rank reported a silent peer"; fail=1; continue
		fi
		# and the launcher, which sees its children's state, names the stopped one
		if ! grep -q 'rank 1 (pid [0-9]*) is stopped' "$tmp/err"; then
			echo "not ok: $t: the launcher did not name the stopped rank 1"; fail=1; continue
		fi
	elif ! grep -q 'rank 1 (pid [0-9]*) was killed by signal 9' "$tmp/err"; then
		echo "not ok: $t: the launcher did not name rank 1"; fail=1; continue
	fi
	# killed: the survivors name the rank they lost (rank 1), or a rank that left
	# after it. (Silent: a survivor can only name the peer it was waiting on,
	# which is rank 1 or, through the ring, the rank behind it; the launcher
	# names rank 1 by its process state; checked above.)
	if [ "$sig" != STOP ] && ! grep -Eq 'rank [02] \(host [^)]*\): .*rank 1 \(host' "$tmp/err"; then
		echo "not ok: $t: no surviving rank named rank 1"; fail=1; continue
	fi
	# killed: the others see it at once; silent: they wait the 3 s timeout, then
	# the launcher stops what is left (at most a second later); a second more
	# for the processes to be scheduled and reaped on a loaded host
	limit=5
	if [ "$(echo "$took > $limit" | bc)" = 1 ]; then
		echo "not ok: $t: the others took ${took}s to stop (timeout 3s)"; fail=1; continue
	fi
	echo "ok: $t: killed rank 1 named, the others stopped in ${took}s"
done
# Ctrl-C (SIGINT to the whole process group): a clean stop that keeps the rows
setsid "$fabtune" bench all_reduce --np 2 --transport tcp -b 4K -e 64M -n 50 -w 1 -c 0 \
	>"$tmp/out" 2>"$tmp/err" &
leader=$!
(sleep 60 && kill -9 -- "-$leader") >/dev/null 2>&1 &
watchdog=$!
# rows are printed as they are measured: interrupt once the first one is out
for _ in $(seq 200); do
	grep -Eq '^ +[0-9]+ +[0-9]+ +float' "$tmp/out" 2>/dev/null && break
	sleep 0.1
done
kill -INT -- "-$leader"
wait "$leader"
rc=$?
kill "$watchdog" 2>/dev/null
if [ "$rc" = 3 ] && grep -q '^# interrupted' "$tmp/out" && grep -Eq '^ +[0-9]+ +[0-9]+ +float' "$tmp/out"; then
	echo "ok: SIGINT stops cleanly and prints the rows measured so far"
else
	echo "not ok: SIGINT: exit code $rc"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fail=1
fi
exit $fail
