#!/bin/sh
# SPDX-License-Identifier: MIT
# test_license.sh - every source, build, test and documentation file of
# the distribution names its licence with an SPDX-License-Identifier line
# near its top (Markdown pages in an HTML comment), and the licence text
# itself is distributed.
src=${srcdir:-.}
fail=0
[ -f "$src/LICENSE" ] || { echo "FAIL: no LICENSE"; fail=1; }
for f in "$src"/configure.ac "$src"/Makefile.am "$src"/fiberpar.pc.in \
  "$src"/Doxyfile.in \
  $(find "$src/lib" "$src/sched" "$src/simd" "$src/tools" "$src/include" \
    "$src/tests" "$src/examples" "$src/m4" "$src/cmake" -type f \
    \( -name '*.[chS]' -o -name '*.cpp' -o -name '*.sh' -o -name 'fpar_*.m4' \
    -o -name '*.cmake.in' -o -name CMakeLists.txt \) 2>/dev/null) \
  $(find "$src/docs" -type f -name '*.md' 2>/dev/null); do
  head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' ||
    { echo "FAIL: no SPDX-License-Identifier: $f"; fail=1; }
done
exit $fail
