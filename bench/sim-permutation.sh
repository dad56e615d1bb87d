#!/usr/bin/env bash
# bench/sim-permutation.sh - 8,192 hosts on a 3-tier 100 Gb/s fat-tree, each
# sending one 2 MB flow to a random-permutation peer, per-flow ECMP
# (scenarios/bench/permutation-8192.yaml). Target: <= 1 s and <= 500 MB on
# one core; the packet-level htsim needs about 100 s and 1.9 GB, and its
# median flow takes about 3x the ideal time (ECMP collisions): compare the
# "median slowdown". The same permutation with adaptive routing is the peer
# that shows the collisions are ECMP's, and the smaller runs show how the
# wall time grows with the number of flows.
source "$(dirname "$0")/sim-common.sh"
sim_case "permutation-8192 ecmp" scenarios/bench/permutation-8192.yaml
sim_case "permutation-8192 adaptive" scenarios/bench/permutation-8192.yaml --routing adaptive
tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
for nodes in 128 256 512; do
	sed "s/count: 1024/count: $nodes/" scenarios/bench/permutation-8192.yaml >"$tmpdir/p$nodes.yaml"
	sim_case "permutation-$((nodes * 8)) ecmp" "$tmpdir/p$nodes.yaml"
done
