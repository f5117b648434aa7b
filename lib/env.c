/* SPDX-License-Identifier: MIT */
/* env.c - the environment the library obeys (see env.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lib/env.h"
#include "sched/base/error.h"

/* POSIX has the program declare it (glibc's <unistd.h> does with
 * _GNU_SOURCE, the BSDs' does not). */
extern char **environ;

/* Every read of the environment: nothing in secure-execution mode, where
 * the environment is the caller's, not the program's. */
static const char *fpar__env_get(const char *name) {
  return fpar__env_secure() ? NULL : getenv(name);
}

/* hwloc reads its HWLOC_* variables with plain getenv(), also in a
 * privileged process: HWLOC_PLUGINS_PATH names a folder whose libraries
 * it loads, HWLOC_XMLFILE a file it reads (and quotes on stderr when it
 * does not parse).  In secure-execution mode they are removed when the
 * library is loaded, before it makes any topology, as the dynamic loader
 * removes LD_PRELOAD. */
__attribute__((constructor)) static void fpar__env_remove_hwloc(void) {
  size_t i = 0;

  if (!fpar__env_secure())
    return;
  while (environ != NULL && environ[i] != NULL) {
    const char *s = environ[i], *eq = strchr(s, '=');
    char *name;
    if (strncmp(s, "HWLOC_", 6) != 0 || eq == NULL ||
        (name = strndup(s, (size_t)(eq - s))) == NULL) {
      i++;
      continue;
    }
    unsetenv(name);
    free(name);
    if (environ[i] == s) /* not removed: go on rather than loop */
      i++;
  }
}

/* Parse "123", "64K", "2M", "1G" (powers of 1024, case-insensitive). */
static int fpar__parse_size(const char *s, size_t *out) {
  unsigned long long v;
  char *end;
  unsigned shift = 0;

  errno = 0;
  v = strtoull(s, &end, 10);
  if (end == s || errno != 0 || *s == '-')
    return -1;
  switch (*end) {
  case 'k':
  case 'K':
    shift = 10;
    end++;
    break;
  case 'm':
  case 'M':
    shift = 20;
    end++;
    break;
  case 'g':
  case 'G':
    shift = 30;
    end++;
    break;
  default:
    break;
  }
  if (*end == 'i' || *end == 'I') /* accept KiB-style "Ki" and "KiB" */
    end++;
  if (*end == 'b' || *end == 'B')
    end++;
  if (*end != '\0' || (shift && v > (~0ull >> shift)))
    return -1;
  *out = (size_t)(v << shift);
  return 0;
}

int fpar__env_size(const char *name, size_t min, size_t max, size_t *out) {
  const char *s = fpar__env_get(name);
  size_t v;

  if (s == NULL || *s == '\0')
    return 0;
  if (fpar__parse_size(s, &v) != 0 || v < min || v > max)
    return fpar__set_error(FPAR_EENV,
                           "%s=\"%s\": expected a size from %zu to %zu bytes "
                           "(suffixes K, M, G allowed)",
                           name, s, min, max);
  *out = v;
  return 0;
}

int fpar__env_unsigned(const char *name, unsigned min, unsigned max,
                       unsigned *out) {
  const char *s = fpar__env_get(name);
  unsigned long v;
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  v = strtoul(s, &end, 10);
  if (end == s || *end != '\0' || errno != 0 || *s == '-' || v < min || v > max)
    return fpar__set_error(FPAR_EENV,
                           "%s=\"%s\": expected an integer from %u to %u", name,
                           s, min, max);
  *out = (unsigned)v;
  return 0;
}

/* One of a few keywords (case-insensitive), each with a value; `also`
 * names what else the caller accepts (NULL: nothing). */
static int fpar__env_keyword(const char *name, const char *const *words,
                             const int *values, unsigned n, const char *also,
                             int *out) {
  const char *s = fpar__env_get(name);
  char expected[128] = "";
  size_t used = 0;
  unsigned k;

  if (s == NULL || *s == '\0')
    return 0;
  for (k = 0; k < n; k++)
    if (strcasecmp(s, words[k]) == 0) {
      *out = values[k];
      return 0;
    }
  for (k = 0; k < n && used < sizeof expected; k++)
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s",
                             k == 0                      ? ""
                             : k + 1 < n || also != NULL ? ", "
                                                         : " or ",
                             words[k]);
  return fpar__set_error(FPAR_EENV, "%s=\"%s\": expected %s%s%s", name, s,
                         expected, also != NULL ? " or " : "",
                         also != NULL ? also : "");
}

int fpar__env_pin(const char *name, fpar_pin *pin, const char **places) {
  static const char *const words[] = {"core", "pu", "numa", "none"};
  static const int values[] = {FPAR_PIN_CORE, FPAR_PIN_PU, FPAR_PIN_NUMA,
                               FPAR_PIN_NONE};
  const char *s = fpar__env_get(name);
  int v, err;

  if (s == NULL || *s == '\0')
    return 0;
  if (*s >= '0' && *s <= '9') {
    *pin = FPAR_PIN_LIST;
    *places = s;
    return 0;
  }
  err = fpar__env_keyword(name, words, values, 4,
                          "a list of OS CPU numbers such as 0,2,4-7", &v);
  if (err == 0) {
    *pin = (fpar_pin)v;
    *places = NULL;
  }
  return err;
}

int fpar__env_fpenv(const char *name, fpar_fpenv *out) {
  static const char *const words[] = {"item", "shared"};
  static const int values[] = {FPAR_FPENV_ITEM, FPAR_FPENV_SHARED};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 2, NULL, &v);

  *out = (fpar_fpenv)v;
  return err;
}

int fpar__env_display(const char *name, fpar_display *out) {
  static const char *const words[] = {"1", "0", "warn"};
  static const int values[] = {FPAR_DISPLAY_ALL, FPAR_DISPLAY_QUIET,
                               FPAR_DISPLAY_WARN};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 3, NULL, &v);

  *out = (fpar_display)v;
  return err;
}

/* Launchers' variables for the rank among the job's processes on this node
 * and their number: Open MPI, MPICH and Intel MPI (Hydra), MVAPICH2, Cray
 * PALS, Slurm (only with --ntasks-per-node). */
static const char *const fpar__local_rank_vars[][2] = {
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
    {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
};

/* A plain decimal number, else -1. */
static long fpar__env_count(const char *name) {
  const char *s = fpar__env_get(name);
  char *end;
  long v;

  if (s == NULL || *s < '0' || *s > '9')
    return -1;
  errno = 0;
  v = strtol(s, &end, 10);
  return *end != '\0' || errno != 0 || v > 1000000 ? -1 : v;
}

void fpar__env_local_rank(unsigned *rank, unsigned *ranks) {
  size_t k;

  *rank = *ranks = 0;
  for (k = 0; k < sizeof fpar__local_rank_vars / sizeof *fpar__local_rank_vars;
       k++) {
    long r = fpar__env_count(fpar__local_rank_vars[k][0]);
    long n = fpar__env_count(fpar__local_rank_vars[k][1]);
    if (r >= 0 && n > r) {
      *rank = (unsigned)r;
      *ranks = (unsigned)n;
      return;
    }
  }
}

int fpar__env_stack_guard(const char *name, int *prot) {
  static const char *const words[] = {"auto", "mprotect"};
  static const int values[] = {0, 1};

  return fpar__env_keyword(name, words, values, 2, NULL, prot);
}
int fpar__env_phase(const char *name, fpar_phase_mode *out) {
  static const char *const words[] = {
      "loops", "fibers", "debug", "loops-fused", "loops-split", "loops-scalar"};
  static const int values[] = {FPAR_PHASE_LOOPS,       FPAR_PHASE_FIBERS,
                               FPAR_PHASE_DEBUG,       FPAR_PHASE_LOOPS_FUSED,
                               FPAR_PHASE_LOOPS_SPLIT, FPAR_PHASE_LOOPS_SCALAR};
  int v = (int)*out, err = fpar__env_keyword(name, words, values, 6, NULL, &v);

  *out = (fpar_phase_mode)v;
  return err;
}

int fpar__env_schedule(const char *name, fpar__order *out) {
  static const char *const words[] = {"forward", "reverse", "shuffle"};
  static const int values[] = {FPAR__ORDER_FORWARD, FPAR__ORDER_REVERSE,
                               FPAR__ORDER_SHUFFLE};
  const char *s = fpar__env_get(name);
  int v = (int)out->kind, err;

  if (s != NULL && strncasecmp(s, "shuffle:", 8) == 0) {
    unsigned long long seed;
    char *end;
    errno = 0;
    seed = strtoull(s + 8, &end, 0);
    if (end == s + 8 || *end != '\0' || errno != 0 || s[8] == '-')
      return fpar__set_error(FPAR_EENV,
                             "%s=\"%s\": expected forward, reverse, shuffle "
                             "or shuffle:SEED with SEED a number (decimal or "
                             "0x hex) below 2^64",
                             name, s);
    out->kind = FPAR__ORDER_SHUFFLE;
    out->seed = seed;
    return 0;
  }
  err = fpar__env_keyword(name, words, values, 3, "shuffle:SEED", &v);
  if (err == 0 && (fpar__order_kind)v == FPAR__ORDER_SHUFFLE &&
      out->kind != FPAR__ORDER_SHUFFLE)
    out->seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u ^
                (uint64_t)getpid() << 32 ^ (uint64_t)clock();
  out->kind = (fpar__order_kind)v;
  return err;
}

void fpar__env_path(const char *name, const char **out) {
  const char *s = fpar__env_get(name);

  if (s != NULL && *s != '\0')
    *out = s;
}
