#!/bin/sh
# SPDX-License-Identifier: MIT
# test_phase_warnings.sh - what the compiler says about phase kernels: a
# local initialised before FPAR_PHASE_BARRIER() and used after it draws
# GCC's "switch jumps over variable initialization" (FPAR_PHASE_BEGIN()
# turns -Wjump-misses-init on), and the same kernel with the value in its
# state compiles without a warning under -Wall -Wextra -Wshadow.  Skipped
# (exit 77) when the C compiler is not GCC.
src=${srcdir:-.}
cc=${CC:-cc}
flags="-std=gnu11 -O2 -Wall -Wextra -Wshadow -fsyntax-only -I$src/include"

case $($cc --version 2>/dev/null | head -n 1) in
*clang* | "") echo "SKIP: $cc is not GCC"; exit 77 ;;
esac

kernel() {
  cat <<EOF
#include <fiberpar.h>
typedef struct state { float kept; } state;
FPAR_PHASE_KERNEL(scale, it, args, state, st) {
  float *data = args;
  size_t i = fpar_global_id(it, 0);
  FPAR_PHASE_BEGIN();
  $1
  FPAR_PHASE_BARRIER();
  data[i] = $2;
  FPAR_PHASE_END();
}
const fpar_kernel *get(void) { return &scale; }
EOF
}

bad=$(kernel "float lost = 2 * data[i];" "lost" | $cc $flags -x c - 2>&1)
case $bad in
*"switch jumps over variable initialization"*) ;;
*) echo "FAIL: no warning for a local kept across a barrier:"; echo "$bad"
   exit 1 ;;
esac
good=$(kernel "st->kept = 2 * data[i];" "st->kept" | $cc $flags -x c - 2>&1)
if [ -n "$good" ]; then
  echo "FAIL: warnings for a correct phase kernel:"; echo "$good"
  exit 1
fi
echo "PASS: the compiler flags a local kept across FPAR_PHASE_BARRIER()"
