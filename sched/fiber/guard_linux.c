/* SPDX-License-Identifier: MIT */
/* guard_linux.c - guards on Linux (see guard.h): MADV_GUARD_INSTALL where
 * the kernel has it (6.13+), PROT_NONE ranges before that; the mapping
 * limit from /proc/sys/vm/max_map_count and the mappings in use from
 * /proc/self/maps. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sched/base/sync.h"
#include "sched/fiber/guard.h"

/* The advice's value in Linux's uapi; older headers lack the name. */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

static int fpar__guard_marks_work;
static uv_once_t fpar__guard_probe_once = UV_ONCE_INIT;

/* Try the advice once on a scratch mapping: kernels without it answer
 * EINVAL. */
static void fpar__guard_probe(void) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

  if (p == MAP_FAILED)
    return;
  fpar__guard_marks_work = madvise(p, page, MADV_GUARD_INSTALL) == 0;
  munmap(p, 2 * page);
}

int fpar__guard_marks_available(void) {
  uv_once(&fpar__guard_probe_once, fpar__guard_probe);
  return fpar__guard_marks_work;
}

int fpar__guard_install(void *addr, size_t len, int marks) {
  if (marks)
    return madvise(addr, len, MADV_GUARD_INSTALL) == 0 ? 0 : -1;
  return mprotect(addr, len, PROT_NONE) == 0 ? 0 : -1;
}

/* Lines of a /proc file: one per mapping for /proc/self/maps.  Files are
 * opened close-on-exec ("e"), so that a program the process starts at the
 * same time inherits none. */
static size_t fpar__count_lines(const char *path) {
  char buf[4096];
  size_t n = 0, i, got;
  FILE *f = fopen(path, "re");

  if (f == NULL)
    return 0;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0)
    for (i = 0; i < got; i++)
      n += buf[i] == '\n';
  fclose(f);
  return n;
}

size_t fpar__guard_free_mappings(void) {
  unsigned long limit;
  size_t used;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "re");

  if (f == NULL)
    return (size_t)-1;
  if (fscanf(f, "%lu", &limit) != 1) {
    fclose(f);
    return (size_t)-1;
  }
  fclose(f);
  used = fpar__count_lines("/proc/self/maps");
  return used < limit ? limit - used : 0;
}
