#!/usr/bin/env bash
# tests/cli/json-files.sh - a JSON document written to a file (-o, --trace)
# carries its schema as its first member, as on standard output.
set -u
fabtune=${1:?usage: json-files.sh PATH-TO-FABTUNE}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export FABTUNE_ARCHIVE="$tmp/a.db" FABTUNE_TEST_STABLE=1 LC_ALL=C
fail=0
first_member() { # file, schema
	if head -c 200 "$1" | tr -d ' \n' | grep -q "^{\"schema\":\"$2\""; then
		echo "ok: $(basename "$1") starts with schema $2"
	else
		echo "not ok: $(basename "$1") lacks schema $2: $(head -c 80 "$1")"; fail=1
	fi
}
"$fabtune" archive import tests/fixtures/archive/h100-current.json >/dev/null || fail=1
"$fabtune" archive export -o "$tmp/export.json" 2>/dev/null || fail=1
first_member "$tmp/export.json" fabtune.archive.export/1
"$fabtune" report latest --format json -o "$tmp/report.json" 2>/dev/null || fail=1
first_member "$tmp/report.json" fabtune.report/1
"$fabtune" sim scenarios/lab/incast-pfc-only.yaml --trace "$tmp/trace.json" \
	--trace-links 264,34 --trace-interval 50us >/dev/null 2>&1 || fail=1
first_member "$tmp/trace.json" fabtune.sim.trace/1
# the export still imports (the schema member is known to the reader)
FABTUNE_ARCHIVE="$tmp/b.db" "$fabtune" archive import "$tmp/export.json" >/dev/null ||
	{ echo "not ok: the export does not import"; fail=1; }
exit $fail
