/* SPDX-License-Identifier: MIT */
/* bench_subgroups.h - the benchmark's subgroups section
 * (bench_subgroups.c). */
#ifndef FPAR_BENCH_SUBGROUPS_H
#define FPAR_BENCH_SUBGROUPS_H

/* Sub-group reduce and group copies beside their hand-written forms. */
void bench_subgroups(void);

#endif
