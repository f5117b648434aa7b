#!/bin/sh
# SPDX-License-Identifier: MIT
# test_perf.sh - perf shows kernels through their fibers: `perf record -e
# cpu-clock -g` of the README's example (examples/reduce), then in `perf
# script`, every call chain on a fiber (one holding fpar__ctx_trampoline)
# ends at the trampoline, and at least half of them reach the kernel
# (the rest are samples in the switch and in each work-item's start and
# return, before the kernel's frame exists: docs/diagnostics.md).
# Skipped (77) without perf, where perf may not sample (a container's
# perf_event_paranoid, a perf built for another kernel) or where it
# names no function of the library.
set -eu
command -v perf >/dev/null 2>&1 || { echo "perf missing: skipped"; exit 77; }
: "${top_builddir:=.}"
dir="${TMPDIR:-/tmp}/fpar_perf_$$"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir"
if ! "$top_builddir/libtool" --mode=execute perf record -q -e cpu-clock -g \
  -o "$dir/perf.data" "$top_builddir/examples/reduce" >"$dir/record" 2>&1; then
  sed -n 1,10p "$dir/record"
  echo "perf record failed: skipped"
  exit 77
fi
perf script -i "$dir/perf.data" -F comm,ip,sym,dso >"$dir/script" 2>/dev/null
if ! grep -q 'fpar_.*libfiberpar' "$dir/script"; then
  echo "perf script named no function of libfiberpar: skipped"
  exit 77
fi
awk 'BEGIN { RS = ""; FS = "\n" }
  /fpar__ctx_trampoline/ {
    fibers++
    if ($NF !~ /fpar__ctx_trampoline/) {
      print "a chain on a fiber goes on past the trampoline:"; print; bad = 1
    }
    if (/reduce_fpar_kernel_/) kernel++
  }
  END {
    printf "%d chains on fibers, %d reach the kernel\n", fibers, kernel
    if (fibers < 20) { print "too few samples on fibers"; bad = 1 }
    else if (2 * kernel < fibers) { print "under half reach the kernel"; bad = 1 }
    exit bad
  }' "$dir/script"
