#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_mpi.sh - weak scaling of the distributed heat example (make
# bench-mpi): 1 and 2 ranks with one bound core each and the same cells per
# rank, the libfiberpar sweep (heat_mpi, one worker per rank) against the
# same stencil in MPI + OpenMP (heat_mpi_omp, OMP_NUM_THREADS=1), runs
# interleaved.  Prints min and median times, the weak-scaling efficiency
# T(1 rank) / T(2 ranks) of each, and the ratio MPI+OpenMP / libfiberpar.
#
#   bench_mpi.sh DIR [nx rows iterations [runs]]
#
# DIR holds heat_mpi and heat_mpi_omp; MPIRUN names the launcher.
set -eu

dir=$1
nx=${2:-4096}
rows=${3:-1024}
iterations=${4:-100}
runs=${5:-7}
. "$(dirname "$0")/mpi_launch.sh"
OMP_NUM_THREADS=1
OMP_PROC_BIND=true
export OMP_NUM_THREADS OMP_PROC_BIND

# seconds PROGRAM NP: one run's time (the slowest rank's loop).
seconds() {
  mpi_launch "$2" core "$dir/$1" "$nx" "$rows" "$iterations" |
    sed -n 's/.*iterations: \([0-9.]*\) s,.*/\1/p'
}

# stats FILE: "min median" of the numbers in FILE.
stats() {
  sort -g "$1" | awk '{ t[NR] = $1 }
    END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
          printf "%s %s\n", t[1], m }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bench-mpi: heat, $nx x $rows cells per rank, $iterations iterations," \
  "$runs runs each, one bound core per rank"
run=0
while [ $run -lt "$runs" ]; do
  for np in 1 2; do
    seconds heat_mpi $np >>"$tmp/fiberpar.$np"
    seconds heat_mpi_omp $np >>"$tmp/omp.$np"
  done
  run=$((run + 1))
done

for impl in fiberpar omp; do
  for np in 1 2; do
    set -- $(stats "$tmp/$impl.$np")
    eval "${impl}_min_$np=$1 ${impl}_med_$np=$2"
    printf "RESULT heat %-8s %d rank(s)  min %8.4f s  median %8.4f s\n" \
      "$impl" "$np" "$1" "$2"
  done
done
awk -v fm1="$fiberpar_min_1" -v fm2="$fiberpar_min_2" \
  -v fd1="$fiberpar_med_1" -v fd2="$fiberpar_med_2" \
  -v om1="$omp_min_1" -v om2="$omp_min_2" \
  -v od1="$omp_med_1" -v od2="$omp_med_2" 'BEGIN {
  printf "EFFICIENCY fiberpar  T1/T2  min %.3f  median %.3f  (target >= 0.90)\n",
    fm1 / fm2, fd1 / fd2
  printf "EFFICIENCY mpi+omp   T1/T2  min %.3f  median %.3f\n", om1 / om2,
    od1 / od2
  printf "RATIO  1 rank   mpi+omp/fiberpar  min %.3f  median %.3f  (target >= 1.00)\n",
    om1 / fm1, od1 / fd1
  printf "RATIO  2 ranks  mpi+omp/fiberpar  min %.3f  median %.3f  (target >= 1.00)\n",
    om2 / fm2, od2 / fd2
}'
