#!/usr/bin/env bash
# tests/docs/rules-pages.sh - the rule pages in docs/rules/ are what
# docs/rules/generate.py writes from the rules fabtune has: a page edited by
# hand (and lost at the next regeneration) or a rule changed without its page
# fails here. Run from the source root: tests/docs/rules-pages.sh FABTUNE
set -u
exe=${1:?usage: rules-pages.sh FABTUNE}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
python3 docs/rules/generate.py "$exe" "$out" >/dev/null || exit 1
rc=0
for f in "$out"/*.md; do
	page=docs/rules/$(basename "$f")
	if [ ! -f "$page" ]; then
		echo "$page: missing (docs/rules/generate.py writes it)"
		rc=1
	elif ! diff -u "$page" "$f"; then
		echo "$page: differs from what docs/rules/generate.py writes (edit the script, then run it)"
		rc=1
	fi
done
for page in docs/rules/*.md; do
	[ -f "$out/$(basename "$page")" ] || { echo "$page: no such rule"; rc=1; }
done
exit $rc
