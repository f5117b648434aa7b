/* SPDX-License-Identifier: MIT */
/* trace.h - FIBERPAR_TRACE: a record of every work-group and launch a
 * scheduler runs, written as a Chrome trace-event JSON file (which
 * ui.perfetto.dev and chrome://tracing open) when the scheduler is
 * destroyed, or at exit for schedulers still alive then.
 *
 * Each worker appends to its own list of fixed-size chunks, which are
 * never moved: recording takes no lock, and a record is published by a
 * release store of its chunk's count, so that the writer at exit may read
 * while workers still run.  With tracing off a worker's trace pointer is
 * NULL and the runner tests it once per group.
 */
#ifndef FPAR_SCHED_DIAG_TRACE_H
#define FPAR_SCHED_DIAG_TRACE_H

#include <stddef.h>

struct fpar__worker;
struct fpar_event;

typedef struct fpar__trace fpar__trace;
typedef struct fpar__trace_worker fpar__trace_worker;

/* Start a trace of the serial-th scheduler of the process (see
 * fpar__thread_name()) with `workers` workers and `helpers` helpers
 * (exec/help.h, recorders workers.. of fpar__trace_worker_get()), to be
 * written to `path` (serial 0) or "path.serial".  The file is created
 * now; when it cannot be, or without memory, a line on stderr says so and
 * *t is NULL (tracing never fails a runtime). */
void fpar__trace_create(fpar__trace **t, const char *path, unsigned serial,
                        unsigned workers, unsigned helpers);

/* Write the file (unless the exit handler did) and free the trace; every
 * worker must have stopped recording.  A failed write is reported once on
 * stderr.  NULL is ignored. */
void fpar__trace_destroy(fpar__trace *t);

/* The recorder of worker w, NULL when t is NULL. */
fpar__trace_worker *fpar__trace_worker_get(fpar__trace *t, unsigned w);

/* Around a work-group that the worker runs: the begin resets the group's
 * barrier count (fpar__group_run.barriers); the end records the group's
 * span, marked failed when a fault ended it. */
void fpar__trace_group_begin(struct fpar__worker *w, size_t group);
void fpar__trace_group_end(struct fpar__worker *w, int failed);

/* The worker completed launch l (its end time is set): record its span. */
void fpar__trace_launch(struct fpar__worker *w, const struct fpar_event *l);

#endif
