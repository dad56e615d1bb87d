#!/usr/bin/env bash
# tests/check-headers.sh - every public header compiles on its own, in C11,
# without warnings (DPDK's check_includes), as TAP.
set -u
cc=${1:?usage: check-headers.sh CC}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/..}" || exit 1
headers=(include/fabtune/*.h)
echo "1..${#headers[@]}"
n=0
for h in "${headers[@]}"; do
	n=$((n + 1))
	name=${h#include/}
	if out=$(printf '#include <%s>\n#include <%s>\nint ft_check_header_(void);\nint ft_check_header_(void) { return 0; }\n' \
		"$name" "$name" | $cc -std=c11 -Wall -Wextra -Werror -pedantic-errors -Wno-gnu-zero-variadic-macro-arguments \
		-Iinclude -fsyntax-only -x c - 2>&1); then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		printf '%s\n' "$out" | sed 's/^/# /' | head -n 20
	fi
done
