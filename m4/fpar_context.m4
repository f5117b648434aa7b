# SPDX-License-Identifier: MIT
# FPAR_SELECT_CONTEXT
# -------------------
# Pick the context-switch implementation: the hand-written routine for the
# host ABI when there is one, the ucontext fallback otherwise or when
# --with-context=ucontext asks for it.  Sets FPAR_CONTEXT and the automake
# conditionals FPAR_CONTEXT_X86_64_SYSV and FPAR_CONTEXT_UCONTEXT.
AC_DEFUN([FPAR_SELECT_CONTEXT], [
  AC_REQUIRE([AC_CANONICAL_HOST])
  AC_ARG_WITH([context],
    [AS_HELP_STRING([--with-context=auto|asm|ucontext],
      [fiber context switch: hand-written for the host ABI (asm) or the
       portable ucontext fallback @<:@default=auto@:>@])],
    [], [with_context=auto])
  fpar_native_context=
  AS_CASE([$host_cpu-$host_os],
    [x86_64-linux*|x86_64-*bsd*], [fpar_native_context=x86_64-sysv])
  AS_CASE([$with_context],
    [auto], [FPAR_CONTEXT=${fpar_native_context:-ucontext}],
    [asm], [AS_IF([test -z "$fpar_native_context"],
              [AC_MSG_ERROR([no hand-written context switch for $host; use --with-context=ucontext])])
            FPAR_CONTEXT=$fpar_native_context],
    [ucontext], [FPAR_CONTEXT=ucontext],
    [AC_MSG_ERROR([--with-context must be auto, asm or ucontext])])
  AS_IF([test "$FPAR_CONTEXT" = ucontext],
    [AC_CHECK_HEADER([ucontext.h], [],
      [AC_MSG_ERROR([the ucontext fallback needs <ucontext.h>])])])
  AC_MSG_CHECKING([for the fiber context switch])
  AC_MSG_RESULT([$FPAR_CONTEXT])
  AC_SUBST([FPAR_CONTEXT])
  AM_CONDITIONAL([FPAR_CONTEXT_X86_64_SYSV], [test "$FPAR_CONTEXT" = x86_64-sysv])
  AM_CONDITIONAL([FPAR_CONTEXT_UCONTEXT], [test "$FPAR_CONTEXT" = ucontext])
  AM_CONDITIONAL([FPAR_HAVE_NATIVE_CONTEXT], [test -n "$fpar_native_context"])
])
