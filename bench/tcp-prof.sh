#!/usr/bin/env bash
# bench/tcp-prof.sh - the work fabtune's tcp bandwidth and iperf3 each do per
# byte, in figures that move little with the host's load: system calls
# per MiB, bytes per data call (send/sendmsg/write on the sender,
# recv/recvmsg/read on the receiver), waits (poll/select), context
# switches and page faults per MiB, CPU time per GiB received, user and
# system apart (task-clock: user + system, spins included, so this one
# does move), and, where the CPU exposes them, cycles, instructions and
# last-level cache loads and misses per MiB (a VM often does not: "-"),
# for the sender and the receiver apart, beside the receiver's rate
# (Gb/s). Each side runs under `perf stat` with the kernel's syscall
# tracepoints, across a veth pair between two network namespaces (root
# needed), as bench/tcp-bw.sh's veth path does: fabtune sends VOL_MIB (256)
# MiB in messages of the size with --window 32, copied from one buffer of
# the message's size and into another, without its data check (-c 0: it
# fills and reads both buffers after the timed run, user time that is not
# the transfer's); iperf3 runs DUR (2) s and its
# receiver's byte count is taken, twice: "iperf3" with its default buffer
# (-l 128 KiB for TCP, written again and again, so it stays in cache) and
# "iperf3-l" with -l set to the message size, at most the 1 MiB iperf3
# accepts. SIZES (65536 1048576 16777216 67108864) and STREAMS ("1 4")
# pick the cases; FAB_ARGS adds options to fabtune. Counts include each
# side's start-up and connection set-up (a few hundred calls), small
# beside the runs here.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
command -v iperf3 >/dev/null || { echo "needs iperf3"; exit 2; }
command -v perf >/dev/null || { echo "needs perf"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)"; exit 2; }
veth_tmp ftpr
sizes=${SIZES:-65536 1048576 16777216 67108864}
vol=$((${VOL_MIB:-256} << 20))
ev=task-clock,user_time,system_time,context-switches,minor-faults,raw_syscalls:sys_enter
# hardware counters where the CPU (or the VM) exposes them
for h in cycles instructions LLC-loads LLC-load-misses; do
	perf stat -x, -e "$h" -- true 2>&1 | grep -q "not supported" || ev=$ev,$h
done
for c in sendto sendmsg write recvfrom recvmsg read poll ppoll select pselect6; do
	ev=$ev,syscalls:sys_enter_$c
done
veth_up "$ns" 198.18.4 || exit 2
A="ip netns exec ${ns}a"
B="ip netns exec ${ns}b"
addr=198.18.4.1

pstat() { # OUTFILE CMD...: the command under perf stat, CSV counts in OUTFILE
	local o=$1
	shift
	perf stat -x, -e "$ev" -o "$o" -- "$@"
}
# count EVENT FILE: the event's count in a perf stat CSV file
count() {
	awk -F, -v e="$1" '$3 == e { print ($1 ~ /^[0-9.]+$/) ? $1 : 0 }' "$2"
}
# row TOOL SIDE STREAMS SIZE BYTES FILE [Gb/s]: one line of figures
row() {
	awk -v t="$1" -v s="$2" -v p="$3" -v z="$4" -v b="$5" -v g="${7:-}" \
		-v cpu="$(count task-clock "$6")" -v cs="$(count context-switches "$6")" \
		-v usr="$(count user_time "$6")" -v sys="$(count system_time "$6")" \
		-v pf="$(count minor-faults "$6")" -v cyc="$(count cycles "$6")" \
		-v ins="$(count instructions "$6")" -v llc="$(count LLC-loads "$6")" \
		-v llm="$(count LLC-load-misses "$6")" \
		-v sc="$(count raw_syscalls:sys_enter "$6")" \
		-v tx="$(($(count syscalls:sys_enter_sendto "$6") + $(count syscalls:sys_enter_sendmsg "$6") + \
			$(count syscalls:sys_enter_write "$6")))" \
		-v rx="$(($(count syscalls:sys_enter_recvfrom "$6") + $(count syscalls:sys_enter_recvmsg "$6") + \
			$(count syscalls:sys_enter_read "$6")))" \
		-v wt="$(($(count syscalls:sys_enter_poll "$6") + $(count syscalls:sys_enter_ppoll "$6") + \
			$(count syscalls:sys_enter_select "$6") + $(count syscalls:sys_enter_pselect6 "$6")))" \
		'BEGIN { mib = b / 1048576; if (mib <= 0) { print "# " t " " s ": nothing moved"; exit }
		data = s == "send" ? tx : rx; gib = mib / 1024
		printf "%-8s %-4s %d %8d %7.0f %6.0f %6.0f %8.2f %7.2f %7.2f %7.2f %9.0f %s %s %s %s %7s\n", t, s, p, z,
			cpu / gib, usr / 1e6 / gib, sys / 1e6 / gib, sc / mib, wt / mib, cs / mib, pf / mib,
			(data > 0 ? b / data : 0), per(cyc, mib), per(ins, mib), per(llc, mib), per(llm, mib), g }
		function per(v, m) { return v == "" ? "-" : sprintf("%.0f", v / m) }'
}

fab() { # STREAMS SIZE
	local port=$((29900 + RANDOM % 200)) n=$((vol / $2))
	[ "$n" -ge 32 ] || n=32
	pstat "$tmp/fr" $B "$fabtune" bench pt2pt_bw --rank 1 --nranks 2 --bootstrap "$addr:$port" \
		--transport tcp --streams "$1" -b "$2" -n "$n" --window 32 -c 0 ${FAB_ARGS:-} \
		--json >/dev/null 2>&1 &
	pstat "$tmp/fs" $A "$fabtune" bench pt2pt_bw --rank 0 --nranks 2 --bootstrap "$addr:$port" \
		--transport tcp --streams "$1" -b "$2" -n "$n" --window 32 -c 0 ${FAB_ARGS:-} \
		--json >"$tmp/f.json" 2>&1
	wait
	row fabtune send "$1" "$2" $((n * $2)) "$tmp/fs"
	row fabtune recv "$1" "$2" $((n * $2)) "$tmp/fr" \
		"$(awk -v g="$(json_field algbw_GBps <"$tmp/f.json")" 'BEGIN { printf "%.2f", g * 8 }')"
}
iperf() { # STREAMS SIZE LABEL [BUFFER]: BUFFER given: -l, at most 1 MiB (iperf3's limit)
	local port=$((5500 + RANDOM % 200)) l=${4:-} t=$3
	[ -z "$l" ] || [ "$l" -le 1048576 ] || l=1048576
	pstat "$tmp/ir" $A iperf3 -s -1 -p "$port" -B "$addr" >/dev/null 2>&1 &
	sleep 0.3
	pstat "$tmp/is" $B iperf3 -c "$addr" -p "$port" -P "$1" ${l:+-l "$l"} -t "${DUR:-2}" -J \
		>"$tmp/i.json" 2>/dev/null
	wait
	set -- "$1" "$2" $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["end"]["sum_received"]
print(r["bytes"], "%.2f" % (r["bits_per_second"] / 1e9))' "$tmp/i.json")
	row "$t" send "$1" "$2" "$3" "$tmp/is"
	row "$t" recv "$1" "$2" "$3" "$tmp/ir" "$4"
}

echo "# tcp over veth, per side: CPU ms per GiB received (all, user, system), system calls, waits"
echo "# (poll/select), context switches and page faults per MiB, bytes per data call, cycles,"
echo "# instructions, LLC loads and misses per MiB (-: not exposed), the receiver's Gb/s;"
echo "# fabtune options: ${FAB_ARGS:-none}; load $(cut -d' ' -f1 /proc/loadavg)"
echo "# tool     side s     size  cpu/GiB usr/GiB sys/GiB calls/MiB waits/MiB csw/MiB flt/MiB bytes/call cyc ins llc llcmiss Gb/s"
for s in ${STREAMS:-1 4}; do
	for z in $sizes; do
		fab "$s" "$z"
		iperf "$s" "$z" iperf3
		iperf "$s" "$z" iperf3-l "$z"
	done
done
