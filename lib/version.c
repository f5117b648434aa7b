/* SPDX-License-Identifier: MIT */
/* version.c - the version of the library in use. */
#include "fiberpar.h"

unsigned fpar_version(void) {
  return FPAR_VERSION;
}

const char *fpar_version_string(void) {
  return FPAR_VERSION_STRING;
}
