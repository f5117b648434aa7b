#!/bin/sh
# SPDX-License-Identifier: MIT
# test_docs.sh - the documentation stays true to the tree: the README's
# example is examples/reduce.c word for word (make check builds and runs
# that file), docs/environment.md names every FIBERPAR_* variable the
# library's sources mention, and every docs/*.md page is listed in
# Makefile.am (so that it is distributed and installed).
src=${srcdir:-.}
fail=0
tmp=$(mktemp "${TMPDIR:-/tmp}/fiberpar-docs.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT

# The first ```c block of the README.
sed -n '/^```c$/,/^```$/p' "$src/README" | sed '1d;$d' |
  awk 'NR > 1 && /^```$/ { exit } { print }' >"$tmp"
if ! cmp -s "$tmp" "$src/examples/reduce.c"; then
  echo "FAIL: the README's example differs from examples/reduce.c:"
  diff "$tmp" "$src/examples/reduce.c" | head -n 20
  fail=1
fi

# Variables: every FIBERPAR_ name in the library's sources (header guards
# end in _H and are no variables).
dirs=
for d in lib sched simd tools; do
  [ -d "$src/$d" ] && dirs="$dirs $src/$d"
done
vars=$(grep -rhoE --include='*.[ch]' 'FIBERPAR_[A-Z0-9_]+' $dirs |
  grep -v '_H$' | sort -u)
[ -n "$vars" ] || { echo "FAIL: no FIBERPAR_ variable found in$dirs"; fail=1; }
for v in $vars; do
  grep -q "$v" "$src/docs/environment.md" ||
    { echo "FAIL: docs/environment.md does not describe $v"; fail=1; }
done

# Pages: each one is named in Makefile.am.
for f in "$src"/docs/*.md; do
  page=docs/${f##*/}
  grep -q "$page" "$src/Makefile.am" ||
    { echo "FAIL: $page is not listed in Makefile.am"; fail=1; }
done
exit $fail
