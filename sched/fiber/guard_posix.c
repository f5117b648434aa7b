/* SPDX-License-Identifier: MIT */
/* guard_posix.c - guards elsewhere (see guard.h): PROT_NONE ranges, with
 * no known limit on the number of mappings. */
#include <sys/mman.h>

#include "sched/fiber/guard.h"

int fpar__guard_marks_available(void) {
  return 0;
}

int fpar__guard_install(void *addr, size_t len, int marks) {
  (void)marks;
  return mprotect(addr, len, PROT_NONE) == 0 ? 0 : -1;
}

size_t fpar__guard_free_mappings(void) {
  return (size_t)-1;
}
