#!/bin/sh
# SPDX-License-Identifier: MIT
# test_layout.sh - the include rule of the source (docs/layout.md), read
# from the #include lines of lib/, sched/, simd/ and tools/:
#   - sched/ is rooms, in this order: base machine fiber group diag exec.
#     A room's files include its own headers and those of the rooms
#     before it, never of a room after it; every file is in a room.
#   - A header named *_internal.h is included by its own room only.
#   - simd/ includes simd/ and sched/base/; lib/ includes lib/, simd/ and
#     any room; tools/ includes public headers only (<fiberpar.h>).
#   - Project headers are named from the top ("sched/group/worker.h");
#     "fiberpar.h", "fiberpar/..." (include/) and "config.h" are open to
#     all.
#   - Dependencies stay behind their one door: <hwloc.h> in
#     sched/machine/, <uv.h> in sched/base/sync.h, <sleef.h> in simd/.
# Each break is printed as FILE:LINE: what it includes and why not.  The
# checker is first run on a small tree with a known break of each kind,
# which it must find.
src=${srcdir:-.}
rooms="base machine fiber group diag exec"

# check_tree DIR: print each break under DIR, exit 1 if any.
check_tree() {
  (cd "$1" && find lib sched simd tools -type f \( -name '*.[ch]' \
    -o -name '*.S' \) 2>/dev/null | LC_ALL=C sort |
    xargs awk -v rooms="$rooms" '
    BEGIN {
      n = split(rooms, r, " ")
      for (i = 1; i <= n; i++) rank[r[i]] = i
      bad = 0
    }
    function fail(why) {
      printf "FAIL: %s:%d: includes %s: %s\n", FILENAME, FNR, inc, why
      bad = 1
    }
    # The area of a path: lib, simd, tools, sched/ROOM, or "sched/?".
    function area(p, parts) {
      split(p, parts, "/")
      if (parts[1] != "sched") return parts[1]
      return (parts[2] in rank) && parts[3] != "" ? "sched/" parts[2] \
                                                  : "sched/?"
    }
    function allowed_rooms(a,   i, s) {
      s = ""
      for (i = 1; i <= rank[substr(a, 7)]; i++) s = s (s ? ", " : "") r[i]
      return s
    }
    FNR == 1 {
      me = area(FILENAME)
      if (me == "sched/?") {
        printf "FAIL: %s: not in a room of sched/ (%s)\n", FILENAME, rooms
        bad = 1
      }
    }
    me != "sched/?" && /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
      line = $0
      sub(/^[ \t]*#[ \t]*include[ \t]*/, "", line)
      q = substr(line, 1, 1)
      inc = substr(line, 2)
      if (q == "<")
        sub(/>.*/, "", inc)
      else
        sub(/".*/, "", inc)
      if (q == "<") {
        if (inc == "hwloc.h" && me != "sched/machine")
          fail("hwloc is the machine room'"'"'s (sched/machine/)")
        else if (inc == "uv.h" && FILENAME != "sched/base/sync.h")
          fail("libuv comes in through sched/base/sync.h")
        else if (inc == "sleef.h" && me != "simd")
          fail("SLEEF is the vector math'"'"'s (simd/)")
        next
      }
      if (inc == "fiberpar.h" || inc ~ /^fiberpar\// || inc == "config.h")
        next
      them = area(inc)
      if (me == "tools") {
        fail("a program uses the public headers only (<fiberpar.h>)")
        next
      }
      if (them == "sched/?" || (them != "lib" && them != "simd" &&
                                them !~ /^sched\//)) {
        fail("not a header of a room or folder; name it from the top, " \
             "as \"sched/ROOM/x.h\", \"lib/x.h\" or \"simd/x.h\"")
        next
      }
      if (inc ~ /_internal\.h$/ && them != me) {
        fail("a *_internal.h header is its own room'"'"'s (" them ")")
        next
      }
      if (me == "lib") next
      if (them == "lib") {
        fail("lib/ is the API layer, above everything else")
        next
      }
      if (me == "simd") {
        if (them != "simd" && them != "sched/base")
          fail("simd/ includes simd/ and sched/base/ only")
        next
      }
      if (them == "simd") {
        fail("the engine does not include the vector math (simd/)")
        next
      }
      if (rank[substr(them, 7)] > rank[substr(me, 7)])
        fail("room " substr(them, 7) " comes after " substr(me, 7) \
             "; " substr(me, 7) " may include " allowed_rooms(me))
    }
    END { exit bad }')
}

# The checker finds each kind of break in a tree made to have them.
tmp=${TMPDIR:-/tmp}/fpar_layout_$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sched/base" "$tmp/sched/machine" "$tmp/sched/exec" \
  "$tmp/lib" "$tmp/simd" "$tmp/tools"
printf '#include "sched/exec/sched.h"\n' >"$tmp/sched/machine/topo.h"
printf '#include "sched/machine/topo_internal.h"\n#include <hwloc.h>\n' \
  >"$tmp/sched/exec/sched.c"
printf '#include "topo.h"\n#include "lib/internal.h"\n' \
  >"$tmp/sched/base/error.c"
printf '#include "sched/group/worker.h"\n' >"$tmp/simd/dispatch.c"
printf '#include "lib/internal.h"\n' >"$tmp/tools/info.c"
printf '#include "sched/base/error.h"\n' >"$tmp/sched/stray.c"
printf '#include "sched/exec/sched.h"\n#include "fiberpar.h"\n' \
  >"$tmp/lib/runtime.c"
if out=$(check_tree "$tmp"); then
  echo "FAIL: the checker passed a tree with breaks"
  exit 1
fi
for want in 'sched/machine/topo.h:1: includes sched/exec/sched.h: room exec' \
  'sched/exec/sched.c:1: includes sched/machine/topo_internal.h' \
  'sched/exec/sched.c:2: includes hwloc.h' \
  'sched/base/error.c:1: includes topo.h: not a header' \
  'sched/base/error.c:2: includes lib/internal.h' \
  'simd/dispatch.c:1: includes sched/group/worker.h' \
  'tools/info.c:1: includes lib/internal.h' \
  'sched/stray.c: not in a room'; do
  case $out in
  *"$want"*) ;;
  *)
    echo "FAIL: the checker missed: $want"
    echo "$out"
    exit 1
    ;;
  esac
done
case $out in
*lib/runtime.c*)
  echo "FAIL: the checker refused a good include"
  echo "$out"
  exit 1
  ;;
esac

# The source itself.
check_tree "$src" || exit 1
echo "PASS: the includes of lib/, sched/, simd/ and tools/ keep the rule"
