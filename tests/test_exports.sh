#!/bin/sh
# SPDX-License-Identifier: MIT
# test_exports.sh - the shared library exports its documented interface and
# nothing else: every exported name is declared in a public header (the
# vector-math entry points fpar_vm_NAME_T_xW as the family simd.h
# documents), no internal fpar__ name and no name of another library is
# exported, and the id and range queries are there as functions.  Skipped
# (exit 77) without a shared library or nm.
src=${srcdir:-.}
lib=${top_builddir:-.}/lib/.libs/libfiberpar.so
headers="$src/include/fiberpar.h $src/include/fiberpar/*.h"

[ -f "$lib" ] || { echo "SKIP: no $lib"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
names=$(nm -D --defined-only "$lib" | awk '{ print $3 }')
[ -n "$names" ] || { echo "FAIL: nm found no exported names"; exit 1; }

fail=0
for n in $names; do
  case $n in
  fpar__*) echo "FAIL: internal name exported: $n"; fail=1 ;;
  fpar_vm_*_f32_x* | fpar_vm_*_f64_x*)
    grep -q 'fpar_vm_NAME_T_xW' $headers ||
      { echo "FAIL: $n: the fpar_vm_ family is not documented"; fail=1; } ;;
  fpar_*)
    grep -qw -- "$n" $headers ||
      { echo "FAIL: exported but in no public header: $n"; fail=1; } ;;
  _init | _fini) ;;
  *) echo "FAIL: foreign name exported: $n"; fail=1 ;;
  esac
done
for n in fpar_global_id fpar_local_linear_id fpar_group_get_id \
  fpar_s_item_get_global_id fpar_h_item_get_physical_local_id; do
  echo "$names" | grep -qx -- "$n" ||
    { echo "FAIL: query not exported as a function: $n"; fail=1; }
done
[ $fail = 0 ] && echo "PASS: $(echo "$names" | wc -l) exported names, all documented"
exit $fail
