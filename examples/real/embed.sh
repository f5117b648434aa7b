#!/bin/sh
# SPDX-License-Identifier: MIT
# embed.sh - print cl_sources.c: the OpenCL C sources DIR/NAME.cl of the
# real-kernel suite as C strings, and real_cl_source(NAME) to find them,
# so that the suite needs no files at run time.
# usage: embed.sh DIR NAME...
set -eu
dir=$1
shift
echo '/* SPDX-License-Identifier: MIT */'
echo '/* cl_sources.c - made by embed.sh from the .cl files beside it: do not'
echo ' * edit. */'
echo '#include <string.h>'
echo '#include "real.h"'
for name in "$@"; do
  echo "static const char cl_$name[] ="
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$/\\n"/' \
    "$dir/$name.cl"
  echo '  ;'
done
echo 'const char *real_cl_source(const char *name) {'
for name in "$@"; do
  echo "  if (strcmp(name, \"$name\") == 0)"
  echo "    return cl_$name;"
done
echo '  return NULL;'
echo '}'
