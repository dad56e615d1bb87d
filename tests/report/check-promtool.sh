#!/usr/bin/env bash
# tests/report/check-promtool.sh - the Prometheus exposition of `fabtune report`
# passes `promtool check metrics` (Debian package prometheus). Exit 77 (skip)
# when promtool is not installed.
set -u
fabtune=${1:?usage: check-promtool.sh PATH-TO-FABTUNE}
command -v promtool >/dev/null 2>&1 || { echo "promtool not found: skipped"; exit 77; }
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FABTUNE_ARCHIVE="$tmp/archive.db" FABTUNE_TEST_STABLE=1
F=tests/fixtures/archive
fail=0
check() {
	local name=$1
	shift
	if ! "$fabtune" report "$@" --format prom >"$tmp/$name.prom" 2>"$tmp/err"; then
		echo "FAIL $name: fabtune report failed: $(cat "$tmp/err")"
		fail=1
		return
	fi
	if ! promtool check metrics <"$tmp/$name.prom" >"$tmp/out" 2>&1; then
		echo "FAIL $name: promtool check metrics:"
		sed 's/^/  /' "$tmp/out"
		fail=1
		return
	fi
	echo "ok $name ($(grep -c '^fabtune_' "$tmp/$name.prom") samples)"
}
check fabric "$F/fabric-doctor.json"
check compare "$F/h100-current.json" --vs "$F/h100-baseline.json"
# Labels that need escaping (backslash, quote, newline) still pass.
"$fabtune" archive import "$F/escape-labels.json" >/dev/null || fail=1
check escaped latest
# A broken exposition must fail the check: the test can fail.
printf '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\nbad metric\n' >"$tmp/broken.prom"
if promtool check metrics <"$tmp/broken.prom" >/dev/null 2>&1; then
	echo "FAIL: promtool accepted a broken exposition"
	fail=1
fi
exit $fail
