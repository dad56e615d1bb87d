# tests/e2e/lib-sim-mpi.sh - sourced, from the source root, by the e2e tests
# that compare a simulation run in one process with the same run under
# mpirun, and by fail.sh: skip without mpirun, stable output, Open MPI as
# root (as CI runs), and a scratch directory $tmp removed on exit.
command -v mpirun >/dev/null || { echo "mpirun not found: skip"; exit 77; }
export FABTUNE_TEST_STABLE=1 LC_ALL=C
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
