#!/bin/sh
# SPDX-License-Identifier: MIT
# test_info.sh - fiberpar-info prints every field and its measurements
# (--quick, so that CI runs it), --help, and fails clearly when no runtime
# can be created or an argument is unknown.
set -u
: "${top_builddir:=.}"
info="$top_builddir/tools/fiberpar-info"
out="${TMPDIR:-/tmp}/fpar_info_$$.out"
err="${TMPDIR:-/tmp}/fpar_info_$$.err"
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; cat "$out" "$err"; exit 1; }

"$info" --help >"$out" 2>"$err" || fail "--help exited $?"
grep -q '^Usage: fiberpar-info \[--quick\]' "$out" || fail "--help: no usage"

FIBERPAR_STACK_SIZE=128K FIBERPAR_LOCAL_MEM_SIZE=2M "$info" --quick \
  >"$out" 2>"$err" || fail "--quick exited $?"
cat "$out"
for field in '^libfiberpar  *[0-9]*\.[0-9]*\.[0-9]* (library)' \
  '^allowed CPUs  *[0-9]' \
  '^topology of the set  *[1-9][0-9]* cores*, [1-9][0-9]* hardware thread' \
  '^workers  *[1-9]' '^  worker 0  *CPUs [0-9]' \
  '^SIMD  *\(avx512f\|avx2\|sse2\|scalar\), \(16\|8\|4\|1\) lanes' \
  '^sub-group size  *[1-9]' '^fiber stack  *128 KiB$' \
  '^local memory  *2 MiB$' '^largest group  *[1-9][0-9]* work-items' \
  '^barrier  *min [0-9.]* ns, median [0-9.]* ns per work-item per barrier' \
  '^empty launch  *min [0-9.]* us, median [0-9.]* us'; do
  grep -q "$field" "$out" || fail "no line matching $field"
done

FIBERPAR_NUM_THREADS=bogus "$info" --quick >"$out" 2>"$err"
status=$?
[ "$status" -eq 1 ] || fail "a bad FIBERPAR_NUM_THREADS exited $status, not 1"
grep -q 'fiberpar-info: cannot create a runtime: FPAR_EENV: FIBERPAR_NUM_THREADS="bogus"' \
  "$err" || fail "no clear message for a runtime that cannot be created"

"$info" --bogus >"$out" 2>"$err"
status=$?
[ "$status" -eq 2 ] || fail "an unknown argument exited $status, not 2"
grep -q "unknown argument '--bogus'" "$err" || fail "no message for --bogus"
echo "fiberpar-info ok"
