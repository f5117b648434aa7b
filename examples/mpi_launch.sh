# SPDX-License-Identifier: MIT
# mpi_launch.sh - sourced by the MPI test and benchmark.
#
#   mpi_launch NP BIND PROGRAM [ARGS...]
#
# runs PROGRAM as NP ranks bound with BIND (core or none) through $MPIRUN
# (mpirun or mpiexec), with what each launcher needs on a small machine:
# Open MPI refuses more ranks than cores and, as root, any run unless told
# (--oversubscribe, --allow-run-as-root, core:overload-allowed); MPICH and
# Intel MPI (Hydra) take -bind-to.
mpi_launch() {
  mpi_np=$1
  mpi_bind=$2
  shift 2
  if "$MPIRUN" --version 2>&1 | grep -q -e "Open MPI" -e "OpenRTE"; then
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    if [ "$mpi_bind" = core ]; then
      mpi_bind=core:overload-allowed
    fi
    "$MPIRUN" -np "$mpi_np" --oversubscribe --allow-run-as-root \
      --bind-to "$mpi_bind" "$@"
  else
    "$MPIRUN" -n "$mpi_np" -bind-to "$mpi_bind" "$@"
  fi
}
