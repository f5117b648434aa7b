# SPDX-License-Identifier: MIT
# FPAR_CHECK_OPENCL
# -----------------
# OpenCL for the PoCL columns of the benchmark and of the real-kernel
# suite, both through examples/benchmark/opencl.c:
# --with-opencl=auto (the default) uses it when found, yes requires it, no
# leaves it out.  Takes OPENCL_CFLAGS / OPENCL_LIBS when the user sets
# them, else pkg-config's OpenCL module (ocl-icd), else -lOpenCL; then
# checks that a program calling the ICD loader links.  Sets OPENCL_CFLAGS,
# OPENCL_LIBS (empty without OpenCL) and the automake conditional
# FPAR_HAVE_OPENCL; without OpenCL the benchmark and the suite print `-`
# and the reason in PoCL's columns, and configure says how to get it.
AC_DEFUN([FPAR_CHECK_OPENCL], [
  AC_ARG_VAR([OPENCL_CFLAGS], [C compiler flags for OpenCL])
  AC_ARG_VAR([OPENCL_LIBS], [linker flags for OpenCL])
  AC_ARG_WITH([opencl],
    [AS_HELP_STRING([--with-opencl=auto|yes|no],
      [measure PoCL through OpenCL in the benchmark and the real-kernel
       suite @<:@default=auto@:>@])],
    [], [with_opencl=auto])
  AS_CASE([$with_opencl], [auto|yes|no], [],
    [AC_MSG_ERROR([--with-opencl=$with_opencl: say auto, yes or no])])
  fpar_have_opencl=no
  AS_IF([test "x$with_opencl" != xno], [
    AS_IF([test -z "$OPENCL_CFLAGS$OPENCL_LIBS"],
      [PKG_CHECK_MODULES([OPENCL], [OpenCL], [],
        [OPENCL_CFLAGS=; OPENCL_LIBS=-lOpenCL])])
    AC_MSG_CHECKING([whether an OpenCL program links])
    fpar_save_CFLAGS=$CFLAGS
    fpar_save_LIBS=$LIBS
    CFLAGS="$CFLAGS $OPENCL_CFLAGS"
    LIBS="$OPENCL_LIBS $LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>]], [[cl_uint n; return clGetPlatformIDs(0, 0, &n) != 0;]])],
      [fpar_have_opencl=yes])
    CFLAGS=$fpar_save_CFLAGS
    LIBS=$fpar_save_LIBS
    AC_MSG_RESULT([$fpar_have_opencl])])
  AS_IF([test "$fpar_have_opencl" = no && test "x$with_opencl" = xyes],
    [AC_MSG_ERROR([--with-opencl=yes but no OpenCL links.  On Debian or
    Ubuntu install the ICD loader's headers and PoCL with:
      apt-get install -y ocl-icd-opencl-dev pocl-opencl-icd
    or point configure at one with OPENCL_CFLAGS=... OPENCL_LIBS=...])],
    [test "$fpar_have_opencl" = no && test "x$with_opencl" = xauto],
    [AC_MSG_WARN([no OpenCL: the benchmark and make bench-real print `-'
    for PoCL.  On Debian or Ubuntu install it with:
      apt-get install -y ocl-icd-opencl-dev pocl-opencl-icd])])
  AS_IF([test "$fpar_have_opencl" = no], [OPENCL_CFLAGS=; OPENCL_LIBS=])
  AC_SUBST([OPENCL_CFLAGS])
  AC_SUBST([OPENCL_LIBS])
  AM_CONDITIONAL([FPAR_HAVE_OPENCL], [test "$fpar_have_opencl" = yes])
])
