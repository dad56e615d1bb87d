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
