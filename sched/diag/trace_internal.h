/* SPDX-License-Identifier: MIT */
/* trace_internal.h - a trace's records as its two sides share them: the
 * workers append (trace_record.c), the writer reads at destroy or exit
 * (trace.c).  Only files of sched/diag/ include it. */
#ifndef FPAR_SCHED_DIAG_TRACE_INTERNAL_H
#define FPAR_SCHED_DIAG_TRACE_INTERNAL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fiberpar.h"
#include "sched/base/launch_record.h"
#include "sched/diag/trace.h"

/* Group records per chunk, and chunks per worker: at most 1M groups (40
 * MiB) a worker; later groups are counted as dropped. */
#define FPAR__TRACE_CHUNK 4096
#define FPAR__TRACE_MAX_CHUNKS 256

typedef struct fpar__trace_group_rec {
  uint64_t start_ns, end_ns;
  uint64_t seq;   /* the launch's */
  uint64_t group; /* linear group id */
  uint32_t barriers;
  uint32_t failed;
} fpar__trace_group_rec;

typedef struct fpar__trace_chunk {
  struct fpar__trace_chunk *_Atomic next;
  atomic_size_t used; /* records published */
  fpar__trace_group_rec recs[FPAR__TRACE_CHUNK];
} fpar__trace_chunk;

typedef struct fpar__trace_launch_rec {
  struct fpar__trace_launch_rec *next;
  uint64_t seq, submit_ns, start_ns, end_ns;
  size_t groups;
  fpar_nd_geometry geo;
  fpar__model model;
  int result;
  char name[FPAR__NAME_MAX];
} fpar__trace_launch_rec;

struct fpar__trace_worker {
  alignas(64) fpar__trace_chunk *_Atomic first;
  _Atomic(fpar__trace_launch_rec *) launches; /* newest first */
  atomic_size_t dropped;
  /* The worker's own. */
  fpar__trace_chunk *last;
  size_t chunks;
  uint64_t start_ns; /* of the open group */
  size_t group;
  int open;
};

struct fpar__trace {
  fpar__trace *next; /* the live traces of the process */
  FILE *file;
  char *path;
  pid_t pid;
  unsigned serial, workers;
  unsigned recorders; /* the workers', then the helpers' */
  atomic_int written;
  fpar__trace_worker *w;
};

#endif
