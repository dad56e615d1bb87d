# bench/lib.sh - helpers shared by the bench scripts (sourced, not run).
# FABTUNE: path to the fabtune binary (default build/cli/fabtune).
fabtune=${FABTUNE:-build/cli/fabtune}
runs=${RUNS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# median of the numbers on stdin: the middle value of an odd count; of an even
# count the mean of the two middle values, the usual definition (so "1 2 3 4"
# gives 2.5, a value no run produced; that is intended, not a bug)
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# a field of fabtune's --json output: json_field NAME < file (first row)
json_field() {
	grep -o "\"$1\":[0-9.eE+-]*" | head -n 1 | cut -d: -f2
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'
}

# HOG=1: one foreign process that keeps a CPU busy while both sides run
# (hog_start before a measurement, hog_stop after; only that pid is killed).
hog_pid=
hog_start() {
	[ "${HOG:-0}" = 1 ] || return 0
	sh -c 'while :; do :; done' &
	hog_pid=$!
}
hog_stop() {
	[ -n "$hog_pid" ] || return 0
	kill "$hog_pid" 2>/dev/null
	wait "$hog_pid" 2>/dev/null
	hog_pid=
}

# the rows of fabtune's --json output, one per line
json_rows() {
	tr '{' '\n' | grep '"bytes":'
}

# field NAME of the row for SIZE bytes in fabtune's --json output
json_row_field() { # json_row_field SIZE NAME < json
	json_rows | grep "\"bytes\":$1," | grep -o "\"$2\":[0-9.eE+-]*" | head -n 1 | cut -d: -f2
}

# a veth pair between the network namespaces NSa and NSb, PREFIX.1/24 on
# NSa's end and PREFIX.2/24 on NSb's; fails without root (veth_down NS ends it)
veth_up() { # NS PREFIX
	ip netns add "$1a" 2>/dev/null || return 1
	ip netns add "$1b" || return 1
	ip -n "$1a" link add eth0 type veth peer name eth0 netns "$1b"
	ip -n "$1a" addr add "$2.1/24" dev eth0
	ip -n "$1b" addr add "$2.2/24" dev eth0
	ip -n "$1a" link set eth0 up
	ip -n "$1b" link set eth0 up
}
veth_down() { # NS
	ip netns del "$1a" 2>/dev/null
	ip netns del "$1b" 2>/dev/null
}
# tmp, a fresh directory, and ns, PREFIX and this shell's pid (the NS of
# veth_up): both gone at exit
veth_tmp() { # PREFIX
	tmp=$(mktemp -d)
	ns=$1$$
	trap 'veth_down "$ns"; rm -rf "$tmp"' EXIT
}

# ---- fabtune's all_reduce against Open MPI's MPI_Allreduce ----------------
# (bench/allreduce.sh on one host, bench/allreduce-netns.sh across network
# namespaces). allreduce_setup DIR: the sizes and counts their MIN, MAX,
# STEP, ITERS and WARMUP give (min, max, step, iters, warmup), and
# bench/mpi_allreduce.c built as DIR/mpi_allreduce; fails where mpicc does.
allreduce_setup() { # DIR
	min=${MIN:-$((64 << 10))}
	max=${MAX:-$((64 << 20))}
	iters=${ITERS:-40}
	warmup=${WARMUP:-5}
	step=${STEP:-4}
	mpicc -O2 -o "$1/mpi_allreduce" bench/mpi_allreduce.c
}

# Open MPI's byte transfer layers for TRANSPORT: vader for shm, else its tcp
# BTL on interface IF (self is required either way; bench/allreduce.sh adds
# mpi_yield_when_idle, allreduce-netns.sh the out-of-band interface)
ompi_btl() { # TRANSPORT [IF]
	if [ "$1" = shm ]; then
		echo "--mca btl self,vader"
	else
		echo "--mca btl self,tcp --mca btl_tcp_if_include ${2:-lo}"
	fi
}

# the busbw of SIZE bytes in one fabtune --json document
fab_busbw() { # SIZE < json
	json_row_field "$1" busbw_GBps
}

# One line a size from DIR/fab.T.R (fabtune's --json) and DIR/mpi.T.R (bytes,
# microseconds, busbw a line), R = 1..runs: the medians of both, their
# ratio, and the median of per-run ratios (each run's fabtune busbw over
# Open MPI's in the same run) with the lowest and highest, so that a dip in
# some runs shows; LABEL starts the line. KEEP=DIR2 copies the files there.
allreduce_summary() { # DIR T LABEL
	local size=$min f m r
	while [ "$size" -le "$max" ]; do
		m=$(cat "$1"/mpi."$2".* | awk -v s="$size" '$1 == s { print $3 }' | median)
		f=$(for r in "$1"/fab."$2".*; do fab_busbw "$size" <"$r"; done | median)
		for r in $(seq "$runs"); do
			ratio "$(fab_busbw "$size" <"$1/fab.$2.$r")" \
				"$(awk -v s="$size" '$1 == s { print $3 }' "$1/mpi.$2.$r")"
			echo
		done | sort -g >"$1/rv"
		printf "%s %9d B  fabtune %6.3f GB/s  MPI_Allreduce %6.3f GB/s  ratio %s" \
			"$3" "$size" "$f" "$m" "$(ratio "$f" "$m")"
		printf "  (median of per-run ratios %s, %s-%s)\n" "$(median <"$1/rv")" \
			"$(head -n 1 "$1/rv")" "$(tail -n 1 "$1/rv")"
		size=$((size * step))
	done
	if [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP" && cp "$1"/fab."$2".* "$1"/mpi."$2".* "$KEEP"/
	fi
}
