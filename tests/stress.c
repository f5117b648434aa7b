/* SPDX-License-Identifier: MIT */
/* stress.c - `make stress`: a soak of random valid and invalid launches,
 * kernel faults, misuse and runtime/queue/event life cycles, for a given
 * time (`make stress STRESS_SECONDS=600`, default 60).
 *
 * Every launch's result is checked against plain C, every refused call
 * and every fault against the code it must give.  Between rounds (all
 * runtimes destroyed) it reads what the process holds: resident memory,
 * mappings, open files and threads.  It reports wrong results, unexpected
 * codes, and growth of any of these after a warm-up round; it exits 1 if
 * there is any (none is the only passing figure).
 */
#include <dirent.h>
#include <fiberpar.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* ---- What the process holds ------------------------------------------------
 */

typedef struct holdings {
  size_t rss_kib, mappings, fds, threads;
} holdings;

static size_t count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  size_t n = 0;
  int c;

  if (f == NULL)
    return 0;
  while ((c = fgetc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

static size_t count_entries(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  size_t n = 0;

  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static holdings read_holdings(void) {
  holdings h = {0, 0, 0, 0};
  unsigned long pages, resident;
  FILE *f = fopen("/proc/self/statm", "r");

  if (f != NULL && fscanf(f, "%lu %lu", &pages, &resident) == 2)
    h.rss_kib = resident * (size_t)sysconf(_SC_PAGESIZE) / 1024;
  if (f != NULL)
    fclose(f);
  h.mappings = count_lines("/proc/self/maps");
  h.fds = count_entries("/proc/self/fd");
  h.threads = count_entries("/proc/self/task");
  return h;
}

/* ---- Bookkeeping ------------------------------------------------------------
 */

static unsigned long launches, refused, faults, wrong;
static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned pick(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static void fail(const char *what, int rc, int want) {
  wrong++;
  fprintf(stderr, "stress: %s: got %s, expected %s (%s)\n", what,
          fpar_err_name(rc), fpar_err_name(want), fpar_last_error());
}

static void expect(const char *what, int rc, int want) {
  if (rc != want)
    fail(what, rc, want);
}

/* ---- Kernels ---------------------------------------------------------------
 */

typedef struct reduce_args {
  const uint32_t *in;
  uint64_t *sums;
} reduce_args;

/* A tree reduction per group through group-local memory and barriers,
 * over any 1-3 dimensional shape. */
static void reduce_kernel(fpar_item *it, void *p) {
  reduce_args *a = p;
  size_t n = fpar_local_range(it, 0) * fpar_local_range(it, 1) *
             fpar_local_range(it, 2);
  size_t lid = fpar_local_linear_id(it), s;
  uint64_t *tmp = fpar_group_local_memory(it, n * sizeof *tmp, 0);

  tmp[lid] = a->in[fpar_global_linear_id(it)];
  for (s = 1; s < n; s *= 2) {
    fpar_barrier(it);
    if (lid % (2 * s) == 0 && lid + s < n)
      tmp[lid] += tmp[lid + s];
  }
  if (lid == 0)
    a->sums[fpar_group_linear_id(it)] = tmp[0];
}

/* Barrier-free: out[i] = 3 * in[i] + 1. */
static void affine_kernel(fpar_item *it, void *p) {
  reduce_args *a = p;
  size_t i = fpar_global_linear_id(it);

  a->sums[i] = 3 * (uint64_t)a->in[i] + 1;
}

static void diverge_kernel(fpar_item *it, void *p) {
  (void)p;
  if (fpar_local_linear_id(it) != 1)
    fpar_barrier(it);
}

static __attribute__((noinline)) size_t deep(volatile char *parent,
                                             size_t depth) {
  volatile char frame[2048];

  frame[0] = parent[0];
  frame[sizeof frame - 1] = (char)depth;
  return depth == 0 ? 0 : deep(frame, depth - 1) + frame[0];
}

typedef struct overflow_args {
  int barrier; /* overflow on a fiber, else in the barrier-free loop */
  size_t out;
} overflow_args;

static void overflow_kernel(fpar_item *it, void *p) {
  overflow_args *a = p;
  volatile char seed = 1;

  if (a->barrier)
    fpar_barrier(it);
  if (fpar_local_linear_id(it) == 3)
    a->out = deep(&seed, 1u << 20);
}

static void nested_wait_kernel(fpar_item *it, void *p) {
  fpar_queue *q = p;

  if (fpar_local_linear_id(it) == 0 && fpar_queue_wait(q) != FPAR_EDEADLOCK)
    __atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
}

/* ---- Actions
 * ----------------------------------------------------------------- */

/* A random shape: 1-3 dimensions, groups of up to max_group work-items
 * (odd sizes too), a few groups. */
static void random_shape(fpar_range *global, fpar_range *local,
                         size_t max_group) {
  unsigned dims = 1 + pick(3), d;
  size_t volume = 1;

  global->dims = local->dims = dims;
  for (d = 0; d < 3; d++) {
    size_t l = d < dims ? 1 + pick(d == 0 ? 64 : 6) : 1;
    if (volume * l > max_group)
      l = 1;
    volume *= l;
    local->size[d] = l;
    global->size[d] = l * (d < dims ? 1 + pick(4) : 1);
  }
}

/* Through fpar_launch(), sometimes: an offset, and a global range cut
 * short of whole groups (smaller last groups).  Returns the number of
 * groups. */
static size_t random_cut(fpar_range *global, const fpar_range *local,
                         fpar_launch_desc *d) {
  size_t groups = 1;
  unsigned k;

  fpar_launch_desc_init(d);
  for (k = 0; k < global->dims; k++) {
    global->size[k] -= pick((unsigned)local->size[k]);
    d->global_offset[k] = pick(1000);
  }
  for (k = 0; k < 3; k++)
    groups *= (global->size[k] + local->size[k] - 1) / local->size[k];
  return groups;
}

static void valid_launch(fpar_runtime *rt, fpar_queue *q) {
  fpar_range global, local;
  size_t n, groups, i, g;
  uint32_t *in;
  uint64_t *out;
  reduce_args a;
  fpar_event *ev;
  fpar_launch_desc d;
  int barrier = pick(2), cut = pick(3) == 0, rc;

  random_shape(&global, &local, fpar_runtime_max_group_size(rt));
  if (pick(8) == 0) { /* a big group */
    global = fpar_range1(4096 * (1 + pick(2)));
    local = fpar_range1(pick(2) ? 4096 : 1024);
  }
  groups = cut ? random_cut(&global, &local, &d) : 0;
  n = global.size[0] * global.size[1] * global.size[2];
  if (!cut)
    groups = n / (local.size[0] * local.size[1] * local.size[2]);
  in = malloc(n * sizeof *in);
  out = calloc(n, sizeof *out);
  for (i = 0; i < n; i++)
    in[i] = (uint32_t)pick(1000);
  a.in = in;
  a.sums = out;
  if (cut) {
    d.kernel = barrier ? reduce_kernel : affine_kernel;
    d.args = &a;
    d.global = global;
    d.local = local;
    rc = fpar_launch(q, &d, &ev);
  } else {
    rc = fpar_parallel_for(q, global, local,
                           barrier ? reduce_kernel : affine_kernel, &a, &ev);
  }
  launches++;
  if (rc != 0) {
    fail("valid launch refused", rc, 0);
  } else {
    expect("valid launch", fpar_event_wait(ev), 0);
    fpar_event_release(ev);
    if (barrier) {
      size_t per = local.size[0];
      /* Groups are contiguous in linear order only in 1-D; compare the
       * total, and each group in 1-D. */
      uint64_t total = 0, want = 0;
      for (g = 0; g < groups; g++)
        total += out[g];
      for (i = 0; i < n; i++)
        want += in[i];
      if (total != want) {
        wrong++;
        fprintf(stderr, "stress: reduction total %llu, expected %llu\n",
                (unsigned long long)total, (unsigned long long)want);
      }
      for (g = 0; global.dims == 1 && g < groups; g++) {
        uint64_t s = 0;
        for (i = g * per; i < n && i < (g + 1) * per; i++)
          s += in[i];
        if (s != out[g]) {
          wrong++;
          fprintf(stderr, "stress: group %zu sum wrong\n", g);
          break;
        }
      }
    } else {
      for (i = 0; i < n; i++)
        if (out[i] != 3 * (uint64_t)in[i] + 1) {
          wrong++;
          fprintf(stderr, "stress: affine item %zu wrong\n", i);
          break;
        }
    }
  }
  free(in);
  free(out);
}

static void invalid_launch(fpar_queue *q) {
  fpar_local_buffer_desc b = {SIZE_MAX - 62, 0, 64};
  fpar_launch_desc d;
  fpar_event *ev = NULL;

  fpar_launch_desc_init(&d);
  d.kernel = affine_kernel;
  d.global = fpar_range1(100);
  switch (pick(5)) {
  case 0:
    d.local = fpar_range1(64);
    d.flags = FPAR_LAUNCH_UNIFORM;
    expect("non-divisible", fpar_launch(q, &d, &ev), FPAR_ENONDIV);
    break;
  case 1:
    d.global = fpar_range2(0, 4);
    expect("empty", fpar_launch(q, &d, &ev), FPAR_EEMPTY);
    break;
  case 2:
    d.kernel = NULL;
    expect("null kernel", fpar_launch(q, &d, &ev), FPAR_ENULLKERNEL);
    break;
  case 3:
    d.local = fpar_range1(4);
    d.local_buffers = &b;
    d.num_local_buffers = 1;
    expect("wrapping buffer", fpar_launch(q, &d, &ev), FPAR_ELOCALMEM);
    break;
  default:
    d.global.dims = 4;
    expect("dims", fpar_launch(q, &d, &ev), FPAR_EDIM);
    break;
  }
  if (ev != NULL) {
    wrong++;
    fprintf(stderr, "stress: a refused launch returned an event\n");
  }
  refused++;
}

static void faulting_launch(fpar_queue *q) {
  overflow_args ov = {pick(2), 0};
  fpar_event *ev;
  int kind = pick(3), want;

  if (kind == 0) {
    expect("diverge launch",
           fpar_parallel_for(q, fpar_range1(64), fpar_range1(16),
                             diverge_kernel, NULL, &ev),
           0);
    want = FPAR_EDIVERGENCE;
  } else if (kind == 1) {
    expect("overflow launch",
           fpar_parallel_for(q, fpar_range1(32), fpar_range1(8),
                             overflow_kernel, &ov, &ev),
           0);
    want = FPAR_ESTACKOVERFLOW;
  } else {
    expect("nested launch",
           fpar_parallel_for(q, fpar_range1(8), fpar_range1(8),
                             nested_wait_kernel, q, &ev),
           0);
    want = 0;
  }
  expect("fault", fpar_event_wait(ev), want);
  if (want != 0 && fpar_event_error(ev) == NULL) {
    wrong++;
    fprintf(stderr, "stress: a failed launch has no message\n");
  }
  fpar_event_release(ev);
  faults++;
}

/* One runtime's life: random options, some queues, launches of every
 * kind, events kept past their queue and runtime. */
static void runtime_life(unsigned rounds) {
  fpar_runtime_opts o;
  fpar_runtime *rt;
  fpar_queue *q[2];
  fpar_event *kept = NULL;
  reduce_args a;
  uint32_t in[64];
  uint64_t out[64];
  unsigned r;

  fpar_runtime_opts_init(&o);
  o.num_threads = 1 + pick(6);
  o.stack_size = (size_t)(16 + 16 * pick(8)) * 1024;
  o.max_stacks = pick(3) == 0 ? 3 + pick(64) : 0;
  o.fpenv = pick(2) ? FPAR_FPENV_SHARED : FPAR_FPENV_ITEM;
  if (fpar_runtime_create(&rt, &o) != 0) {
    fail("runtime create", -1, 0);
    return;
  }
  expect("queue 0", fpar_queue_create(rt, 0, &q[0]), 0);
  expect("queue 1", fpar_queue_create(rt, 0, &q[1]), 0);
  for (r = 0; r < rounds; r++) {
    fpar_queue *qq = q[pick(2)];
    switch (pick(6)) {
    case 0:
    case 1:
    case 2:
      valid_launch(rt, qq);
      break;
    case 3:
      invalid_launch(qq);
      break;
    default:
      faulting_launch(qq);
      break;
    }
  }
  memset(in, 1, sizeof in);
  a.in = in;
  a.sums = out;
  expect("kept launch",
         fpar_parallel_for(q[0], fpar_range1(64), fpar_range1(64),
                           affine_kernel, &a, &kept),
         0);
  expect("queue destroy", fpar_queue_destroy(q[0]), 0);
  expect("queue destroy", fpar_queue_destroy(q[1]), 0);
  expect("runtime destroy", fpar_runtime_destroy(rt), 0);
  expect("event after runtime", fpar_event_wait(kept), 0);
  fpar_event_release(kept);
}

static double now_s(void) {
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 60, start = now_s();
  holdings base, h;
  unsigned long cycles = 0;
  int leaks = 0;

  if (getenv("STRESS_SECONDS") != NULL)
    seconds = atof(getenv("STRESS_SECONDS"));
  /* Warm-up: what the C library keeps after threads (cached stacks,
   * malloc arenas) is there from the first cycles on. */
  runtime_life(40);
  runtime_life(40);
  base = read_holdings();
  while (now_s() - start < seconds) {
    runtime_life(20 + pick(40));
    cycles++;
  }
  h = read_holdings();
  if (h.fds > base.fds || h.threads > base.threads)
    leaks = 1;
  /* A sanitizer's runtime maps shadow and quarantine memory as it goes:
   * there, memory and mappings say nothing (LeakSanitizer checks the heap
   * at exit instead). */
  if (!SANITIZED &&
      (h.mappings > base.mappings + 16 || h.rss_kib > base.rss_kib + 32 * 1024))
    leaks = 1;
  printf("stress: %.0f s, %lu runtimes, %lu launches, %lu refused, "
         "%lu faults\n",
         now_s() - start, cycles, launches, refused, faults);
  printf("stress: after warm-up / at the end: RSS %zu / %zu KiB, mappings "
         "%zu / %zu, fds %zu / %zu, threads %zu / %zu\n",
         base.rss_kib, h.rss_kib, base.mappings, h.mappings, base.fds, h.fds,
         base.threads, h.threads);
  printf("stress: %lu wrong results or codes, %s\n", wrong,
         leaks ? "LEAKS" : "no leaks");
  return wrong != 0 || leaks ? 1 : 0;
}
