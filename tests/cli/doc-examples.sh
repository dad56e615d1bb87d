#!/usr/bin/env bash
# tests/cli/doc-examples.sh - run the examples of a documentation page, as TAP.
#
# Every ```console block of the page whose first line is "$ fabtune ..." is
# an example: the command (a shell line, run from the source root, with
# "fabtune" the binary under test) and, after it, its exact output. Output
# on stderr counts only when the line redirects it ("2>&1"). The exit code
# is not checked.
# usage: doc-examples.sh PATH-TO-FABTUNE PAGE.md...
set -u
fabtune=${1:?usage: doc-examples.sh PATH-TO-FABTUNE PAGE.md...}
shift
export LC_ALL=C TZ=UTC FABTUNE_TEST_STABLE=1 NO_COLOR=1
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$(cd "$(dirname "$fabtune")" && pwd)/$(basename "$fabtune")" "$tmp/bin/fabtune"
n=0
for page in "$@"; do
	# Split the page into examples: $tmp/ex.N.cmd (the line) and $tmp/ex.N.out.
	awk -v dir="$tmp" -v page="$(basename "$page")" '
		/^```console$/ { inblock = 1; first = 1; next }
		/^```/ && inblock { if (open) close(out); inblock = 0; open = 0; next }
		inblock && first {
			first = 0
			if ($0 ~ /^\$ fabtune /) {
				k++
				out = dir "/" page "." k ".out"
				cmd = dir "/" page "." k ".cmd"
				print substr($0, 3) > cmd
				close(cmd)
				printf "" > out
				open = 1
			}
			next
		}
		inblock && open { print > out }
	' "$page"
done
examples=("$tmp"/*.cmd)
[ -e "${examples[0]}" ] || { echo "1..0 # no examples"; exit 0; }
echo "1..${#examples[@]}"
for c in "${examples[@]}"; do
	n=$((n + 1))
	name=$(basename "$c" .cmd)
	export FABTUNE_ARCHIVE="$tmp/$name.db"
	PATH="$tmp/bin:$PATH" bash -c "$(cat "$c")" >"$tmp/got" 2>"$tmp/err" </dev/null
	if diff -u "${c%.cmd}.out" "$tmp/got" >"$tmp/diff"; then
		echo "ok $n - $name: $(cat "$c")"
	else
		echo "not ok $n - $name: $(cat "$c")"
		sed 's/^/# /' "$tmp/diff" | head -n 40
		sed 's/^/# stderr: /' "$tmp/err" | head -n 5
	fi
done
exit 0
