/* SPDX-License-Identifier: MIT */
/* env.h - reading FIBERPAR_* environment variables.
 *
 * Every read of the environment by the library goes through these
 * readers.  In secure-execution mode (fpar__env_secure()) they read
 * nothing: each behaves as if its variable were unset, so that the
 * program's own options and the defaults apply as with an empty
 * environment, and no caller of a privileged program decides what it
 * writes, where it runs or what it prints.  In that mode the HWLOC_*
 * variables are removed from the process's environment when the library
 * is loaded, since hwloc would obey them (it loads plugins from
 * HWLOC_PLUGINS_PATH).
 */
#ifndef FPAR_LIB_ENV_H
#define FPAR_LIB_ENV_H

#include <stddef.h>

#include "fiberpar.h"
#include "sched/base/order.h"

/* Whether the process runs in secure-execution mode: started setuid or
 * setgid, or with file capabilities.  The file that implements it is
 * chosen per system in Makefile.am (env_secure_auxv.c,
 * env_secure_issetugid.c). */
int fpar__env_secure(void);

/* Each reader leaves *out untouched when the variable is unset or empty,
 * and returns 0, or FPAR_EENV (with fpar_last_error naming the variable
 * and value) when the value is malformed or outside [min, max]. */
int fpar__env_size(const char *name, size_t min, size_t max, size_t *out);
int fpar__env_unsigned(const char *name, unsigned min, unsigned max,
                       unsigned *out);
int fpar__env_fpenv(const char *name, fpar_fpenv *out);
int fpar__env_display(const char *name, fpar_display *out);

/* A policy keyword (core, pu, numa, none; *places becomes NULL) or a place
 * list (a value starting with a digit: *pin becomes FPAR_PIN_LIST and
 * *places points at the environment's text, to be parsed by the
 * topology). */
int fpar__env_pin(const char *name, fpar_pin *pin, const char **places);

/* The launcher's local rank and number of ranks on this node, from the
 * first complete pair of launcher variables (OMPI_COMM_WORLD_LOCAL_RANK /
 * _SIZE, MPI_LOCALRANKID / MPI_LOCALNRANKS, ...); *ranks = 0 when none is
 * set.  Malformed values are skipped: they are the launcher's, not ours. */
void fpar__env_local_rank(unsigned *rank, unsigned *ranks);

/* auto (0): guards as the kernel allows; mprotect (1): PROT_NONE guards. */
int fpar__env_stack_guard(const char *name, int *prot);
int fpar__env_phase(const char *name, fpar_phase_mode *out);

/* forward, reverse, shuffle or shuffle:SEED (SEED decimal or 0x hex):
 * the order work-items and groups run in.  A shuffle without a seed takes
 * one from the clock and the process id, different in every run. */
int fpar__env_schedule(const char *name, fpar__order *out);

/* A file name: *out points at the environment's text, left untouched when
 * the variable is unset or empty. */
void fpar__env_path(const char *name, const char **out);

#endif
