#!/bin/sh
# SPDX-License-Identifier: MIT
# cmake/subst.sh - fill in a CMake package configuration template (stdin to
# stdout) with the installation directories, relative to the file's own
# place where they lie under the prefix, so that the installed files stay
# valid when the tree is moved or installed with DESTDIR.
#
#   subst.sh PREFIX LIBDIR INCLUDEDIR UV_CFLAGS KERNEL_CFLAGS \
#     SIZEOF_VOID_P VERSION <template >file
prefix=$1 libdir=$2 includedir=$3 uv_cflags=$4 kernel_cflags=$5 sizeof_p=$6
version=$7

# From LIBDIR/cmake/fiberpar up to the prefix: two levels, then one per
# component of LIBDIR below the prefix.
up=../..
case $libdir in
"$prefix"/*)
  rest=${libdir#"$prefix"/}
  while [ -n "$rest" ]; do
    up=$up/..
    case $rest in */*) rest=${rest#*/} ;; *) rest= ;; esac
  done ;;
esac

# A directory under the prefix as seen from the configuration file.
from_prefix() {
  case $1 in
  "$prefix"/*) echo "\${_fiberpar_prefix}/${1#"$prefix"/}" ;;
  *) echo "$1" ;;
  esac
}

# libuv's include directories (for <fiberpar/uv.h>), as a CMake list.
uv_dirs=
for f in $uv_cflags; do
  case $f in -I*) uv_dirs="$uv_dirs${uv_dirs:+;}${f#-I}" ;; esac
done

# The compile options kernels get, as a CMake list.
kernel_options=
for f in $kernel_cflags; do
  kernel_options="$kernel_options${kernel_options:+;}$f"
done

sed -e "s|@FPAR_CMAKE_TO_PREFIX@|$up|g" \
  -e "s|@FPAR_CMAKE_LIBDIR@|$(from_prefix "$libdir")|g" \
  -e "s|@FPAR_CMAKE_INCLUDEDIR@|$(from_prefix "$includedir")|g" \
  -e "s|@FPAR_CMAKE_UV_INCLUDEDIRS@|$uv_dirs|g" \
  -e "s|@FPAR_KERNEL_CFLAGS@|$kernel_options|g" \
  -e "s|@FPAR_SIZEOF_VOID_P@|$sizeof_p|g" \
  -e "s|@PACKAGE_VERSION@|$version|g"
