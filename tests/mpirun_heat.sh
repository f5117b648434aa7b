#!/bin/sh
# SPDX-License-Identifier: MIT
# mpirun_heat.sh - the MPI heat example under mpirun (run by make check).
#
# Two ranks bound to one core each must reproduce the serial result, and
# every rank's kernels must have run on CPUs inside its binding (the
# example checks both and exits non-zero otherwise); a grid width that the
# SIMD width does not divide exercises the masked tail.  Two unbound ranks
# must take different shares of the node (the runtime reads the
# launcher's local-rank variables).
#
# Exits 77 (skipped) when configure found no MPI or no launcher.
set -u

heat=${FPAR_HEAT_MPI:-}
if [ -z "$heat" ] || [ ! -x "$heat" ] || [ -z "${MPIRUN:-}" ]; then
  echo "SKIP: no MPI example or no mpirun (configure found no MPI)"
  exit 77
fi

# ASan builds: Open MPI's allocations outlive MPI_Finalize.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

limit=""
if command -v timeout >/dev/null 2>&1; then
  limit="timeout 120"
fi
status=0

# run NAME NP BIND ARGS...: run the example, keep its output in $out.
run() {
  name=$1
  shift
  echo "== $name: mpirun $*"
  out=$($limit sh -c '. "$1"; shift; mpi_launch "$@"' sh \
    "$srcdir/examples/mpi_launch.sh" "$@" 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ]; then
    echo "FAIL: $name exited with status $rc"
    status=1
  fi
}

# expect NAME PATTERN: $out has a line matching PATTERN.
expect() {
  if ! echo "$out" | grep -q -e "$2"; then
    echo "FAIL: $1: no line matching \"$2\""
    status=1
  fi
}

for size in "512 64 50" "509 33 20"; do
  run "bound, $size" 2 core "$heat" $size
  expect "rank 0 inside" "rank 0: .* inside the binding"
  expect "rank 1 inside" "rank 1: .* inside the binding"
  expect "serial result" "largest difference from the serial run .*: ok"
done

run "unbound" 2 none "$heat" 256 16 10
shares=$(echo "$out" | sed -n 's/.*rank [01]: .* on CPUs \([^;]*\);.*/\1/p' |
  sort -u | wc -l)
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && [ "$shares" -ne 2 ]; then
  echo "FAIL: the two unbound ranks did not take different shares"
  status=1
fi
exit $status
