# SPDX-License-Identifier: MIT
# FPAR_CHECK_MPI
# --------------
# Find MPI for the MPI example (examples/heat_mpi) and its mpirun test,
# without needing autoconf-archive: take MPI_CFLAGS / MPI_LIBS when the
# user sets them, else ask the compiler wrapper MPICC (default: mpicc on
# PATH) for its flags (Open MPI's -showme:compile / -showme:link, MPICH's
# -compile_info / -link_info), check that an MPI program links with them,
# and find the launcher MPIRUN (mpirun or mpiexec).  Sets the automake
# conditional FPAR_HAVE_MPI; without MPI, configure says what is skipped
# and how to get it.
AC_DEFUN([FPAR_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper to take MPI's flags from])
  AC_ARG_VAR([MPI_CFLAGS], [C compiler flags for MPI (overrides MPICC's)])
  AC_ARG_VAR([MPI_LIBS], [linker flags for MPI (overrides MPICC's)])
  AC_ARG_VAR([MPIRUN], [MPI launcher for the MPI test and benchmark])
  AC_ARG_WITH([mpi],
    [AS_HELP_STRING([--without-mpi],
      [do not build the MPI example, its test and benchmark])],
    [], [with_mpi=check])
  fpar_have_mpi=no
  AS_IF([test "x$with_mpi" != xno], [
    AC_PATH_PROGS([MPICC], [mpicc mpicc.openmpi mpicc.mpich])
    AS_IF([test -z "$MPI_CFLAGS$MPI_LIBS" && test -n "$MPICC"], [
      AC_MSG_CHECKING([for the MPI flags of $MPICC])
      AS_IF([fpar_mpi_c=`$MPICC -showme:compile 2>/dev/null` &&
             fpar_mpi_l=`$MPICC -showme:link 2>/dev/null`], [],
            [fpar_mpi_c=`$MPICC -compile_info 2>/dev/null` &&
             fpar_mpi_l=`$MPICC -link_info 2>/dev/null`], [
              # MPICH prints whole command lines: drop the compiler name
              # and the -c of the compile line.
              fpar_mpi_c=`echo "$fpar_mpi_c" | sed 's/^[[^ ]]* //; s/ -c / /g; s/ -c$//'`
              fpar_mpi_l=`echo "$fpar_mpi_l" | sed 's/^[[^ ]]* //'`],
            [fpar_mpi_c=; fpar_mpi_l=])
      MPI_CFLAGS=$fpar_mpi_c
      MPI_LIBS=$fpar_mpi_l
      AC_MSG_RESULT([${MPI_CFLAGS:-none} ${MPI_LIBS:-none}])])
    AS_IF([test -n "$MPI_CFLAGS$MPI_LIBS"], [
      AC_MSG_CHECKING([whether an MPI program links])
      fpar_save_CFLAGS=$CFLAGS
      fpar_save_LIBS=$LIBS
      CFLAGS="$CFLAGS $MPI_CFLAGS"
      LIBS="$MPI_LIBS $LIBS"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
          [[MPI_Init(0, 0); MPI_Finalize();]])],
        [fpar_have_mpi=yes])
      CFLAGS=$fpar_save_CFLAGS
      LIBS=$fpar_save_LIBS
      AC_MSG_RESULT([$fpar_have_mpi])])
    AC_PATH_PROGS([MPIRUN], [mpirun mpiexec])
  ])
  AS_IF([test "$fpar_have_mpi" = no],
    [AC_MSG_WARN([no MPI: examples/heat_mpi, its mpirun test and make
    bench-mpi are skipped.  On Debian or Ubuntu install MPI with:
      apt-get install -y openmpi-bin libopenmpi-dev
    or point configure at one with MPICC=... (or MPI_CFLAGS and MPI_LIBS).])],
    [test -z "$MPIRUN"],
    [AC_MSG_WARN([MPI found but no mpirun or mpiexec: the mpirun test is
    skipped (set MPIRUN=...)])])
  AC_SUBST([MPI_CFLAGS])
  AC_SUBST([MPI_LIBS])
  AM_CONDITIONAL([FPAR_HAVE_MPI], [test "$fpar_have_mpi" = yes])
])
