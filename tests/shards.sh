#!/usr/bin/env bash
# tests/shards.sh N RUNNER [ARGS...] - the N shards of a sharded test runner
# (tests/cli/run.sh, tests/docs/run.py) together list every case exactly
# once: "RUNNER ARGS --list K/N" for K = 1..N, against "RUNNER ARGS --list"
# (all cases), as TAP. A case in no shard, or in two, fails and is named.
set -u
n=${1:?usage: shards.sh N RUNNER [ARGS...]}
shift
[ "$#" -ge 1 ] || { echo "usage: shards.sh N RUNNER [ARGS...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..$((n + 2))"
if ! "$@" --list >"$tmp/all" 2>"$tmp/err" || [ ! -s "$tmp/all" ]; then
	echo "not ok 1 - $* --list lists no case"
	sed 's/^/# /' "$tmp/err"
	exit 0
fi
echo "ok 1 - $* --list: $(wc -l <"$tmp/all") cases"
: >"$tmp/shards"
for k in $(seq 1 "$n"); do
	if "$@" --list "$k/$n" >"$tmp/one" 2>"$tmp/err" && [ -s "$tmp/one" ]; then
		echo "ok $((k + 1)) - shard $k/$n: $(wc -l <"$tmp/one") cases"
	else
		echo "not ok $((k + 1)) - shard $k/$n lists no case"
		sed 's/^/# /' "$tmp/err"
	fi
	cat "$tmp/one" >>"$tmp/shards"
done
sort "$tmp/all" >"$tmp/all.sorted"
sort "$tmp/shards" >"$tmp/shards.sorted"
missing=$(comm -23 "$tmp/all.sorted" "$tmp/shards.sorted")
twice=$(uniq -d "$tmp/shards.sorted")
extra=$(comm -13 "$tmp/all.sorted" <(sort -u "$tmp/shards.sorted"))
if [ -z "$missing$twice$extra" ] &&
	[ "$(wc -l <"$tmp/shards")" = "$(wc -l <"$tmp/all")" ]; then
	echo "ok $((n + 2)) - the $n shards together run all $(wc -l <"$tmp/all") cases, each once"
else
	echo "not ok $((n + 2)) - the shards do not cover every case exactly once" \
		"($(wc -l <"$tmp/shards") listed in shards, $(wc -l <"$tmp/all") cases)"
	[ -n "$missing" ] && sed 's/^/# in no shard: /' <<<"$missing"
	[ -n "$twice" ] && sed 's/^/# in several shards: /' <<<"$twice"
	[ -n "$extra" ] && sed 's/^/# not a case: /' <<<"$extra"
fi
exit 0
