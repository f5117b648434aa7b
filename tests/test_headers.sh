#!/bin/sh
# SPDX-License-Identifier: MIT
# test_headers.sh - every installed header compiles on its own and all of
# them together, warning-free under -Wall -Wextra -Wpedantic -Werror, as
# C11 (ISO and GNU) and as C++17, at each SIMD width <fiberpar/simd.h> can
# pick from the includer's flags: baseline x86-64 (SSE2), -mavx2 -mfma,
# -mavx512f, and one lane (-DFPAR_SIMD_FORCE_SCALAR).  A lane kernel that
# uses the vector types and math is compiled the same way, at -O1 and
# -O2.  Strict ISO C gets _POSIX_C_SOURCE, which libuv's <uv.h> needs
# (see <fiberpar/uv.h>).
# GCC's notes (not warnings) that the ABI of passing wide vectors "changed
# in GCC 4.6" are allowed: only -Wno-psabi on the command line hides them.
# The runners FPAR_KERNEL and FPAR_DEFINE_ITEMS_ROW make compile the same
# with the flags fiberpar.pc gives kernels, without them, and under
# -fopenmp; the deprecated FPAR_DEFINE_ROW warns where its runner is used.
# A phase kernel whose arguments are larger than the by-value copy
# compiles warning-free at -O2 and -O3, as C and as C++, while one that
# indexes past its local array still draws -Warray-bounds.
# Skipped (exit 77) without g++ or when the C compiler is not GCC.
src=${srcdir:-.}
cc=${CC:-cc}
cxx=${CXX:-g++}
command -v "$cxx" >/dev/null 2>&1 || { echo "SKIP: no $cxx"; exit 77; }
case $($cc --version 2>/dev/null | head -n 1) in
*clang* | "") echo "SKIP: $cc is not GCC"; exit 77 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiberpar-headers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
warn="-Wall -Wextra -Wpedantic -Werror"
headers="fiberpar.h"
for h in "$src"/include/fiberpar/*.h; do
  headers="$headers fiberpar/${h##*/}"
done

# A lane kernel using what simd.h offers, with double lanes (the widest
# vectors) and SLEEF math.
cat >"$tmp/lanes.inc" <<'EOS'
#include <fiberpar.h>
#include <fiberpar/simd.h>
typedef struct lanes_args { const float *x; double *y; } lanes_args;
FPAR_LANE_KERNEL(lanes_kernel, lk, p) {
  lanes_args *a = (lanes_args *)p;
  fpar_vf32 v = fpar_vf32_load_mask(a->x + lk->global_first, lk->mask);
  v = fpar_vf32_sin(v) + fpar_vf32_sqrt(v) + fpar_vf32_scan_add(v, lk->mask);
  fpar_vf64 d = fpar_vf64_from_vf32(v);
  d = fpar_vf64_fma(fpar_vf64_exp(d), fpar_vf64_splat(2.0), fpar_vf64_abs(d));
  fpar_vf64_store_mask(a->y + lk->global_first, d, lk->mask);
  a->y[0] += (double)fpar_sub_group_reduce_add_vf32(lk, v);
}
const fpar_kernel *lanes_get(void);
const fpar_kernel *lanes_get(void) { return &lanes_kernel; }
EOS

# A barrier-free kernel and a scoped item loop: their runners' loops are
# `omp simd` with the flags pkg-config gives kernels, `GCC ivdep` without.
cat >"$tmp/rows.inc" <<'EOS'
#include <fiberpar.h>
typedef struct rows_args { const float *x; float *y; } rows_args;
FPAR_KERNEL(rows_kernel, it, p) {
  const rows_args *a = (const rows_args *)p;
  size_t i = fpar_global_linear_id(it);
  a->y[i] = 2.0f * a->x[i];
}
static inline void rows_item(const fpar_s_item *si, void *p) {
  const rows_args *a = (const rows_args *)p;
  size_t i = fpar_s_item_get_global_linear_id(si);
  a->y[i] = a->x[i] + 1.0f;
}
FPAR_DEFINE_ITEMS_ROW(rows_item_row, rows_item)
const fpar_kernel *rows_get(fpar_s_row_fn *row);
const fpar_kernel *rows_get(fpar_s_row_fn *row) {
  *row = rows_item_row;
  return &rows_kernel;
}
EOS

# A phase kernel whose arguments, passed by pointer, are larger than the
# runner's copy of arguments by value (FPAR_MAX_ARGS_SIZE).
cat >"$tmp/phase.inc" <<'EOS'
#include <fiberpar.h>
#include <fiberpar/phase.h>
typedef struct big_args { unsigned next; unsigned at[256]; } big_args;
FPAR_PHASE_KERNEL_STATELESS(big_kernel, it, p) {
  big_args *a = (big_args *)p;
  FPAR_PHASE_BEGIN();
  a->at[fpar_local_id(it, 0)] = a->next;
  FPAR_PHASE_END();
}
const fpar_kernel *big_get(void);
const fpar_kernel *big_get(void) { return &big_kernel; }
EOS

fail=0
n=0
compile() { # compile LABEL COMPILER FLAGS... < source
  label=$1
  shift
  out=$("$@" -I"$src/include" -c -o "$tmp/t.o" 2>&1)
  status=$?
  n=$((n + 1))
  if [ $status != 0 ] || [ ! -f "$tmp/t.o" ] ||
    echo "$out" | grep -q -e 'warning:' -e 'error:'; then
    echo "FAIL: $label: $*"
    echo "$out" | head -n 8
    fail=1
  fi
  rm -f "$tmp/t.o"
}

for isa in "" "-mavx2 -mfma" "-mavx512f" "-DFPAR_SIMD_FORCE_SCALAR"; do
  for lang in c11 gnu11 c++17; do
    case $lang in
    c++17) set -- "$cxx" -x c++ -std=c++17 ;;
    c11) set -- "$cc" -x c -std=c11 -D_POSIX_C_SOURCE=200809L ;;
    *) set -- "$cc" -x c -std=$lang ;;
    esac
    all=
    for h in $headers; do
      all="$all#include <$h>
"
      printf '#include <%s>\n' "$h" >"$tmp/t.src"
      compile "<$h> alone, $lang $isa" "$@" $warn $isa -O2 "$tmp/t.src" \
        </dev/null
    done
    printf '%s' "$all" >"$tmp/t.src"
    compile "all headers, $lang $isa" "$@" $warn $isa -O2 "$tmp/t.src"
    # The lane kernel (not under C++ with AVX-512, where GCC 12's own
    # <avx512fintrin.h> warns of its _mm512_undefined values, GCC bug
    # 105593).
    case "$lang $isa" in
    "c++17 -mavx512f") ;;
    *) for opt in -O1 -O2; do
         cp "$tmp/lanes.inc" "$tmp/t.src"
         compile "lane kernel, $lang $isa $opt" "$@" $warn $isa $opt \
           "$tmp/t.src"
       done ;;
    esac
  done
done
for lang in c11 gnu11 c++17; do
  case $lang in
  c++17) set -- "$cxx" -x c++ -std=c++17 ;;
  c11) set -- "$cc" -x c -std=c11 -D_POSIX_C_SOURCE=200809L ;;
  *) set -- "$cc" -x c -std=$lang ;;
  esac
  for simd in "" "-fopenmp-simd -DFPAR_OPENMP_SIMD" "-fopenmp"; do
    cp "$tmp/rows.inc" "$tmp/t.src"
    compile "runners, $lang $simd" "$@" $warn $simd -O2 "$tmp/t.src"
  done
  for opt in -O2 -O3; do
    cp "$tmp/phase.inc" "$tmp/t.src"
    compile "phase kernel, large arguments, $lang $opt" "$@" $warn $opt \
      "$tmp/t.src"
  done
done
# A phase kernel that does index past its local array is still warned of.
cat >"$tmp/t.src" <<'EOS'
#include <fiberpar.h>
#include <fiberpar/phase.h>
typedef struct past_local { float t[64]; } past_local;
FPAR_PHASE_KERNEL_LOCAL(past_kernel, it, p, char, st, past_local, lm) {
  float *out = (float *)p;
  FPAR_PHASE_BEGIN();
  lm->t[fpar_local_id(it, 0)] = 1.0f;
  FPAR_PHASE_BARRIER();
  out[fpar_global_linear_id(it)] = lm->t[70];
  FPAR_PHASE_END();
}
const fpar_kernel *past_get(void);
const fpar_kernel *past_get(void) { return &past_kernel; }
EOS
"$cc" -x c -std=gnu11 -Wall -O2 -I"$src/include" -c -o "$tmp/t.o" \
  "$tmp/t.src" 2>&1 | grep -q "Warray-bounds" ||
  { echo "FAIL: a phase kernel's index past its array is not warned of"; fail=1; }
n=$((n + 1))
# The deprecated runner macro still compiles, and taking its runner's
# address says what replaces it.
cat >"$tmp/t.src" <<'EOS'
#include <fiberpar.h>
static inline void old_kernel(fpar_item *it, void *p) { (void)it, (void)p; }
FPAR_DEFINE_ROW(old_row, old_kernel)
fpar_row_fn old_get(void);
fpar_row_fn old_get(void) { return old_row; }
EOS
"$cc" -x c -std=gnu11 -Wall -I"$src/include" -c -o "$tmp/t.o" "$tmp/t.src" \
  2>&1 | grep -q "deprecated: use FPAR_KERNEL" ||
  { echo "FAIL: FPAR_DEFINE_ROW's runner is not marked deprecated"; fail=1; }
n=$((n + 1))
# -Wpsabi stays the includer's where the header's notes do not reach it:
# a function of the includer's that returns a 32-byte vector without AVX
# still draws GCC's note.
cat >"$tmp/t.src" <<'EOS'
#include <fiberpar/simd.h>
typedef double user_v4d __attribute__((vector_size(32)));
user_v4d user_twice(user_v4d v);
user_v4d user_twice(user_v4d v) { return v + v; }
EOS
"$cc" -x c -std=gnu11 -DFPAR_SIMD_FORCE_SCALAR -mno-avx -I"$src/include" \
  -c -o "$tmp/t.o" "$tmp/t.src" 2>&1 | grep -q 'Wpsabi' ||
  { echo "FAIL: <fiberpar/simd.h> turns -Wpsabi off for the includer"; fail=1; }

[ $fail = 0 ] && echo "PASS: $n compilations without a warning"
exit $fail
