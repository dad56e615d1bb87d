#!/usr/bin/env bash
# tests/cli/run.sh - golden tests of the fabtune command line, as TAP.
#
# Each case is tests/cli/cases/NAME.cmd: one line of arguments to fabtune
# (shell words; run from the source root). Expected stdout is NAME.out,
# stderr NAME.err and the exit code NAME.rc (default 0). A case of several
# lines runs each as a fabtune command in turn, the last one the case's: the
# lines before it set up its input (e.g. `sim ... --counters $CASE_TMP/c`,
# then `diagnose $CASE_TMP/c`; $CASE_TMP is an empty folder of the case's
# own, written as the text CASE_TMP in what is compared); the stdout of line
# K goes to $CASE_TMP/K.out, for the lines after it to read (a sim's report
# that diagnose reads with its counters), their stderr is kept, and an exit
# status other than 0 is added to stderr as "(line K: exit R)". Stderr is always
# compared: a case without NAME.err expects an empty stderr, so a new warning
# or message fails the case until its .err is added (and reviewed).
# FT_UPDATE_GOLDEN=1 rewrites the expected files for review in the diff.
#
# A case that listens on a TCP port names it $FREE_PORT: a port free at the
# time (the kernel's pick for a bind to port 0), written as the text
# FREE_PORT in what is compared. A fixed port could be held by anything else
# on the host (a parallel test, another build's suite): the case then failed
# with "Address already in use". Should the port be taken between the pick
# and the case's bind, the case runs again with another, up to 3 times.
#
# run.sh FABTUNE K/N runs shard K of N: the cases whose place in the sorted
# list, counted from 0, is K-1 modulo N, so that meson can run the shards side
# by side (tests/meson.build) and each case runs in exactly one of them.
# run.sh --list [K/N] prints the names of the cases (of one shard) instead of
# running them (tests/shards.sh checks that the shards cover every case once).
set -u
usage="usage: run.sh PATH-TO-FABTUNE|--list [K/N]"
fabtune=${1:?$usage}
shard=${2:-1/1}
if ! [[ $shard =~ ^([0-9]+)/([0-9]+)$ ]] || [ "${BASH_REMATCH[2]}" -lt 1 ] ||
	[ "${BASH_REMATCH[1]}" -lt 1 ] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
	echo "run.sh: shard '$shard' is not K/N with 1 <= K <= N; $usage" >&2
	exit 2
fi
k=$((BASH_REMATCH[1] - 1)) nshards=${BASH_REMATCH[2]}
export LC_ALL=C TZ=UTC FABTUNE_TEST_STABLE=1 NO_COLOR=1
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
dir=tests/cli/cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=("$dir"/*.cmd)
if [ -n "${2:-}" ]; then # one shard: every nshards-th case from the k-th
	all=("${cases[@]}")
	cases=()
	for ((i = k; i < ${#all[@]}; i += nshards)); do cases+=("${all[i]}"); done
fi
if [ "$fabtune" = --list ]; then
	for c in "${cases[@]}"; do c=${c##*/}; echo "${c%.cmd}"; done
	exit 0
fi
# free_port: a TCP port that no socket of this host holds now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}
echo "1..${#cases[@]}"
n=0
fail=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	name=$(basename "$c" .cmd)
	export FABTUNE_ARCHIVE="$tmp/$name.db"
	CASE_TMP="$tmp/$name.d"
	mkdir -p "$CASE_TMP"
	try=1
	while :; do
		: >"$tmp/err"
		if grep -q FREE_PORT "$c"; then
			FREE_PORT=$(free_port) || FREE_PORT=0
			export FREE_PORT
		fi
		nl=$(grep -c '' "$c")
		for ((ln = 1; ln < nl; ln++)); do
			args=$(sed -n "${ln}p" "$c")
			eval "set -- $args"
			"$fabtune" "$@" >"$CASE_TMP/$ln.out" 2>>"$tmp/err" </dev/null
			rc=$?
			[ "$rc" = 0 ] || echo "(line $ln: exit $rc)" >>"$tmp/err"
		done
		args=$(sed -n "${nl}p" "$c")
		eval "set -- $args"
		"$fabtune" "$@" >"$tmp/out" 2>>"$tmp/err" </dev/null
		rc=$?
		if grep -q FREE_PORT "$c" && grep -q "Address already in use" "$tmp/err" &&
			[ $try -lt 3 ]; then
			try=$((try + 1))
			continue
		fi
		break
	done
	if [ "$nl" -gt 1 ]; then
		sed -i "s|$CASE_TMP|CASE_TMP|g" "$tmp/out" "$tmp/err"
	fi
	if grep -q FREE_PORT "$c"; then
		sed -i -E "s/(^|[^0-9])$FREE_PORT([^0-9]|\$)/\1FREE_PORT\2/g" "$tmp/out" "$tmp/err"
	fi
	rm -rf "$CASE_TMP"
	want_rc=0
	[ -f "$dir/$name.rc" ] && want_rc=$(cat "$dir/$name.rc")
	if [ "${FT_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "$dir/$name.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$dir/$name.err"; else rm -f "$dir/$name.err"; fi
		if [ "$rc" != 0 ]; then echo "$rc" >"$dir/$name.rc"; else rm -f "$dir/$name.rc"; fi
		echo "ok $n - $name (updated)"
		continue
	fi
	bad=""
	[ "$rc" = "$want_rc" ] || bad="exit code $rc, expected $want_rc"
	if ! diff -u "$dir/$name.out" "$tmp/out" >"$tmp/diff" 2>&1; then
		bad="$bad stdout differs"
	fi
	if [ -f "$dir/$name.err" ]; then
		if ! diff -u "$dir/$name.err" "$tmp/err" >>"$tmp/diff" 2>&1; then
			bad="$bad stderr differs"
		fi
	elif [ -s "$tmp/err" ]; then
		bad="$bad stderr not empty and no $dir/$name.err (an empty stderr is expected;"
		bad="$bad review the message below, then add $name.err, e.g. with FT_UPDATE_GOLDEN=1)"
	fi
	if [ -n "$bad" ]; then
		fail=$((fail + 1))
		echo "not ok $n - $name: $bad"
		sed 's/^/# /' "$tmp/diff" | head -n 60
		sed 's/^/# stderr: /' "$tmp/err" | head -n 10
	else
		echo "ok $n - $name"
	fi
done
exit 0
