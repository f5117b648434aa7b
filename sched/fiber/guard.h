/* SPDX-License-Identifier: MIT */
/* guard.h - guard ranges below fiber stacks, and the mappings they cost.
 *
 * A guard is a range of a stack mapping that faults on any access, so a
 * stack that overflows into it stops there instead of writing into its
 * neighbour.  Where the kernel can mark guards in the page tables of a
 * mapping (Linux 6.13+, MADV_GUARD_INSTALL), a guard costs no mapping of
 * its own.  Elsewhere it is a PROT_NONE range, which splits the mapping:
 * every guarded stack then costs two of the process's limited mappings
 * (vm.max_map_count on Linux, 65530 by default), and the number of stacks
 * a process can hold is bounded by that limit.
 *
 * The file that implements this interface is chosen per system in
 * Makefile.am (guard_linux.c, guard_posix.c).
 */
#ifndef FPAR_SCHED_FIBER_GUARD_H
#define FPAR_SCHED_FIBER_GUARD_H

#include <stddef.h>

/* Whether this kernel can mark guards without splitting mappings. */
int fpar__guard_marks_available(void);

/* Make [addr, addr + len) fault on access; both are page multiples inside
 * one private anonymous read-write mapping.  marks: mark it in the page
 * tables (only where fpar__guard_marks_available()), else make it
 * PROT_NONE.  Returns 0 or -1. */
int fpar__guard_install(void *addr, size_t len, int marks);

/* Mappings the process may still create (its limit minus those it has),
 * or (size_t)-1 when the system sets no known limit. */
size_t fpar__guard_free_mappings(void);

#endif
