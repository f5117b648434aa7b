# SPDX-License-Identifier: MIT
# FPAR_VMATH(ISA, FLAGS)
# ----------------------
# Build the vector-math library for ISA (with FLAGS) when the host is
# x86-64 and the compiler accepts FLAGS: sets the automake conditional
# FPAR_VMATH_<ISA>, defines FPAR_HAVE_VMATH_<ISA> and substitutes
# FPAR_<ISA>_CFLAGS.
AC_DEFUN([FPAR_VMATH], [
  fpar_vmath_ok=no
  AS_CASE([$host_cpu], [x86_64], [
    AC_MSG_CHECKING([whether $CC accepts $2 for the $1 vector math])
    fpar_save_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS $2"
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <immintrin.h>]], [])],
      [fpar_vmath_ok=yes])
    CFLAGS=$fpar_save_CFLAGS
    AC_MSG_RESULT([$fpar_vmath_ok])])
  AS_IF([test "$fpar_vmath_ok" = yes],
    [AC_DEFINE([FPAR_HAVE_VMATH_$1], [1], [Build the $1 vector math.])])
  AC_SUBST([FPAR_$1_CFLAGS], ["$2"])
  AM_CONDITIONAL([FPAR_VMATH_$1], [test "$fpar_vmath_ok" = yes])
])
