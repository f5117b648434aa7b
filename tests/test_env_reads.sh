#!/bin/sh
# SPDX-License-Identifier: MIT
# test_env_reads.sh - the library reads its environment in one place,
# lib/env.c, whose readers read nothing in secure-execution mode: no other
# source of the library (sched/ in all its rooms) or of its installed
# program (tools/) calls getenv() or a relative of it, or walks environ.
# (Comments may name getenv(); calls have an argument.)
src=${srcdir:-.}
hits=$(grep -rnE '[A-Za-z_]*getenv[[:space:]]*\([^)]|\benviron\b' \
  "$src/lib" "$src/sched" "$src/simd" "$src/include" "$src/tools" \
  --include='*.[chS]' | grep -v "^$src/lib/env\.c:")
if [ -n "$hits" ]; then
  echo "FAIL: the environment read outside lib/env.c:"
  echo "$hits"
  exit 1
fi
grep -q 'fpar__env_secure() ? NULL : getenv(name)' "$src/lib/env.c" ||
  { echo "FAIL: lib/env.c reads without asking fpar__env_secure()"; exit 1; }
[ "$(grep -cE 'getenv[[:space:]]*\([^)]' "$src/lib/env.c")" = 1 ] ||
  { echo "FAIL: lib/env.c calls getenv() besides fpar__env_get()"; exit 1; }
echo "ok: the environment is read in lib/env.c only, through one reader"
