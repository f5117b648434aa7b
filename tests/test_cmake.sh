#!/bin/sh
# SPDX-License-Identifier: MIT
# test_cmake.sh - CMake projects find an installed libfiberpar: the
# consumer project in tests/cmake (a C11 and a C++17 program, built with
# -Wall -Wextra -Wpedantic -Werror, each launching kernels and checking
# their results) is configured with find_package(fiberpar CONFIG REQUIRED)
# against an installation, built and run; fiberparConfigVersion.cmake
# must accept and refuse requested versions by the compatibility rule of
# <fiberpar.h>; and the installed configuration must name no directory of
# the prefix it was configured for (it finds its tree from its own place).
#
# Under `make check` it installs the build into a temporary DESTDIR (a
# relocated tree); `make installcheck` runs it on the real installation
# with FPAR_CMAKE_PREFIX=the prefix.  Skipped (exit 77) without cmake or a
# C++ compiler.  The consumer links with FPAR_CONSUMER_LDFLAGS (make check
# passes the build's LDFLAGS: a library built with a sanitizer needs its
# runtime in the program).
src=${srcdir:-.}
top=${top_builddir:-.}

command -v cmake >/dev/null 2>&1 || { echo "SKIP: no cmake"; exit 77; }
command -v "${CXX:-c++}" >/dev/null 2>&1 ||
  { echo "SKIP: no C++ compiler ${CXX:-c++}"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiberpar-cmake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

if [ -n "$FPAR_CMAKE_PREFIX" ]; then
  root=$FPAR_CMAKE_PREFIX
  configured_prefix=
else
  # A make inside make check must not use the caller's jobserver.
  env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s -C "$top" \
    install DESTDIR="$tmp/dest" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "make install DESTDIR=$tmp/dest"; }
  configured_prefix=$(sed -n 's/^prefix=//p' "$top/fiberpar.pc")
  root=$tmp/dest$configured_prefix
fi
config=$(find "$root" -path '*/cmake/fiberpar/fiberparConfig.cmake' | head -n 1)
[ -n "$config" ] || fail "no fiberparConfig.cmake under $root"
dir=$(dirname "$config")
[ -f "$dir/fiberparConfigVersion.cmake" ] ||
  fail "no fiberparConfigVersion.cmake beside $config"
echo "using $config"

# Relocatable: no trace of the configured prefix (unless a directory lies
# outside it).
if [ -n "$configured_prefix" ] && grep -q "_fiberpar_prefix}/lib" "$config" &&
  grep -F -q "\"$configured_prefix/" "$config"; then
  fail "$config names the configured prefix $configured_prefix"
fi

# The version rule, straight from the version file.
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
  "$dir/fiberparConfigVersion.cmake")
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
serves() { # serves REQUEST: prints TRUE or FALSE
  cat >"$tmp/version.cmake" <<EOS
set(PACKAGE_FIND_VERSION "$1")
include("$dir/fiberparConfigVersion.cmake")
message("\${PACKAGE_VERSION_COMPATIBLE}")
EOS
  cmake -P "$tmp/version.cmake" 2>&1
}
expect() { # expect REQUEST TRUE|FALSE
  got=$(serves "$1")
  [ "$got" = "$2" ] ||
    fail "fiberpar $version: request $1 gives '$got', expected $2"
}
expect "$version" TRUE
expect "$major.$minor" TRUE
expect "$major" "$([ "$major" -gt 0 ] || [ "$minor" = 0 ] && echo TRUE || echo FALSE)"
expect "$major.$((minor + 1))" FALSE
expect "$((major + 1)).0" FALSE
if [ "$minor" -gt 0 ]; then
  # An older minor release: served from 1.0 on, not before.
  expect "$major.$((minor - 1))" "$([ "$major" -gt 0 ] && echo TRUE || echo FALSE)"
fi
[ "$major" -gt 0 ] && expect "$((major - 1)).0" FALSE

# The consumer project against the installation.
case $dir in
"$root"/lib*/cmake/fiberpar) find="-DCMAKE_PREFIX_PATH=$root" ;;
*) find="-Dfiberpar_DIR=$dir" ;;
esac
cmake -S "$src/tests/cmake" -B "$tmp/build" "$find" \
  -DFIBERPAR_REQUEST="$major.$minor" \
  -DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_CXX_COMPILER="${CXX:-c++}" \
  -DCMAKE_EXE_LINKER_FLAGS="${FPAR_CONSUMER_LDFLAGS-}" \
  >"$tmp/configure.log" 2>&1 ||
  { cat "$tmp/configure.log"; fail "cmake could not configure the consumer"; }
cmake --build "$tmp/build" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log"; fail "the consumer did not build"; }
"$tmp/build/consumer_c" || fail "consumer_c"
"$tmp/build/consumer_cxx" || fail "consumer_cxx"
echo "PASS: find_package(fiberpar $major.$minor CONFIG) from C and C++"
