/* SPDX-License-Identifier: MIT */
/* env_secure_issetugid.c - secure-execution mode from issetugid() (see
 * env.h), where the kernel's auxiliary vector cannot be asked. */
#include <unistd.h>

#include "lib/env.h"

/* Set for a process that was started setuid or setgid, or changed its
 * ids since (the BSDs, macOS, illumos). */
int fpar__env_secure(void) {
  return issetugid() != 0;
}
