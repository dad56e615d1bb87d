#!/usr/bin/env bash
# tests/unit-anywhere.sh EXE... - unit test executables pass when started by
# hand from a folder that is not the source root, with no FT_SOURCE_ROOT in
# the environment: each finds its fixtures through the source root compiled
# in (tests/unit/source_root.h). One TAP line per executable; a failure shows
# the executable's last lines.
set -u
[ "$#" -ge 1 ] || { echo "usage: unit-anywhere.sh EXE..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..$#"
i=0
for exe in "$@"; do
	i=$((i + 1))
	exe=$(readlink -f "$exe") # meson names them from the build folder
	mkdir -p "$tmp/cwd"
	if (cd "$tmp/cwd" && env -u FT_SOURCE_ROOT "$exe") >"$tmp/out" 2>&1; then
		echo "ok $i - $(basename "$exe") from a scratch folder"
	else
		echo "not ok $i - $(basename "$exe") from a folder outside the source root"
		tail -n 15 "$tmp/out" | sed 's/^/# /'
	fi
	rm -rf "$tmp/cwd"
done
