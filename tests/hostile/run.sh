#!/usr/bin/env bash
# tests/hostile/run.sh - hostile input and faults, as TAP: FIFOs, devices,
# symlink traps, deep nesting, alias bombs, non-UTF-8 bytes, damaged and
# foreign archives, read-only archives. Each case states its exit code and a
# pattern its stderr (or stdout) must match, and runs under a time limit: a
# hang is a failure, not a stuck test run. docs/guarantees.md lists what these
# cases keep true.
set -u
fabtune=${1:?usage: run.sh PATH-TO-FABTUNE}
export LC_ALL=C TZ=UTC FABTUNE_TEST_STABLE=1 NO_COLOR=1
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
src=$PWD
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
n=0
fail=0

# ok NAME / notok NAME REASON: one TAP line
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1: $2"
	sed 's/^/# stdout: /' "$tmp/out" | head -n 8
	sed 's/^/# stderr: /' "$tmp/err" | head -n 8
}

# run LIMIT_S ARGS...: fabtune with a time limit; sets rc (124: it hung)
run() {
	local limit=$1
	shift
	timeout -k 5 "$limit" "$fabtune" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# expect NAME RC REGEX ARGS...: exit code RC and REGEX (grep -E) in stderr
expect() {
	local name=$1 want=$2 re=$3
	shift 3
	run 60 "$@"
	if [ "$rc" != "$want" ]; then
		notok "$name" "exit code $rc, expected $want"
	elif ! grep -Eq -- "$re" "$tmp/err"; then
		notok "$name" "stderr does not match /$re/"
	else
		ok "$name"
	fi
}

# ---- bounded reading: devices, FIFOs, directories, size cap ---------------
mkfifo "$tmp/fifo"
expect "parse /dev/zero is refused" 2 '/dev/zero: is a character device, not a regular file' \
	parse /dev/zero
expect "diagnose /dev/zero is refused" 2 '/dev/zero: is a character device' diagnose /dev/zero
expect "advise /dev/zero is refused" 2 '/dev/zero: is a character device' advise /dev/zero
expect "parse of a FIFO does not block" 2 'fifo: is a FIFO, not a regular file' parse "$tmp/fifo"
expect "sim of a FIFO scenario does not block" 2 'fifo: is a FIFO' sim "$tmp/fifo"
# a folder stands for its files: its FIFO is passed over (no block), and a
# folder with no file of a known format is an error naming it
expect "a folder of nothing known is an error, its FIFO unopened" 2 \
	': no file in a known format' parse "$tmp"
head -c 5000 /dev/zero | tr '\0' 'x' >"$tmp/big.log"
FABTUNE_MAX_INPUT=4K expect "FABTUNE_MAX_INPUT caps a read" 2 \
	'big.log: file of 5000 bytes is larger than the input limit of 4096 bytes' parse "$tmp/big.log"

# out of memory while reading: an error, not a loop (no address-space limit
# under AddressSanitizer, which reserves terabytes of shadow memory)
if ! nm "$fabtune" 2>/dev/null | grep -q __asan_init; then
	truncate -s 1536M "$tmp/sparse.yaml"
	( ulimit -v 1000000; FABTUNE_MAX_INPUT=4G expect "out of memory while reading ends the read" 3 \
		'sparse.yaml: out of memory after [0-9]+ bytes' diagnose --expect "$tmp/sparse.yaml" \
		tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt; exit $fail ) | tee "$tmp/sub"
	n=$((n + 1)); grep -q '^not ok' "$tmp/sub" && fail=$((fail + 1))
	rm -f "$tmp/sparse.yaml"
fi

# ---- YAML: nesting depth, alias bombs, operation cap ----------------------
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$tmp/deep.yaml"
expect "spec: 100k levels of [ stop at depth 64" 2 'deep.yaml:1:65: nesting deeper than 64 levels' \
	spec "$tmp/deep.yaml"
{ echo "cluster: dgx-h100:2"; printf 'jobs: '; cat "$tmp/deep.yaml"; } >"$tmp/deep-sc.yaml"
expect "sim: deep scenario" 2 'deep-sc.yaml:2:70: nesting deeper than 64 levels' sim "$tmp/deep-sc.yaml"
expect "sim --sweep: deep sweep" 2 'deep.yaml:1:65: nesting deeper than 64 levels' \
	sim --sweep "$tmp/deep.yaml"
expect "diagnose --expect: deep expectations" 2 'deep.yaml:1:65: nesting deeper than 64' \
	diagnose --expect "$tmp/deep.yaml" tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt
expect "diagnose --thresholds: deep thresholds" 2 'deep.yaml:1:65: nesting deeper than 64' \
	diagnose --thresholds "$tmp/deep.yaml" examples/inputs/ib_write_bw.txt
expect "plan --model: deep model file" 2 'deep.yaml:1:65: nesting deeper than 64' \
	plan dgx-h100:2 --model "$tmp/deep.yaml" --tp 8
python3 -c '
for i in range(70): print("  " * i + "k%d:" % i)
print("  " * 70 + "v")' >"$tmp/deep-block.yaml"
expect "spec: deep block mapping" 2 'deep-block.yaml:65:[0-9]+: nesting deeper than 64 levels' \
	spec "$tmp/deep-block.yaml"
python3 -c '
print("cluster: dgx-h100:2")
print("a0: &a0 {op: all_reduce, size: 1M}")
for i in range(1, 10): print("a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)))
print("jobs: [{name: x, ops: *a9}]")' >"$tmp/bomb.yaml"
expect "sim: an alias bomb is stopped" 2 \
	'bomb.yaml:7:[0-9]+: aliases expand the document by more than 100000 nodes' sim "$tmp/bomb.yaml"
expect "spec: an alias bomb is stopped" 2 'bomb.yaml:[0-9]+:[0-9]+: aliases expand' spec "$tmp/bomb.yaml"
python3 -c '
print("cluster: dgx-h100:2\njobs:\n - name: x\n   ops:")
for i in range(100001): print("    - {op: all_reduce, size: 1M}")' >"$tmp/ops.yaml"
expect "sim: at most 100000 operations" 2 \
	'ops.yaml:100005:7: jobs\[0\].ops\[100000\]: more than 100000 operations' sim "$tmp/ops.yaml"

# ---- the output writer: no clobbering through links, no device replaced ---
rep=(report tests/fixtures/archive/h100-current.json)
echo secret >"$tmp/victim"
chmod 600 "$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.txt"
expect "report -o a symlink is refused" 2 'link.txt: is a symbolic link; refusing to replace it' \
	"${rep[@]}" -o "$tmp/link.txt"
if [ "$(cat "$tmp/victim")" = secret ] && [ -L "$tmp/link.txt" ]; then
	ok "the symlink and its target are untouched"
else
	notok "the symlink and its target are untouched" "changed"
fi
# the twin's --trace file and --counters folder go through the same writer
expect "sim --trace through a symlink is refused" 2 'trace: .*link.txt: is a symbolic link' \
	sim scenarios/lab/incast-pfc-only.yaml --trace "$tmp/link.txt" --trace-links 1
mkdir -p "$tmp/counters"
ln -s "$tmp/victim" "$tmp/counters/ethtool-S.n0.nic0.txt"
expect "sim --counters through a planted symlink is refused" 2 \
	'counters: .*ethtool-S.n0.nic0.txt: is a symbolic link' \
	sim scenarios/lab/incast-pfc-only.yaml --counters "$tmp/counters"
if [ "$(cat "$tmp/victim")" = secret ]; then
	ok "the twin's outputs left the symlinks' target untouched"
else
	notok "the twin's outputs left the symlinks' target untouched" "changed"
fi
if [ -c /dev/full ]; then
	expect "report -o /dev/full is refused" 2 '/dev/full: is a character device; refusing' \
		"${rep[@]}" -o /dev/full
	[ -c /dev/full ] && ok "/dev/full is still a device" || notok "/dev/full" "replaced"
fi
expect "report -o a FIFO is refused" 2 'fifo: is a FIFO; refusing' "${rep[@]}" -o "$tmp/fifo"
run 60 "${rep[@]}" -o /dev/stdout
if [ "$rc" = 0 ] && grep -q . "$tmp/out"; then ok "report -o /dev/stdout writes to stdout"; else
	notok "report -o /dev/stdout writes to stdout" "exit code $rc"; fi
echo old >"$tmp/kept.txt"
chmod 640 "$tmp/kept.txt"
run 60 "${rep[@]}" -o "$tmp/kept.txt"
if [ "$rc" = 0 ] && [ "$(stat -c %a "$tmp/kept.txt")" = 640 ] && grep -q . "$tmp/kept.txt" &&
	[ "$(find "$tmp" -name '*.tmp' | wc -l)" = 0 ]; then
	ok "a replaced file keeps its mode and no temporary file is left"
else
	notok "a replaced file keeps its mode" "rc $rc, mode $(stat -c %a "$tmp/kept.txt")"
fi

# ---- probe --root: confined to the captured tree, no FIFO blocks ---------
cp -a tests/fixtures/sysfs/gpu-node "$tmp/tree"
echo "top-secret-host" >"$tmp/secret"
rm "$tmp/tree/etc/hostname"
ln -s "$tmp/secret" "$tmp/tree/etc/hostname"
mkdir -p "$tmp/outside/net/evil0"
echo up >"$tmp/outside/net/evil0/operstate"
mv "$tmp/tree/sys/class/net" "$tmp/tree/sys/class/net.orig"
ln -s "$tmp/outside/net" "$tmp/tree/sys/class/net"
mkfifo "$tmp/tree/sys/class/infiniband/mlx5_0/ports/1/state" 2>/dev/null ||
	{ rm -f "$tmp/tree/sys/class/infiniband/mlx5_0/ports/1/state" &&
		mkfifo "$tmp/tree/sys/class/infiniband/mlx5_0/ports/1/state"; }
run 30 probe --root "$tmp/tree"
if [ "$rc" = 124 ]; then
	notok "probe --root with a FIFO in the tree" "hung"
elif grep -q 'top-secret' "$tmp/out" "$tmp/err"; then
	notok "an absolute symlink under --root does not escape" "read a file outside the tree"
elif grep -q 'evil0' "$tmp/out"; then
	notok "a symlinked folder under --root does not escape" "listed a folder outside the tree"
elif [ "$rc" != 0 ] || ! grep -q 'mlx5_0' "$tmp/out"; then
	notok "probe --root with symlink traps and a FIFO" "exit code $rc"
else
	ok "probe --root: no escape through symlinks, no block on a FIFO"
fi

# ---- the archive: damaged pages, foreign schema objects, read-only --------
imp=tests/fixtures/archive/h100-current.json
arch() { FABTUNE_ARCHIVE=$1; export FABTUNE_ARCHIVE; }
arch "$tmp/good.db"
for _ in 1 2 3; do run 60 archive import "$imp"; done
[ "$rc" = 0 ] || notok "import into a new archive" "exit code $rc"
cp "$tmp/good.db" "$tmp/damaged.db"
# page 1 (the header) stays intact: only the quick_check sees the damage
for pg in 5 8; do
	printf '\377\377\377\377\377\377\377\377' |
		dd of="$tmp/damaged.db" bs=1 seek=$(((pg - 1) * 4096)) conv=notrunc 2>/dev/null
done
arch "$tmp/damaged.db"
sum=$(md5sum <"$tmp/damaged.db")
expect "a save into a damaged archive is refused" 3 \
	'nothing was written: archive .*damaged.db: damaged, SQLite quick_check says: .*Page [58]' \
	model dgx-h100:2 --save
[ "$(md5sum <"$tmp/damaged.db")" = "$sum" ] && ok "the damaged archive is unchanged" ||
	notok "the damaged archive is unchanged" "changed"
expect "archive check reports the damage" 1 'integrity check' archive check

cp "$tmp/good.db" "$tmp/trigger.db"
arch "$tmp/trigger.db"
if command -v sqlite3 >/dev/null; then
	sqlite3 "$tmp/trigger.db" \
		"CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs WHERE id <> new.id; END;"
	expect "archive check names a foreign trigger" 1 "holds a trigger 'wipe' on 'runs' that fabtune did not create" \
		archive check
	expect "a save into an archive with a foreign trigger is refused" 3 \
		"refusing to write" model dgx-h100:2 --save
	run 60 archive list --json
	[ "$(grep -o '"id":' "$tmp/out" | wc -l)" = 3 ] && ok "the three runs are kept" ||
		notok "the three runs are kept" "$(grep -o '"id":' "$tmp/out" | wc -l) runs"
	sqlite3 "$tmp/trigger.db" "DROP TRIGGER wipe; CREATE VIEW shadow AS SELECT 1 AS id;"
	expect "a save into an archive with a foreign view is refused" 3 "holds a view 'shadow'" \
		archive import "$imp"
fi

sed 's/"version": 2/"version": 99/' "$imp" >"$tmp/v99.json"
arch "$tmp/good.db"
expect "an export of a newer version is not imported" 2 \
	'v99.json:3:14: version: export version 99 is from a newer fabtune' archive import "$tmp/v99.json"
sed '/"version": 2/d' "$imp" >"$tmp/v0.json"
expect "an export without a version is not imported" 2 'v0.json:[0-9]+:[0-9]+: version: expected' \
	archive import "$tmp/v0.json"

cp "$tmp/good.db" "$tmp/ro.db"
chmod 444 "$tmp/ro.db"
arch "$tmp/ro.db"
run 60 archive list
[ "$rc" = 0 ] && [ "$(grep -c 'import' "$tmp/out")" = 3 ] && ok "a read-only archive is listed" ||
	notok "a read-only archive is listed" "exit code $rc"
expect "a save into a read-only archive says why not" 3 \
	'ro.db: opened read-only \(the file is read-only, mode 0444\); nothing was saved' \
	model dgx-h100:2 --save
# a read-only mount, where not even the -shm file can be created
mkdir "$tmp/mnt"
cp "$tmp/good.db" "$tmp/mnt/a.db"
if unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount --bind -o ro '$tmp/mnt' '$tmp/mnt' 2>/dev/null || exit 77
		FABTUNE_ARCHIVE='$tmp/mnt/a.db' '$fabtune' archive list >'$tmp/out' 2>'$tmp/err' &&
		FABTUNE_ARCHIVE='$tmp/mnt/a.db' '$fabtune' archive import '$imp' >>'$tmp/out' 2>>'$tmp/err'"
	rc=$?
	if [ "$rc" = 77 ]; then
		n=$((n + 1)); echo "ok $n - an archive on a read-only mount # SKIP no bind mount here"
	elif [ "$rc" = 3 ] && [ "$(grep -c 'import' "$tmp/out")" = 3 ] &&
		grep -q 'opened read-only (read-only file system); nothing was saved' "$tmp/err"; then
		ok "an archive on a read-only mount is listed and a save says why not"
	else
		notok "an archive on a read-only mount" "exit code $rc"
	fi
fi
unset FABTUNE_ARCHIVE

# ---- out of memory while writing a report ----------------------------------
# FT_FAULT_ALLOC=k fails the kth allocation of the process. A report is written
# at the end of a run: the last 300 allocations of this `sim` take in the first
# growth of its text's buffer and its tables' cells. Each k among them must
# give the whole report and exit 0, or an out-of-memory error and exit 3, never
# a cut or empty report with exit 0 (cli/cli-run.c cli_finish() reads the
# buffer's oom mark; base/table.c marks a table whose cell was not added). The
# run's count of allocations is found by bisection (the first k whose run is
# the unfailed one).
oom_sim=(sim aws-p5:2 --op broadcast -b 1M --engine packet)
"$fabtune" "${oom_sim[@]}" >"$tmp/oom-base" 2>/dev/null </dev/null
oom_unfailed() { # k: the run with FT_FAULT_ALLOC=k is the unfailed one
	FT_FAULT_ALLOC=$1 "$fabtune" "${oom_sim[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null &&
		cmp -s "$tmp/out" "$tmp/oom-base"
}
lo=1 hi=1000000
if grep -q '^makespan:' "$tmp/oom-base" && ! oom_unfailed "$lo" && oom_unfailed "$hi"; then
	while [ $((hi - lo)) -gt 1 ]; do
		mid=$(((lo + hi) / 2))
		if oom_unfailed "$mid"; then hi=$mid; else lo=$mid; fi
	done
	bad=
	for ((k = hi > 300 ? hi - 300 : 1; k < hi; k++)); do
		FT_FAULT_ALLOC=$k timeout -k 5 60 "$fabtune" "${oom_sim[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
		if [ "$rc" = 0 ] && ! cmp -s "$tmp/out" "$tmp/oom-base"; then
			bad="k=$k: exit 0 with $(wc -l <"$tmp/out") of $(wc -l <"$tmp/oom-base") lines"
			break
		elif [ "$rc" != 0 ] && { [ "$rc" != 3 ] || ! grep -q 'out of memory' "$tmp/err"; }; then
			bad="k=$k: exit code $rc, stderr $(head -c 200 "$tmp/err")"
			break
		fi
	done
	[ -z "$bad" ] && ok "out of memory writing a sim report: an error, never a cut report (last 300 of $hi)" ||
		notok "out of memory writing a sim report: an error, never a cut report" "$bad"
else
	notok "out of memory writing a sim report: an error, never a cut report" \
		"the unfailed run or FT_FAULT_ALLOC did not behave (no bisection)"
fi

# ---- as an unprivileged user: unreadable inputs, an archive not ours ------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	mkdir "$tmp/priv"
	chmod 755 "$tmp" "$tmp/priv"
	echo "name: x" >"$tmp/priv/unreadable.yaml"
	chmod 600 "$tmp/priv/unreadable.yaml"
	nobody "$fabtune" spec "$tmp/priv/unreadable.yaml" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && grep -q 'unreadable.yaml: cannot read: Permission denied' "$tmp/err" &&
		ok "an unreadable file is an input error (2), not a runtime one" ||
		notok "an unreadable file is an input error (2), not a runtime one" "exit code $rc"
	cp "$tmp/good.db" "$tmp/priv/theirs.db"
	chmod 644 "$tmp/priv/theirs.db"
	FABTUNE_ARCHIVE="$tmp/priv/theirs.db" nobody "$fabtune" archive list >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 0 ] && [ "$(grep -c import "$tmp/out")" = 3 ] &&
		ok "an archive in a folder we cannot write is listed" ||
		notok "an archive in a folder we cannot write is listed" "exit code $rc"
	FABTUNE_ARCHIVE="$tmp/priv/theirs.db" nobody "$fabtune" model dgx-h100:2 --save >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 3 ] && grep -q 'opened read-only (the file is not writable); nothing was saved' "$tmp/err" &&
		ok "a save into an archive we cannot write says why not" ||
		notok "a save into an archive we cannot write says why not" "exit code $rc"
	chmod 600 "$tmp/priv/theirs.db"
	FABTUNE_ARCHIVE="$tmp/priv/theirs.db" nobody "$fabtune" archive list >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 3 ] && grep -q 'theirs.db: Permission denied' "$tmp/err" && ! grep -q corrupt "$tmp/err" &&
		ok "an archive we cannot read: permission denied, not corrupt" ||
		notok "an archive we cannot read: permission denied, not corrupt" "exit code $rc"
	chmod 700 "$tmp"
fi

echo "1..$n"
exit 0
