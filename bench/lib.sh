# bench/lib.sh - helpers shared by the bench scripts (sourced, not run).
# FABTUNE: path to the fabtune binary (default build/cli/fabtune).
fabtune=${FABTUNE:-build/cli/fabtune}
runs=${RUNS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# a field of fabtune's --json output: json_field NAME < file (first row)
json_field() {
	grep -o "\"$1\":[0-9.eE+-]*" | head -n 1 | cut -d: -f2
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "nan" }'
}
