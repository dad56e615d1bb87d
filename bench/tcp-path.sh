#!/usr/bin/env bash
# bench/tcp-path.sh - where a tcp ping-pong's round trip goes, fabtune's
# against sockperf's, from the kernel's own timestamps: each tool's two
# ends run on CPU 0 under `perf record` with the raw_syscalls enter/exit
# and sched_switch tracepoints (no hardware counters needed, so it works
# in a VM that has none), and for each end the trace of the middle 60 % of
# its run is cut into its sends and receives (sendto/sendmsg, recvfrom/
# recvmsg) and the user time between them. Printed per tool and size,
# medians over both ends and RUNS (5) alternated runs:
#
#   recv->send  user time from a receive's return to the next send's
#               entry (the reply, or the next round trip's start, with
#               the timestamps, the sample and the loop of the tool)
#   send->recv  user time from a send's return to the next receive's
#               entry, in the runs of it not cut by a switch (< 5 us)
#   send        a send's time in the kernel (loopback delivery included)
#   recv now    a receive that returns without sleeping
#   recv slept  the on-CPU part of a receive that sleeps: its entry up
#               to the switch away, and from the switch back to its exit
#   slept %     the share of receives that slept (its mean in a run); the rest found the
#               reply queued because the sender was switched out at its
#               send's return and its peer answered first
#
# A tracepoint costs each event its own time (about 1 us a round trip
# here), alike for both tools since they make the same calls; the
# differences between the tools are the figure, not the absolute times.
# SIZES (14 1024), RUNS (5), FAB_ARGS (--spin never) as bench/tcp-lat.sh;
# ITERS (20,000) round trips for fabtune, SECS (1) for sockperf. Needs
# perf, root (tracepoints), sockperf and python3.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
for c in perf sockperf python3; do
	command -v "$c" >/dev/null || { echo "needs $c"; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes=${SIZES-14 1024}
iters=${ITERS:-20000}
secs=${SECS:-1}
ev=raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch
rec() { # OUT COMMAND...
	local out=$1
	shift
	perf record -q -e "$ev" -o "$tmp/p.data" -- "$@" >/dev/null 2>&1 || return 1
	perf script -i "$tmp/p.data" --ns -F pid,time,event,trace 2>/dev/null >"$out"
}
sock() { # SIZE OUT
	local port=$((11200 + RANDOM % 500))
	# shellcheck disable=SC2016
	rec "$2" bash -c 'taskset -c 0 sockperf server --tcp -i 127.0.0.1 -p "$1" >/dev/null 2>&1 &
		s=$!; sleep 0.3
		taskset -c 0 sockperf ping-pong --tcp -i 127.0.0.1 -p "$1" -t "$2" -m "$3" >/dev/null 2>&1
		kill $s; wait $s; exit 0' _ "$port" "$secs" "$1"
}
fab() { # SIZE OUT
	# shellcheck disable=SC2086
	rec "$2" taskset -c 0 "$fabtune" bench pt2pt_lat --np 2 --transport tcp -b "$1" \
		-n "$iters" -w $((iters / 10)) ${FAB_ARGS:---spin never}
}
# the figures of one trace, one line per end: name value ...
cut_trace() { # FILE
	python3 - "$1" <<'EOF'
import re, statistics, sys
from collections import defaultdict
SEND, RECV = {44, 46}, {45, 47}  # x86-64: sendto sendmsg, recvfrom recvmsg
pat = re.compile(r'\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)')
ev = []
for line in open(sys.argv[1]):
    m = pat.match(line)
    if m:
        ev.append((int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)))
sends = defaultdict(int)
for pid, t, e, tr in ev:
    if e.endswith('sys_enter') and int(tr.split()[1]) in SEND:
        sends[pid] += 1
for pid in [p for p, n in sends.items() if n > 1000]:
    mine = [x for x in ev if x[0] == pid or
            (x[2].endswith('sched_switch') and 'next_pid=%d ' % pid in x[3])]
    mine = mine[len(mine) // 5:4 * len(mine) // 5]
    f = defaultdict(list)
    nr = prev = enter = on = None
    oncpu = 0.0
    slept = False
    for p, t, e, tr in mine:
        if e.endswith('sched_switch'):
            if p == pid and 'prev_pid=%d ' % pid in tr:
                if nr is not None and on is not None:
                    oncpu += t - on
                on = None
                slept = nr is not None
            elif 'next_pid=%d ' % pid in tr:
                on = t
            continue
        if e.endswith('sys_enter'):
            n = int(tr.split()[1])
            if prev is not None and n in SEND | RECV:
                pn, pt = prev
                if pn in RECV and n in SEND:
                    f['recv->send'].append(t - pt)
                elif pn in SEND and n in RECV and t - pt < 5e-6:
                    f['send->recv'].append(t - pt)
            nr, enter, on, oncpu, slept = n, t, t, 0.0, False
        elif nr is not None:
            if on is not None:
                oncpu += t - on
            if nr in SEND:
                f['send'].append(t - enter)
            elif nr in RECV:
                f['recv slept' if slept else 'recv now'].append(oncpu)
                f['slept'].append(100.0 if slept else 0.0)
            prev = (nr, t)
            nr = None
    print(' '.join('%s=%.4f' % (k.replace(' ', '_'), statistics.mean(v) if k == 'slept' else
                                statistics.median(v) * 1e6)
                   for k, v in sorted(f.items()) if v))
EOF
}
for size in $sizes; do
	for r in $(seq "$runs"); do
		for t in $([ $((r % 2)) = 1 ] && echo sock fab || echo fab sock); do
			"$t" "$size" "$tmp/trace" || { echo "$t $size: the run or perf failed"; exit 1; }
			cut_trace "$tmp/trace" | sed "s/^/$t $size /" >>"$tmp/figs"
		done
	done
done
echo "# tcp ping-pong path, both ends on CPU 0, medians of both ends over $runs runs (us; slept: %); fabtune options: ${FAB_ARGS:---spin never}; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-8s %8s %11s %11s %8s %9s %11s %8s\n" tool size recv-\>send send-\>recv send "recv now" "recv slept" "slept %"
for size in $sizes; do
	for t in sock fab; do
		vals=()
		for k in 'recv->send' 'send->recv' send recv_now recv_slept slept; do
			v=$(awk -v t="$t" -v s="$size" '$1 == t && $2 == s' "$tmp/figs" | tr ' ' '\n' |
				sed -n "s/^$k=//p" | median)
			vals+=("${v:--}")
		done
		printf "%-8s %8s %11s %11s %8s %9s %11s %8s\n" "$t" "$size" "${vals[@]}"
	done
done
