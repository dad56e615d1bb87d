#!/usr/bin/env bash
# bench/lab-ecmp-seeds.sh - the ECMP rows of the ECMP-against-adaptive labs
# (docs/scenarios/ecmp-vs-adaptive.md) over the seeds 1 to SEEDS (default 5;
# the seed moves the ECMP salts, so which flows collide), each against its
# peer measured in the same run: the same traffic under adaptive routing (no
# collisions). First the all-to-all of 256 MiB over 128 GPUs on the flow
# engine (scenarios/ecmp-vs-adaptive.yaml), with the sends posted as NCCL
# posts them and in waves of 4 peers; then the ring all-reduce of 64 MiB
# over 32 GPUs on the packet engine with PFC and DCQCN
# (scenarios/lab/ring-ecmp-dcqcn.yaml), one DCQCN or ECN knob changed at a
# time, and the flow engine at the same seeds. Prints per row every seed's
# time, their mean, min, max and standard deviation, the mean FCT p99 and
# fabric utilisation (mean / max), and mean / the peer's mean. About 1 s of
# CPU a ring run, 80 runs in all: a minute or two.
source "$(dirname "$0")/sim-common.sh"
SEEDS=${SEEDS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs FILE [fabtune options...]: per seed, one line: time (us), FCT p99 (us), the
# fabric's utilisation mean and max (%), of the file's first result row.
runs() {
	local file=$1 s
	shift
	for s in $(seq 1 "$SEEDS"); do
		"$FABTUNE" sim "$file" --seed "$s" --json "$@" >"$tmp/out" ||
			{ echo "fabtune sim $file --seed $s failed" >&2; return 1; }
		python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fab = [t for t in d["tiers"] if t["kind"] == "fabric"]
print(d["results"][0]["time_us"], d["flows"]["fct_us"]["p99"],
      100 * sum(t["util_mean"] for t in fab) / len(fab), 100 * max(t["util_max"] for t in fab))
PY
	done
}

# peer FILE SED-SCRIPT [fabtune options...]: the peer's runs (adaptive routing), for the
# rows that follow.
peer() {
	local file=$1 script=$2
	shift 2
	sed "$script" "$file" >"$tmp/lab.yaml"
	runs "$tmp/lab.yaml" --routing adaptive "$@" >"$tmp/peer" || exit 1
	summary "  adaptive routing (the peer)" "$tmp/peer"
}

# row NAME FILE SED-SCRIPT [fabtune options...]: FILE with SED-SCRIPT applied, over the
# seeds.
row() {
	local name=$1 file=$2 script=$3
	shift 3
	sed "$script" "$file" >"$tmp/lab.yaml"
	runs "$tmp/lab.yaml" "$@" >"$tmp/t" || return 1
	summary "$name" "$tmp/t"
}

summary() {
	python3 - "$1" "$2" "$tmp/peer" <<'PY'
import statistics, sys
name, rows = sys.argv[1], [list(map(float, l.split())) for l in open(sys.argv[2])]
peer = statistics.mean(float(l.split()[0]) for l in open(sys.argv[3]))
t = [r[0] for r in rows]
sd = statistics.stdev(t) if len(t) > 1 else 0.0
mean = lambda i: statistics.mean(r[i] for r in rows)
print("%-38s %s | mean %9.1f min %9.1f max %9.1f sd %7.1f | p99 %8.1f | util %4.1f%% / %4.1f%% "
      "| %5.2fx the peer" % (name, " ".join("%9.1f" % x for x in t), statistics.mean(t), min(t),
                            max(t), sd, mean(1), mean(2), mean(3), statistics.mean(t) / peer))
PY
}

a2a=scenarios/ecmp-vs-adaptive.yaml
echo "all-to-all, 256 MiB over 128 GPUs (flow engine), seeds 1 to $SEEDS, time in us:"
peer "$a2a" ''
row "  sends as NCCL posts them, ECMP" "$a2a" ''
waves='s/^routing: ecmp$/&\npacket: {chunking: off}/'
peer "$a2a" "$waves"
row "  waves of 4 peers, ECMP" "$a2a" "$waves"

lab=scenarios/lab/ring-ecmp-dcqcn.yaml
cc='congestion_control: dcqcn'
echo "ring all-reduce, 64 MiB over 32 GPUs (packet engine), seeds 1 to $SEEDS, time in us:"
peer "$lab" ''
row "  flow engine (the fluid, same salts)" "$lab" '' --engine flow
row "  mlx5 defaults" "$lab" ''
row "  congestion_control: none (PFC alone)" "$lab" "s/$cc/congestion_control: none/"
row "  min_time_between_cnps: 50us" "$lab" "s/  $cc/&\n  min_time_between_cnps: 50us/"
row "  min_time_between_cnps: 20us" "$lab" "s/  $cc/&\n  min_time_between_cnps: 20us/"
row "  ecn_kmin: 4MiB, ecn_kmax: 8MiB" "$lab" "s/  $cc/&\n  ecn_kmin: 4MiB\n  ecn_kmax: 8MiB/"
row "  rpg_time_reset: 55us" "$lab" "s/  $cc/&\n  rpg_time_reset: 55us/"
row "  rpg_min_dec_fac: 0.9" "$lab" "s/  $cc/&\n  rpg_min_dec_fac: 0.9/"
row "  rpg_min_dec_fac: 0.98" "$lab" "s/  $cc/&\n  rpg_min_dec_fac: 0.98/"
row "  rpg_byte_reset: 10MiB" "$lab" "s/  $cc/&\n  rpg_byte_reset: 10MiB/"
row "  tuned as ring-ecmp-dcqcn-tuned.yaml" "$lab" \
	"s/  $cc/&\n  min_time_between_cnps: 2us\n  rpg_min_dec_fac: 0.98\n  rpg_time_reset: 20us/"
