/* SPDX-License-Identifier: MIT */
/* env_secure_auxv.c - secure-execution mode from the kernel's AT_SECURE
 * (see env.h). */
#include <sys/auxv.h>

#include "lib/env.h"

/* The kernel sets AT_SECURE for setuid and setgid programs, for programs
 * with file capabilities, and where a security module asks for it: the
 * same test glibc's secure_getenv() makes. */
int fpar__env_secure(void) {
  return getauxval(AT_SECURE) != 0;
}
