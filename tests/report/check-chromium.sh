#!/usr/bin/env bash
# tests/report/check-chromium.sh - the HTML report rendered by headless
# Chromium shows its charts: the screenshot is not blank (many distinct
# colours, decoded from the PNG with python3's zlib), the sections and SVG
# charts are in the HTML and in the DOM Chromium built from it, and the page
# loads nothing from the network. Exit 77 (skip) when chromium is absent.
# FT_REPORT_NO_RENDER=1 checks the pages fabtune writes but renders none of them:
# the sanitizers' build sets it (tests/meson.build), as Chromium runs none of our
# code and the gcc build renders the same pages.
set -u
fabtune=${1:?usage: check-chromium.sh PATH-TO-FABTUNE}
render=1
[ "${FT_REPORT_NO_RENDER:-0}" = 1 ] && render=0
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || [ "$render" = 0 ] || { echo "chromium not found: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
src=$PWD
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
export FABTUNE_ARCHIVE="$tmp/archive.db" FABTUNE_TEST_STABLE=1
F=tests/fixtures/archive
fail=0
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync)

run_chromium() { # out-file, then chromium arguments
	local out=$1
	shift
	timeout 90 "$chromium" "${flags[@]}" --user-data-dir="$tmp/profile" "$@" >"$out" 2>"$tmp/chromium.err" &
	pids+=($!)
	wait $!
}

page() { # name, then fabtune report arguments
	local name=$1
	shift
	"$fabtune" report "$@" -o "$tmp/$name.html" 2>/dev/null || {
		echo "FAIL $name: fabtune report failed"; fail=1; return 1; }
	# Self-contained: no script, no external resource.
	if grep -Eiq '<script|<link |src="http|href="http|@import|url\(' "$tmp/$name.html"; then
		echo "FAIL $name: the page references scripts or external resources"; fail=1
	fi
	return 0
}

expect_ids() { # file, ids...
	local f=$1 id
	shift
	for id in "$@"; do
		grep -q "id=\"$id\"" "$f" || { echo "FAIL: $f lacks id=\"$id\""; fail=1; }
	done
}

# Pixel variety of a PNG: decode IHDR + IDAT with zlib, undo the row filters,
# count distinct colours and the share of the most common one.
cat >"$tmp/png.py" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), 'unexpected PNG format'
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours = {}
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 2 == 0:
        for x in range(0, stride, bpp * 2):
            k = bytes(line[x:x + 3]); colours[k] = colours.get(k, 0) + 1
    prev = line
total = sum(colours.values())
print(len(colours), max(colours.values()) / total)
PY

check_render() { # name, min distinct colours; false when nothing was rendered
	local name=$1 min=$2 colours top
	[ "$render" = 1 ] || { echo "$name: not rendered (FT_REPORT_NO_RENDER=1)"; return 1; }
	# One start both takes the screenshot and dumps the DOM it built (headless
	# Chromium runs the commands given in turn on the one page loaded): a start
	# costs 25 to 30 s under two CPU hogs on 2 CPUs, and two per page took the
	# test to 311 s, past its 300 s limit.
	run_chromium "$tmp/$name.dom" --screenshot="$tmp/$name.png" --dump-dom \
		--window-size=1200,2600 --force-device-scale-factor=0.5 "file://$tmp/$name.html"
	if [ ! -s "$tmp/$name.png" ]; then
		echo "FAIL $name: no screenshot"; sed 's/^/  /' "$tmp/chromium.err" | tail -5; fail=1; return 1
	fi
	read -r colours top < <(python3 "$tmp/png.py" "$tmp/$name.png")
	if [ "${colours:-0}" -lt "$min" ]; then
		echo "FAIL $name: screenshot has $colours colours (< $min): blank?"; fail=1
	else
		echo "ok $name: screenshot has $colours distinct colours, the commonest covers $top"
	fi
	grep -q '</html>' "$tmp/$name.dom" || { echo "FAIL $name: no DOM dumped"; fail=1; return 1; }
}

# 1. A run with a baseline and the model: comparison, charts with three series.
if page compare "$F/h100-current.json" --vs "$F/h100-baseline.json" --expected "$F/h100-model.json"; then
	expect_ids "$tmp/compare.html" summary comparison changes bandwidth latency pairs links \
		findings results chart-bw-all-reduce chart-lat-all-reduce
	if check_render compare 40; then
		expect_ids "$tmp/compare.dom" comparison chart-bw-all-reduce chart-lat-all-reduce findings
		[ "$(grep -c '<polyline' "$tmp/compare.dom")" -ge 6 ] ||
			{ echo "FAIL compare: fewer than 6 plotted series in the DOM"; fail=1; }
		grep -q 'regressed' "$tmp/compare.dom" || { echo "FAIL compare: no regression shown"; fail=1; }
	fi
fi
# 2. A doctor-like run: pairs heatmap, link utilization, two transports.
if page fabric "$F/fabric-doctor.json"; then
	expect_ids "$tmp/fabric.html" pairs-heatmap link-util chart-bw-pt2pt-bw chart-lat-pt2pt-lat \
		layer-fabric layer-os-driver
	grep -q '>100% = ' "$tmp/fabric.html" || { echo "FAIL fabric: no absolute scale"; fail=1; }
	if check_render fabric 40; then
		expect_ids "$tmp/fabric.dom" pairs-heatmap link-util chart-lat-pt2pt-lat
		[ "$(grep -c 'class="cell"' "$tmp/fabric.dom")" -eq 36 ] ||
			{ echo "FAIL fabric: the heatmap should have 6x6 cells"; fail=1; }
	fi
	# The label holds markup: it must be escaped, never live.
	grep -q '&lt;script&gt;' "$tmp/fabric.html" || { echo "FAIL fabric: label not escaped"; fail=1; }
fi
# 3. A simulated run: the scenario, its description and faults, the engine; bars for
#    one measured size; the fingerprint marked as the computing machine's.
if "$fabtune" sim scenarios/degraded-link-ring.yaml --save >/dev/null 2>&1 && page sim latest; then
	for want in 'degraded-link-ring (engine flow, routing dmodk)' 'trained at 1X instead of 4X' \
		'nic: node 17 NIC 3 at 25% of its rate' 'of the machine that computed it' \
		'all_reduce at 1GiB: bus bandwidth'; do
		grep -qF "$want" "$tmp/sim.html" || { echo "FAIL sim: no '$want'"; fail=1; }
	done
	grep -q 'class="bar"' "$tmp/sim.html" || { echo "FAIL sim: no bar for a single size"; fail=1; }
	grep -q '<polyline' "$tmp/sim.html" && { echo "FAIL sim: a line through one point"; fail=1; }
	grep -q '&#8594;</td>' "$tmp/sim.html" && { echo "FAIL sim: a pair with an empty end"; fail=1; }
	check_render sim 20 && expect_ids "$tmp/sim.dom" chart-bw-all-reduce link-util
fi
# 4. A simulated sweep: the links section charts each class's busiest link size by size.
if "$fabtune" sim dgx-h100:2 --op all_reduce -b 1M -e 64M -f 4 --save >/dev/null 2>&1 &&
	page sweep latest; then
	grep -q 'link utilization by size' "$tmp/sweep.html" ||
		{ echo "FAIL sweep: no per-size utilization chart"; fail=1; }
	[ "$(grep -c '<polyline' "$tmp/sweep.html")" -ge 3 ] ||
		{ echo "FAIL sweep: a line per link class expected"; fail=1; }
	check_render sweep 20 && expect_ids "$tmp/sweep.dom" link-util-size link-util
fi
# 5. A simulated run with --trace: the traced ports' rate and queue over time, one point
#    per three samples (1,028 samples of 1 us binned to 343 points of at most 512), the
#    rate at the link's 50 GB/s and never above (the axis tops at 60, not 80); and the
#    rate of flow 0's QP (--trace-qps), binned the same, from its 400 Gb/s line rate down.
if "$fabtune" sim scenarios/lab/incast-pfc-dcqcn-tuned.yaml --trace "$tmp/trace.json" \
	--trace-links 264 --trace-qps 0 --save >/dev/null 2>&1 && page trace latest; then
	expect_ids "$tmp/trace.html" qp-traces trace-qp-rate-0
	qp=$(sed -n '/id="trace-qp-rate-0"/,/<\/svg>/p' "$tmp/trace.html")
	grep -qF 'flow 0: n1.nic0-&gt;n0.nic0 qp 0: reaction-point rate' <<<"$qp" ||
		{ echo "FAIL trace: no QP title"; fail=1; }
	n=$(grep -o 'points="[^"]*"' <<<"$qp" | tr ' ' '\n' | grep -c ',')
	[ "$n" -eq 343 ] || { echo "FAIL trace: $n points in the QP chart, expected 343"; fail=1; }
	grep -q '>400</text>' <<<"$qp" || { echo "FAIL trace: the QP axis should top at 400 Gb/s"; fail=1; }
	expect_ids "$tmp/trace.html" traces trace-rate-0 trace-queue-0
	grep -qF 'leaf0-&gt;n0.nic0: rate' "$tmp/trace.html" || { echo "FAIL trace: no port title"; fail=1; }
	n=$(sed -n '/id="trace-rate-0"/,/<\/svg>/p' "$tmp/trace.html" | grep -o 'points="[^"]*"' |
		tr ' ' '\n' | grep -c ',')
	[ "$n" -eq 343 ] || { echo "FAIL trace: $n points in the rate chart, expected 343"; fail=1; }
	rate=$(sed -n '/id="trace-rate-0"/,/<\/svg>/p' "$tmp/trace.html")
	{ grep -q '>60</text>' <<<"$rate" && ! grep -q '>80</text>' <<<"$rate"; } ||
		{ echo "FAIL trace: the rate axis should top at 60 GB/s"; fail=1; }
	check_render trace 20 && expect_ids "$tmp/trace.dom" trace-rate-0 trace-queue-0 trace-qp-rate-0
fi
# 6. The check can fail: a blank page has a single colour.
if [ "$render" = 1 ]; then
	printf '<!DOCTYPE html><html><body style="background:#fff"></body></html>\n' >"$tmp/blank.html"
	run_chromium "$tmp/blank.shot" --screenshot="$tmp/blank.png" --window-size=400,300 \
		"file://$tmp/blank.html"
	read -r colours top < <(python3 "$tmp/png.py" "$tmp/blank.png")
	[ "${colours:-0}" -le 2 ] || { echo "FAIL: a blank page showed $colours colours"; fail=1; }
fi
[ -n "${FT_KEEP_SCREENSHOTS:-}" ] && cp "$tmp"/*.png "$FT_KEEP_SCREENSHOTS"/ 2>/dev/null
exit $fail
