#!/bin/sh
# SPDX-License-Identifier: MIT
# test_gdb.sh - gdb shows a kernel's call stack wherever it runs: stopped
# six times at fpar_barrier_at in the README's example (examples/reduce),
# each `bt` lists the kernel and ends at the library's trampoline (on a
# fiber: the kernel, fpar__fiber_main, fpar__ctx_trampoline), with no
# "Backtrace stopped" of a corrupt stack, and at least one stop is on a
# fiber.  Skipped (77) without gdb or where gdb cannot run the program
# (no ptrace, as in some containers).
set -eu
command -v gdb >/dev/null 2>&1 || { echo "gdb missing: skipped"; exit 77; }
: "${top_builddir:=.}"
dir="${TMPDIR:-/tmp}/fpar_gdb_$$"
trap 'rm -rf "$dir"' EXIT
mkdir "$dir"
cat >"$dir/cmds" <<'EOF'
set pagination off
set confirm off
set print thread-events off
break fpar_barrier_at
commands 1
bt
end
run
continue
continue
continue
continue
continue
kill
EOF
"$top_builddir/libtool" --mode=execute gdb -batch -nx -x "$dir/cmds" \
  "$top_builddir/examples/reduce" >"$dir/out" 2>&1 || true
if ! grep -q "hit Breakpoint 1" "$dir/out"; then
  sed -n 1,20p "$dir/out"
  echo "gdb did not stop in the program: skipped"
  exit 77
fi
awk '
  # A backtrace starts at frame #0 and holds the lines that start with #.
  /^#0 / { finish(); inbt = 1; frames = 0; kernel = 0; fiber = 0 }
  /^#[0-9]+ / && inbt { frames++; last = $0
    if ($0 ~ / reduce_fpar_kernel_ /) kernel = 1
    if ($0 ~ / fpar__fiber_main /) fiber = 1
    next }
  { finish() }
  /Backtrace stopped|corrupt stack/ { print "gdb: " $0; bad = 1 }
  function finish() {
    if (!inbt) return
    inbt = 0; stops++
    if (!kernel) { print "a backtrace without the kernel"; bad = 1 }
    if (last !~ / fpar__ctx_trampoline /) {
      print "a backtrace that does not end at the trampoline: " last; bad = 1
    }
    if (fiber) fibers++
  }
  END {
    finish()
    if (stops != 6) { print "gdb stopped " stops " times, not 6"; bad = 1 }
    if (fibers == 0) { print "no stop on a fiber"; bad = 1 }
    exit bad
  }' "$dir/out" || { cat "$dir/out"; exit 1; }
echo "ok: six backtraces end at the trampoline, some on fibers"
