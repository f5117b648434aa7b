/* SPDX-License-Identifier: MIT */
/* trace.c - FIBERPAR_TRACE (see trace.h): a trace's life and its file,
 * written as Chrome trace-event JSON from what the workers recorded
 * (trace_record.c).
 *
 * The file has one process (the runtime) with a track per worker (tid
 * 1.., named like its thread), a "launches" track (tid workers + 1,
 * sorted first), and a track per helper, the record on which a waiting
 * host thread runs groups (tid workers + 2.., "host helper k").  A launch
 * is a complete event ("ph":"X") on the launches track from its first
 * group's start to its last group's end; a work-group is one on the track
 * of the worker that ran it, named after its kernel, with its group id,
 * its launch and the barriers it passed as arguments.  Times are
 * CLOCK_MONOTONIC in microseconds (with nanosecond decimals), the clock perf
 * uses too.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/base/thread_name.h"
#include "sched/diag/trace_internal.h"

/* ---- The live traces, written at exit ----------------------------------- */

static pthread_mutex_t fpar__traces_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fpar__traces_once = PTHREAD_ONCE_INIT;
static fpar__trace *fpar__traces;

static void fpar__trace_write(fpar__trace *t);

/* A program that exits without destroying its runtime still gets its
 * trace: what the workers have published by then. */
static void fpar__trace_at_exit(void) {
  fpar__trace *t;

  pthread_mutex_lock(&fpar__traces_lock);
  for (t = fpar__traces; t != NULL; t = t->next)
    if (t->pid == getpid())
      fpar__trace_write(t);
  pthread_mutex_unlock(&fpar__traces_lock);
}

static void fpar__trace_register_exit(void) {
  atexit(fpar__trace_at_exit);
}

/* ---- Life cycle --------------------------------------------------------- */

void fpar__trace_create(fpar__trace **out, const char *path, unsigned serial,
                        unsigned workers, unsigned helpers) {
  fpar__trace *t = calloc(1, sizeof *t);
  size_t len = strlen(path) + 16;
  unsigned recorders = workers + helpers, k;
  int fd;

  *out = NULL;
  if (t == NULL || (t->path = malloc(len)) == NULL ||
      (t->w = aligned_alloc(alignof(fpar__trace_worker),
                            recorders * sizeof *t->w)) == NULL) {
    fprintf(stderr, "fiberpar: FIBERPAR_TRACE: no memory; tracing is off\n");
    if (t != NULL)
      free(t->path);
    free(t);
    return;
  }
  if (serial == 0)
    snprintf(t->path, len, "%s", path);
  else
    snprintf(t->path, len, "%s.%u", path, serial);
  /* Closed on exec, so that no program the process starts holds it;
   * created like any output file (0644 under the umask). */
  fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0 || (t->file = fdopen(fd, "w")) == NULL) {
    int err = errno;
    if (fd >= 0)
      close(fd);
    fprintf(stderr,
            "fiberpar: FIBERPAR_TRACE: cannot create \"%s\": %s; tracing is "
            "off\n",
            t->path, strerror(err));
    free(t->w);
    free(t->path);
    free(t);
    return;
  }
  memset(t->w, 0, recorders * sizeof *t->w);
  for (k = 0; k < recorders; k++) {
    atomic_init(&t->w[k].first, NULL);
    atomic_init(&t->w[k].launches, NULL);
    atomic_init(&t->w[k].dropped, 0);
  }
  t->pid = getpid();
  t->serial = serial;
  t->workers = workers;
  t->recorders = recorders;
  atomic_init(&t->written, 0);
  pthread_once(&fpar__traces_once, fpar__trace_register_exit);
  pthread_mutex_lock(&fpar__traces_lock);
  t->next = fpar__traces;
  fpar__traces = t;
  pthread_mutex_unlock(&fpar__traces_lock);
  *out = t;
}

void fpar__trace_destroy(fpar__trace *t) {
  fpar__trace **p;
  unsigned k;

  if (t == NULL)
    return;
  pthread_mutex_lock(&fpar__traces_lock);
  for (p = &fpar__traces; *p != t; p = &(*p)->next)
    ;
  *p = t->next;
  pthread_mutex_unlock(&fpar__traces_lock);
  fpar__trace_write(t);
  for (k = 0; k < t->recorders; k++) {
    fpar__trace_chunk *c = atomic_load(&t->w[k].first), *next;
    fpar__trace_launch_rec *r = atomic_load(&t->w[k].launches), *rn;
    for (; c != NULL; c = next) {
      next = atomic_load(&c->next);
      free(c);
    }
    for (; r != NULL; r = rn) {
      rn = r->next;
      free(r);
    }
  }
  free(t->w);
  free(t->path);
  free(t);
}

/* ---- Writing the JSON --------------------------------------------------- */

/* Bytes of the UTF-8 sequence at s, 0 when it is not one (a kernel name
 * may have been cut in the middle of a character). */
static size_t fpar__utf8_length(const unsigned char *s) {
  size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
             : s[0] >= 0xe0 && s[0] <= 0xef ? 3
             : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                            : 0,
         k;

  for (k = 1; k < n; k++)
    if ((s[k] & 0xc0) != 0x80)
      return 0;
  return n;
}

/* A JSON string: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 replaced by '?'. */
static void fpar__json_string(FILE *f, const char *text) {
  const unsigned char *s = (const unsigned char *)text;

  fputc('"', f);
  while (*s != '\0') {
    size_t n = *s < 0x80 ? 1 : fpar__utf8_length(s);
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if (*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else if (n == 0)
      fputc('?', f);
    else
      fwrite(s, 1, n, f);
    s += n != 0 ? n : 1;
  }
  fputc('"', f);
}

/* Nanoseconds as microseconds with three decimals. */
static void fpar__json_us(FILE *f, const char *key, uint64_t ns) {
  fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void fpar__json_range(FILE *f, const char *key, const size_t *r,
                             unsigned dims) {
  unsigned d;

  fprintf(f, ",\"%s\":[", key);
  for (d = 0; d < dims; d++)
    fprintf(f, "%s%zu", d ? "," : "", r[d]);
  fputc(']', f);
}

static const char *fpar__model_name(fpar__model m) {
  switch (m) {
  case FPAR__ND_RANGE:
    return "nd_range";
  case FPAR__SCOPED:
    return "scoped";
  case FPAR__HIERARCHICAL:
    return "hierarchical";
  default:
    return "phase";
  }
}

static int fpar__launch_rec_cmp(const void *a, const void *b) {
  uint64_t x = (*(fpar__trace_launch_rec *const *)a)->seq;
  uint64_t y = (*(fpar__trace_launch_rec *const *)b)->seq;

  return x < y ? -1 : x > y;
}

/* The published launch records of all workers, sorted by seq (NULL and
 * *n = 0 when there are none or without memory). */
static fpar__trace_launch_rec **fpar__trace_launches(fpar__trace *t,
                                                     size_t *n) {
  fpar__trace_launch_rec **all = NULL, *r;
  size_t count = 0, k;

  for (k = 0; k < t->recorders; k++)
    for (r = atomic_load_explicit(&t->w[k].launches, memory_order_acquire);
         r != NULL; r = r->next)
      count++;
  if (count != 0 && (all = malloc(count * sizeof *all)) == NULL)
    count = 0;
  *n = 0;
  for (k = 0; k < t->recorders && all != NULL; k++)
    for (r = atomic_load_explicit(&t->w[k].launches, memory_order_acquire);
         r != NULL && *n < count; r = r->next)
      all[(*n)++] = r;
  if (*n != 0)
    qsort(all, *n, sizeof *all, fpar__launch_rec_cmp);
  return all;
}

static const fpar__trace_launch_rec *
fpar__trace_find(fpar__trace_launch_rec *const *all, size_t n, uint64_t seq) {
  size_t lo = 0, hi = n;

  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (all[mid]->seq < seq)
      lo = mid + 1;
    else if (all[mid]->seq > seq)
      hi = mid;
    else
      return all[mid];
  }
  return NULL;
}

static void fpar__json_thread_name(FILE *f, long pid, unsigned tid,
                                   const char *name) {
  fprintf(f,
          ",\n{\"ph\":\"M\",\"pid\":%ld,\"tid\":%u,\"name\":\"thread_name\","
          "\"args\":{\"name\":",
          pid, tid);
  fpar__json_string(f, name);
  fputs("}}", f);
}

static void fpar__json_launch(FILE *f, long pid, unsigned tid,
                              const fpar__trace_launch_rec *r) {
  fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"launch\",\"pid\":%ld,\"tid\":%u,", pid,
          tid);
  fputs("\"name\":", f);
  fpar__json_string(f, r->name);
  fpar__json_us(f, "ts", r->start_ns);
  fpar__json_us(f, "dur", r->end_ns - r->start_ns);
  fprintf(f, ",\"args\":{\"launch\":%" PRIu64 ",\"model\":\"%s\"", r->seq,
          fpar__model_name(r->model));
  fprintf(f, ",\"groups\":%zu", r->groups);
  fpar__json_range(f, "global", r->geo.global_range, r->geo.dims);
  fpar__json_range(f, "local", r->geo.local_range, r->geo.dims);
  fpar__json_us(f, "queued_us", r->start_ns - r->submit_ns);
  fprintf(f, ",\"result\":\"%s\"}}",
          r->result == 0 ? "ok" : fpar_err_name(r->result));
}

static void fpar__json_group(FILE *f, long pid, unsigned tid,
                             const fpar__trace_group_rec *g,
                             const fpar__trace_launch_rec *l) {
  char name[32];

  fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"group\",\"pid\":%ld,\"tid\":%u,", pid,
          tid);
  fputs("\"name\":", f);
  if (l != NULL)
    fpar__json_string(f, l->name);
  else {
    snprintf(name, sizeof name, "launch %" PRIu64, g->seq);
    fpar__json_string(f, name);
  }
  fpar__json_us(f, "ts", g->start_ns);
  fpar__json_us(f, "dur", g->end_ns - g->start_ns);
  fprintf(f, ",\"args\":{\"launch\":%" PRIu64, g->seq);
  if (l != NULL && l->geo.group_range[0] != 0 && l->geo.group_range[1] != 0) {
    const size_t *r = l->geo.group_range;
    size_t id[3] = {g->group % r[0], g->group / r[0] % r[1],
                    g->group / r[0] / r[1]};
    fpar__json_range(f, "group", id, l->geo.dims);
  } else {
    fprintf(f, ",\"group_linear\":%" PRIu64, g->group);
  }
  fprintf(f, ",\"barriers\":%" PRIu32 "%s}}", g->barriers,
          g->failed ? ",\"failed\":true" : "");
}

/* Write the trace once (the exit handler or the destroyer, whichever
 * comes first) and close the file; report a failed write on stderr. */
static void fpar__trace_write(fpar__trace *t) {
  FILE *f = t->file;
  long pid = (long)t->pid;
  fpar__trace_launch_rec **launches;
  size_t n, k, dropped = 0;
  unsigned tid;
  char name[16];
  int err;

  if (atomic_exchange(&t->written, 1) != 0)
    return;
  launches = fpar__trace_launches(t, &n);
  fprintf(f,
          "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
          "{\"ph\":\"M\",\"pid\":%ld,\"tid\":0,\"name\":\"process_name\","
          "\"args\":{\"name\":\"libfiberpar runtime %u (pid %ld)\"}}",
          pid, t->serial, pid);
  fpar__json_thread_name(f, pid, t->workers + 1, "launches");
  fprintf(f,
          ",\n{\"ph\":\"M\",\"pid\":%ld,\"tid\":%u,\"name\":"
          "\"thread_sort_index\",\"args\":{\"sort_index\":-1}}",
          pid, t->workers + 1);
  for (k = 0; k < n; k++)
    fpar__json_launch(f, pid, t->workers + 1, launches[k]);
  for (k = 0; k < t->recorders; k++) {
    fpar__trace_worker *tw = &t->w[k];
    fpar__trace_chunk *c;
    tid = (unsigned)k < t->workers ? (unsigned)k + 1 : (unsigned)k + 2;
    if (k < t->workers)
      fpar__thread_name(t->serial, (unsigned)k, name, sizeof name);
    else
      snprintf(name, sizeof name, "host helper %u", (unsigned)k - t->workers);
    fpar__json_thread_name(f, pid, tid, name);
    for (c = atomic_load_explicit(&tw->first, memory_order_acquire); c != NULL;
         c = atomic_load_explicit(&c->next, memory_order_acquire)) {
      size_t used = atomic_load_explicit(&c->used, memory_order_acquire), i;
      for (i = 0; i < used; i++)
        fpar__json_group(f, pid, tid, &c->recs[i],
                         fpar__trace_find(launches, n, c->recs[i].seq));
    }
    dropped += atomic_load_explicit(&tw->dropped, memory_order_relaxed);
  }
  fprintf(f, "\n],\"otherData\":{\"library\":\"libfiberpar %s\",",
          FPAR_VERSION_STRING);
  fprintf(f, "\"dropped_records\":%zu}}\n", dropped);
  free(launches);
  err = ferror(f) ? EIO : 0;
  if (fclose(f) != 0 && err == 0)
    err = errno;
  t->file = NULL;
  if (err != 0)
    fprintf(stderr, "fiberpar: FIBERPAR_TRACE: could not write \"%s\": %s\n",
            t->path, strerror(err));
  if (dropped != 0)
    fprintf(stderr,
            "fiberpar: FIBERPAR_TRACE: %zu records dropped from \"%s\" (at "
            "most %d groups per worker are kept)\n",
            dropped, t->path, FPAR__TRACE_CHUNK * FPAR__TRACE_MAX_CHUNKS);
}
