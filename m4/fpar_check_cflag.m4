# SPDX-License-Identifier: MIT
# FPAR_CHECK_CFLAG(VARIABLE, FLAG)
# --------------------------------
# AC_SUBST VARIABLE to FLAG when the C compiler accepts FLAG, else to
# nothing.
AC_DEFUN([FPAR_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $2])
  fpar_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS $2 -Werror"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); AC_SUBST([$1], [$2])],
    [AC_MSG_RESULT([no]); AC_SUBST([$1], [])])
  CFLAGS=$fpar_save_CFLAGS
])
