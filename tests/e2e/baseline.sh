#!/usr/bin/env bash
# tests/e2e/baseline.sh - the performance-baseline loop end to end, on a link
# whose rate we set: two hosts in network namespaces joined by a veth pair,
# rank 0's side shaped by tc tbf. pt2pt_bw is run N times at one rate and
# saved; against a baseline of the first runs the next identical run must
# have zero regression verdicts (exit 0). The rate is then cut by 20% and
# that run must be flagged (exit 1, every size regressed). Runs under
# chrt: the test measures the shaped link, not the scheduler.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skip: no iproute2"; exit 77; }
p=ftb$$
tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	ip netns del "${p}a" 2>/dev/null
	ip netns del "${p}b" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "${p}a" || { echo "skip: cannot create network namespaces"; exit 77; }
ip netns add "${p}b"
ip -n "${p}a" link add eth0 type veth peer name eth0 netns "${p}b"
ip -n "${p}a" addr add 198.18.1.1/24 dev eth0
ip -n "${p}b" addr add 198.18.1.2/24 dev eth0
for h in a b; do
	ip -n "$p$h" link set eth0 up
	ip -n "$p$h" link set lo up
done
export FABTUNE_ARCHIVE="$tmp/archive.db"
unset FABTUNE_TEST_STABLE
port=$((30000 + $$ % 20000))
shape() { # RATE: rank 0's egress, the direction pt2pt_bw measures
	ip netns exec "${p}a" tc qdisc replace dev eth0 root tbf rate "$1" burst 256kb latency 100ms
}
run() { # one saved pt2pt_bw run; rank 0's output in $tmp/run.out
	port=$((port + 1))
	for r in 1 0; do
		h=$([ $r = 0 ] && echo a || echo b)
		chrt -r 10 ip netns exec "$p$h" timeout 60 "$fabtune" bench pt2pt_bw --transport tcp \
			--rank $r --nranks 2 --bootstrap 198.18.1.1:$port --ifname eth -b 1M -e 4M \
			-f 2 --window 4 -n 32 -w 1 --timeout 20s --save >"$tmp/run$r.out" \
			2>"$tmp/run$r.err" &
		pids+=($!)
	done
	local rc=0
	for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
	pids=()
	[ "$rc" = 0 ] || { echo "not ok: bench exited $rc"; cat "$tmp/run0.err" "$tmp/run1.err"; exit 1; }
}
fail=0
shape 800mbit
for i in 1 2 3 4; do run; done
"$fabtune" archive baseline add link 1 2 3 >/dev/null 2>&1 ||
	{ echo "not ok: baseline add"; exit 1; }
# N identical runs: zero regressions, against three runs and against one
# A 5% floor for identical runs on a machine shared with other work, where
# another test's ranks at the same real-time priority share the two cores:
# identical runs measured here lost up to 6.1% to a stall. (The 20% step
# below is judged with the 2% floor, under which a baseline run whose
# iterations spread wider is set aside when disturbed.)
# A run on this shared machine can be hit by a scheduling stall that no
# band should absorb: an identical run that is flagged gets one more identical
# run, and only a second flag fails. A compare that flags every identical run
# still fails.
same_vs_link() { # RUN-ID
	"$fabtune" archive compare "$1" --vs link --floor 5% >"$tmp/c4.out" 2>&1
	local rc=$?
	sed 's/^/# /' "$tmp/c4.out"
	[ "$rc" = 0 ] && grep -q ' 0 regressed' "$tmp/c4.out" && grep -q 'matched:    3 of 3' "$tmp/c4.out"
}
last=4
if same_vs_link 4 || { echo "# flagged once: one more identical run"; run; last=5; same_vs_link 5; }; then
	echo "ok: an identical run against a 3-run baseline: 0 regressed"
else
	echo "not ok: identical run flagged twice"; fail=1
fi
same_vs_one() { # RUN-ID BASE-ID
	"$fabtune" archive compare "$1" --vs "$2" >"$tmp/c2.out" 2>&1
	local rc=$?
	sed 's/^/# /' "$tmp/c2.out"
	[ "$rc" = 0 ] && grep -q ' 0 regressed' "$tmp/c2.out"
}
if same_vs_one 2 1 || { echo "# flagged once: the next identical pair"; same_vs_one 3 2; }; then
	echo "ok: an identical run against a 1-run baseline: 0 regressed"
else
	echo "not ok: identical runs flagged twice against one run"; fail=1
fi
consistent() { # compare-output
	awk '$1 == "pt2pt_bw" {
		rows++
		chg = $(NF - 3); band = $(NF - 2); sub("%", "", chg); sub("%", "", band)
		if ($NF == "regressed") { reg++; next }
		if ($NF != "unchanged" || -chg >= band + 0) bad++
	}
	END { exit !(rows == 3 && reg >= 1 && !bad) }' "$1"
}
every() { # compare-output: every size regressed
	awk '$1 == "pt2pt_bw" { rows++; if ($NF == "regressed") reg++ }
	END { exit !(rows == 3 && reg == 3) }' "$1"
}
# A baseline run hit by a stall on this shared machine (the suite runs two
# tests at once) shows it in its own iterations' spread and compare sets it
# aside (docs/cmd/archive.md), so the 20% step must be flagged at every
# size. A run slowed evenly, without that mark, can still widen the 3-run
# band past the step: a miss with no wrongly judged row rebuilds the
# baseline from three fresh runs once, against which the step must be
# flagged (and no row judged wrongly). A compare that never flags fails.
next_id=$((last + 1))
slow_vs() { # BASELINE-NAME CHECK: one run at 640mbit (id $slow) compared with it
	shape 640mbit
	run
	slow=$next_id
	next_id=$((next_id + 1))
	"$fabtune" archive compare $slow --vs "$1" --floor 2% >"$tmp/c5.out" 2>"$tmp/c5.err"
	rc=$?
	sed 's/^/# /' "$tmp/c5.out" "$tmp/c5.err"
	[ "$rc" = 1 ] && "$2" "$tmp/c5.out"
}
wide_only() { # each size missed had a band wider than its loss, none judged wrongly
	awk '$1 == "pt2pt_bw" { chg = $(NF - 3); band = $(NF - 2); sub("%", "", chg); sub("%", "", band)
		if ($NF == "regressed") next
		if ($NF != "unchanged" || -chg >= band + 0) bad++ }
	END { exit bad > 0 }' "$tmp/c5.out"
}
ok=0
if slow_vs link every; then
	ok=1
elif wide_only; then
	echo "# the baseline's band is wider than the step: three fresh runs"
	shape 800mbit
	first=$next_id
	for i in 1 2 3; do run; done
	next_id=$((next_id + 3))
	"$fabtune" archive baseline add link2 $first $((first + 1)) $((first + 2)) >/dev/null 2>&1 ||
		{ echo "not ok: baseline add link2"; exit 1; }
	last=$((first + 2))
	slow_vs link2 consistent && ok=1
fi
if [ "$ok" = 1 ]; then
	echo "ok: a 20% slower link is flagged (every size regressed, or after a rebuilt baseline its own band is wider than its loss)"
else
	echo "not ok: 20% slowdown not flagged (exit $rc)"; fail=1
fi
"$fabtune" archive compare $slow --vs $last >"$tmp/c54.out" 2>&1
rc=$?
if [ "$rc" = 1 ] && consistent "$tmp/c54.out"; then
	echo "ok: flagged against a 1-run baseline too"
else
	sed 's/^/# /' "$tmp/c54.out"
	echo "not ok: 20% slowdown not flagged against one run (exit $rc)"; fail=1
fi
exit $fail
