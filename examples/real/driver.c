/* SPDX-License-Identifier: MIT */
/* driver.c - the real-kernel suite's driver: parses the command line, runs
 * each kernel's four versions on the same inputs, checks each against the
 * serial reference, times them (minimum and median of at least five runs)
 * and prints one `real` line per kernel and the geometric means. */
#include <fiberpar/simd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "examples/benchmark/bench_util.h"
#include "real.h"

static const real_kernel *const all_kernels[] = {
    &real_nw,        &real_lud,        &real_srad,
    &real_backprop,  &real_pathfinder, &real_stencil,
    &real_reduction, &real_scan,       &real_spmv};
#define NKERNELS (sizeof all_kernels / sizeof all_kernels[0])

static const char *const version_names[REAL_VERSIONS] = {"pocl", "port", "best",
                                                         "openmp"};

/* The timed runs go in rounds, one run of each version per round, so that
 * a machine whose load drifts (this one is shared) weighs on all versions
 * alike.  Each round starts one version later than the round before, so
 * that each version runs after each other one in turn: a version finds
 * the caches as the one before it left them.  Rounds stop once opts->reps are
 * done and they took TIME_BUDGET seconds, or at MAX_REPS.  Before each run the
 * driver sleeps PAUSE_US, so that the threads of the version before have
 * stopped spinning (OpenMP's, PoCL's and libfiberpar's workers spin a while
 * before they sleep). */
#define TIME_BUDGET 1.0
#define MAX_REPS 40
#define PAUSE_US 20000

/* ---- Helpers for the kernels ------------------------------------------ */

void *real_alloc(size_t n) {
  void *p = NULL;

  if (posix_memalign(&p, 4096, n ? n : 1) != 0) {
    fprintf(stderr, "real: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

int real_launch(real_env *env, const fpar_kernel *k, fpar_range global,
                fpar_range local, const void *args, size_t args_size) {
  int err = fpar_parallel_for_kernel_by_value(env->q, global, local, k, args,
                                              args_size, NULL);

  if (err != 0)
    fprintf(stderr, "real: launch of %s refused: %s\n", k->name,
            fpar_last_error());
  return err;
}

int real_parallel(real_env *env, const char *name, fpar_range groups,
                  fpar_range items, fpar_group_fn fn, void *args) {
  fpar_launch_desc d;
  int err;

  fpar_launch_desc_init(&d);
  d.name = name;
  d.scoped = fn;
  d.args = args;
  d.global = groups;
  d.local = items;
  err = fpar_launch(env->q, &d, NULL);
  if (err != 0)
    fprintf(stderr, "real: launch of %s refused: %s\n", name,
            fpar_last_error());
  return err;
}

int real_wait(real_env *env) {
  int err = fpar_queue_wait(env->q);

  if (err != 0)
    fprintf(stderr, "real: a launch failed: %s: %s\n", fpar_err_name(err),
            fpar_last_error());
  return err;
}

int real_put(real_env *env, real_version v, bench_ocl_buf *b, void *host,
             const void *src, size_t n) {
  void *p = host;

  if (v == REAL_POCL && (p = bench_ocl_map(env->ocl, b, 0, n, 1)) == NULL)
    return -1;
  memcpy(p, src, n);
  return v == REAL_POCL ? bench_ocl_unmap(env->ocl, b, p) : 0;
}

const void *real_get(real_env *env, real_version v, bench_ocl_buf *b,
                     const void *host, size_t n) {
  return v == REAL_POCL ? bench_ocl_map(env->ocl, b, 0, n, 0) : host;
}

void real_done(real_env *env, real_version v, bench_ocl_buf *b, const void *p) {
  if (v == REAL_POCL)
    bench_ocl_unmap(env->ocl, b, (void *)p);
}

static int same_i32(const int32_t *got, const int32_t *want, size_t n,
                    char *why, size_t len) {
  size_t i, wrong = 0, first = 0;

  for (i = 0; i < n; i++)
    if (got[i] != want[i] && wrong++ == 0)
      first = i;
  if (wrong != 0)
    snprintf(why, len, "%zu of %zu values differ, first [%zu] = %d, not %d",
             wrong, n, first, (int)got[first], (int)want[first]);
  return wrong == 0;
}

static int close_f32(const float *got, const float *want, size_t n, double rtol,
                     double atol, char *why, size_t len) {
  size_t i, wrong = 0, first = 0, worst = 0;
  double worst_excess = 0;

  for (i = 0; i < n; i++) {
    double d = fabs((double)got[i] - (double)want[i]);
    double ok = atol + rtol * fabs((double)want[i]);

    if (!(d <= ok)) { /* NaN fails too */
      if (wrong++ == 0)
        first = i;
      if (!(d - ok <= worst_excess))
        worst_excess = d - ok, worst = i;
    }
  }
  if (wrong != 0)
    snprintf(why, len,
             "%zu of %zu values outside |d| <= %g + %g |want|, first [%zu] = "
             "%.9g, not %.9g; worst [%zu] = %.9g, not %.9g",
             wrong, n, atol, rtol, first, (double)got[first],
             (double)want[first], worst, (double)got[worst],
             (double)want[worst]);
  return wrong == 0;
}

int real_match_i32(real_env *env, real_version v, bench_ocl_buf *b,
                   const int32_t *host, const int32_t *want, size_t n,
                   char *why, size_t len) {
  const int32_t *got = real_get(env, v, b, host, n * sizeof *got);
  int ok;

  if (got == NULL)
    return snprintf(why, len, "cannot read the result"), 0;
  ok = same_i32(got, want, n, why, len);
  real_done(env, v, b, got);
  return ok;
}

int real_match_f32(real_env *env, real_version v, bench_ocl_buf *b,
                   const float *host, const float *want, size_t n, double rtol,
                   double atol, char *why, size_t len) {
  const float *got = real_get(env, v, b, host, n * sizeof *got);
  int ok;

  if (got == NULL)
    return snprintf(why, len, "cannot read the result"), 0;
  ok = close_f32(got, want, n, rtol, atol, why, len);
  real_done(env, v, b, got);
  return ok;
}

int real_finish(real_env *env, real_version v, int err) {
  if (v == REAL_POCL)
    return err | bench_ocl_finish(env->ocl);
  if (v == REAL_PORT || v == REAL_BEST)
    return err | real_wait(env);
  return err;
}

/* ---- Command line -------------------------------------------------------- */

const char *real_usage(void) {
  static char text[4096];
  size_t n;

  if (text[0] != '\0')
    return text;
  n = (size_t)snprintf(
      text, sizeof text,
      "usage: real [--check] [--no-opencl] [--reps N] [KERNEL[=SIZE]...]\n"
      "  Runs each KERNEL (default: all) as OpenCL through PoCL, as the\n"
      "  libfiberpar port, in its best libfiberpar form and as OpenMP,\n"
      "  checks each against a serial reference and prints their times.\n"
      "  --check      run each version once at the small check size (or\n"
      "               SIZE) and only check it\n"
      "  --no-opencl  leave out the OpenCL version\n"
      "  --only LIST  run only these of pocl,port,best,openmp (for perf)\n"
      "  --reps N     at least N timed runs per version (5 to 1000; "
      "default 7)\n"
      "KERNEL and what its SIZE is (default; check size):\n");
  for (size_t k = 0; k < NKERNELS && n < sizeof text; k++)
    n += (size_t)snprintf(text + n, sizeof text - n, "  %-11s %s (%ld; %ld)\n",
                          all_kernels[k]->name, all_kernels[k]->size_help,
                          all_kernels[k]->size, all_kernels[k]->check_size);
  return text;
}

static int fail(char *err, size_t len, const char *fmt, ...) {
  va_list ap;
  size_t n;

  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  n = strlen(err);
  snprintf(err + n, len - n, "\n%s", real_usage());
  return -1;
}

/* The versions named in list, "port,best" say, as bits of *mask. */
static int parse_versions(const char *list, unsigned *mask) {
  *mask = 0;
  while (*list != '\0') {
    size_t n = strcspn(list, ","), v;

    for (v = 0; v < REAL_VERSIONS; v++)
      if (strlen(version_names[v]) == n &&
          strncmp(version_names[v], list, n) == 0)
        break;
    if (v == REAL_VERSIONS)
      return -1;
    *mask |= 1u << v;
    list += n + (list[n] == ',');
  }
  return *mask == 0 ? -1 : 0;
}

int real_parse(int argc, char **argv, real_options *opts, char *err,
               size_t len) {
  int i;

  memset(opts, 0, sizeof *opts);
  opts->opencl = 1;
  opts->versions = (1u << REAL_VERSIONS) - 1;
  opts->reps = 7;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *eq;
    char *end;
    size_t k, name_len;
    long n = 0;

    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      snprintf(err, len, "%s", real_usage());
      return 1;
    }
    if (strcmp(a, "--check") == 0) {
      opts->check = 1;
      continue;
    }
    if (strcmp(a, "--no-opencl") == 0) {
      opts->opencl = 0;
      continue;
    }
    if (strcmp(a, "--only") == 0) {
      if (i + 1 == argc)
        return fail(err, len, "real: --only needs versions");
      if (parse_versions(argv[++i], &opts->versions) != 0)
        return fail(err, len,
                    "real: --only %s: not a list of pocl, port, "
                    "best, openmp",
                    argv[i]);
      opts->opencl = (opts->versions & 1u << REAL_POCL) != 0;
      continue;
    }
    if (strcmp(a, "--reps") == 0) {
      if (i + 1 == argc)
        return fail(err, len, "real: --reps needs a number");
      n = strtol(argv[++i], &end, 10);
      if (*argv[i] == '\0' || *end != '\0' || n < 5 || n > 1000)
        return fail(err, len, "real: --reps %s: not a number from 5 to 1000",
                    argv[i]);
      opts->reps = (int)n;
      continue;
    }
    if (a[0] == '-')
      return fail(err, len, "real: unknown option %s", a);
    eq = strchr(a, '=');
    name_len = eq != NULL ? (size_t)(eq - a) : strlen(a);
    for (k = 0; k < NKERNELS; k++)
      if (strlen(all_kernels[k]->name) == name_len &&
          strncmp(all_kernels[k]->name, a, name_len) == 0)
        break;
    if (k == NKERNELS)
      return fail(err, len, "real: unknown kernel %.*s", (int)name_len, a);
    if (eq != NULL) {
      n = strtol(eq + 1, &end, 0);
      if (eq[1] == '\0' || *end != '\0' || !all_kernels[k]->size_ok(n))
        return fail(err, len, "real: %s: bad size %s (SIZE is %s)",
                    all_kernels[k]->name, eq + 1, all_kernels[k]->size_help);
    }
    if (opts->count == sizeof opts->kernels / sizeof opts->kernels[0])
      return fail(err, len, "real: too many kernels");
    opts->kernels[opts->count] = all_kernels[k];
    opts->sizes[opts->count++] = n;
  }
  if (opts->count == 0)
    for (size_t k = 0; k < NKERNELS; k++)
      opts->kernels[opts->count++] = all_kernels[k];
  return 0;
}

/* ---- Running ------------------------------------------------------------- */

/* One version of a kernel: its min and median time, and whether it ran
 * and matched the reference. */
typedef struct real_result {
  int ran, ok, runs;
  double min, median;
  char why[512];
} real_result;

/* One run of version v and, when check is set, its check. */
static int run_once(const real_kernel *k, void *s, real_version v,
                    real_env *env, int check, real_result *r) {
  if (k->prepare(s, v, env) != 0 || k->run(s, v, env) != 0) {
    snprintf(r->why, sizeof r->why, "the run failed (see above)");
    return 0;
  }
  return !check || k->check(s, v, env, r->why, sizeof r->why);
}

/* Min and median of the n times in t (sorts t) into r. */
static void summarize(double *t, int n, real_result *r) {
  bench_stat st;

  if (n == 0)
    return;
  st = bench_stats(t, n);
  r->runs = n;
  r->min = st.min;
  r->median = st.median;
}

/* Time the versions whose r[v].ran is set: a checked warm-up run of each,
 * then rounds of one timed run of each (see TIME_BUDGET), the last run
 * of each checked. */
static void time_kernel(const real_kernel *k, void *s, real_env *env, int reps,
                        real_result *r) {
  static double t[REAL_VERSIONS][MAX_REPS];
  double total = 0;
  int rounds = 0, live = 0;

  for (int v = 0; v < REAL_VERSIONS; v++)
    if (r[v].ran)
      live += r[v].ok = run_once(k, s, (real_version)v, env, 1, &r[v]);
  while (live > 0 && rounds < MAX_REPS &&
         (rounds < reps || total < TIME_BUDGET)) {
    for (int i = 0; i < REAL_VERSIONS; i++) {
      int v = (rounds + i) % REAL_VERSIONS;
      double t0;

      if (!r[v].ok)
        continue;
      usleep(PAUSE_US);
      if (k->prepare(s, (real_version)v, env) != 0) {
        snprintf(r[v].why, sizeof r[v].why, "the preparation failed");
        r[v].ok = 0, live--;
        continue;
      }
      t0 = bench_now();
      if (k->run(s, (real_version)v, env) != 0) {
        snprintf(r[v].why, sizeof r[v].why, "the run failed (see above)");
        r[v].ok = 0, live--;
        continue;
      }
      t[v][rounds] = bench_now() - t0;
      total += t[v][rounds];
    }
    rounds++;
  }
  for (int v = 0; v < REAL_VERSIONS; v++)
    if (r[v].ok) {
      r[v].ok = k->check(s, (real_version)v, env, r[v].why, sizeof r[v].why);
      summarize(t[v], rounds, &r[v]);
    }
}

/* Open the OpenCL device when asked: NULL with the reason printed. */
static bench_ocl *open_opencl(int want, int quiet) {
  bench_ocl *o;
  char why[512];

  if (!want) {
    if (!quiet)
      printf("# OpenCL: left out (--no-opencl or --only)\n");
    return NULL;
  }
  if ((o = bench_ocl_open(why, sizeof why)) == NULL) {
    printf("# OpenCL: %s: the pocl column is skipped\n", why);
    return NULL;
  }
  if (!quiet) {
    const char *method = getenv("POCL_WORK_GROUP_METHOD");

    printf("# OpenCL: %s; POCL_WORK_GROUP_METHOD=%s\n", bench_ocl_device(o),
           method != NULL ? method : "(PoCL's default)");
  }
  return o;
}

static int open_fiberpar(fpar_runtime **rt, real_env *env) {
  if (fpar_runtime_create(rt, NULL) != 0 ||
      fpar_queue_create(*rt, 0, &env->q) != 0) {
    fprintf(stderr, "real: libfiberpar: %s\n", fpar_last_error());
    return -1;
  }
  return 0;
}

/* The pocl version needs its programs built first (untimed). */
static int version_ready(const real_kernel *k, void *s, real_version v,
                         real_env *env, real_result *r) {
  if (v != REAL_POCL)
    return 1;
  if (env->ocl == NULL) {
    snprintf(r->why, sizeof r->why, "no OpenCL");
    return 0;
  }
  if (k->ocl_init(s, env->ocl) != 0) {
    printf("# %s: the OpenCL version does not run here (see above): "
           "skipped\n",
           k->name);
    snprintf(r->why, sizeof r->why, "OpenCL setup failed");
    return 0;
  }
  return 1;
}

int real_check_kernel(const real_kernel *k, long n, int opencl, char *why,
                      size_t len) {
  fpar_runtime *rt;
  real_env env = {NULL, NULL};
  real_result r;
  void *s;
  int ok = 1;

  why[0] = '\0';
  if (open_fiberpar(&rt, &env) != 0) {
    snprintf(why, len, "no libfiberpar runtime: %s", fpar_last_error());
    return 0;
  }
  env.ocl = open_opencl(opencl, 1);
  s = k->setup(n != 0 ? n : k->check_size);
  if (s == NULL) {
    snprintf(why, len, "%s: setup failed", k->name);
    ok = 0;
  }
  for (int v = 0; ok && v < REAL_VERSIONS; v++) {
    memset(&r, 0, sizeof r);
    if (!version_ready(k, s, (real_version)v, &env, &r))
      continue;
    if (!run_once(k, s, (real_version)v, &env, 1, &r)) {
      snprintf(why, len, "%s %s: %s", k->name, version_names[v], r.why);
      ok = 0;
    }
  }
  if (env.ocl != NULL) {
    bench_ocl_reset(env.ocl);
    bench_ocl_close(env.ocl);
  }
  if (s != NULL)
    k->release(s);
  fpar_queue_destroy(env.q);
  fpar_runtime_destroy(rt);
  return ok;
}

static void print_header(fpar_runtime *rt, int reps) {
  char cpu[512] = "?", line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  int threads = 1;

  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, "model name", 10) == 0) {
      const char *c = strchr(line, ':');
      snprintf(cpu, sizeof cpu, "%s", c != NULL ? c + 2 : line);
      cpu[strcspn(cpu, "\n")] = '\0';
      break;
    }
  if (f != NULL)
    fclose(f);
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("# real kernels: CPU %s; libfiberpar %s, %u workers, lanes W=%d; "
         "OpenMP %d threads\n",
         cpu, fpar_version_string(), fpar_runtime_num_threads(rt),
         FPAR_SIMD_WIDTH, threads);
  printf("# times in ms: the minimum of at least %d runs (medians on the "
         "'# median' lines); r = reference time / libfiberpar time (> 1: "
         "libfiberpar is faster)\n",
         reps);
}

static void print_ms(const real_result *r, const char *label) {
  if (r->ran && r->ok)
    printf(" %s %.3f", label, r->min * 1e3);
  else
    printf(" %s -", label);
}

static void print_ratio(const real_result *ref, const real_result *ours,
                        const char *label, double *log_sum, int *count) {
  if (ref->ran && ref->ok && ours->ran && ours->ok) {
    double r = ref->min / ours->min;

    printf(" %s %.3f", label, r);
    *log_sum += log(r);
    ++*count;
  } else {
    printf(" %s -", label);
  }
}

/* Check mode: each version once, one line per version. */
static int check_all(const real_options *opts, real_env *env) {
  int failures = 0;

  for (unsigned i = 0; i < opts->count; i++) {
    const real_kernel *k = opts->kernels[i];
    long n = opts->sizes[i] != 0 ? opts->sizes[i] : k->check_size;
    void *s = k->setup(n);

    for (int v = 0; s != NULL && v < REAL_VERSIONS; v++) {
      real_result r;

      memset(&r, 0, sizeof r);
      if (!(opts->versions & 1u << v))
        continue;
      if (!version_ready(k, s, (real_version)v, env, &r)) {
        printf("check %s %s skipped: %s\n", k->name, version_names[v], r.why);
        continue;
      }
      if (run_once(k, s, (real_version)v, env, 1, &r)) {
        printf("check %s %s ok (size %ld)\n", k->name, version_names[v], n);
      } else {
        printf("check %s %s WRONG: %s\n", k->name, version_names[v], r.why);
        failures++;
      }
    }
    if (s == NULL) {
      printf("check %s WRONG: setup failed\n", k->name);
      failures++;
    }
    if (env->ocl != NULL)
      bench_ocl_reset(env->ocl);
    if (s != NULL)
      k->release(s);
  }
  return failures != 0;
}

/* Timing mode: one `real` line per kernel, then the geometric means. */
static int time_all(const real_options *opts, real_env *env) {
  double logs[3] = {0, 0, 0};
  int counts[3] = {0, 0, 0}, failures = 0, kernels = 0;

  for (unsigned i = 0; i < opts->count; i++) {
    const real_kernel *k = opts->kernels[i];
    long n = opts->sizes[i] != 0 ? opts->sizes[i] : k->size;
    real_result r[REAL_VERSIONS];
    void *s = k->setup(n);
    int ok = s != NULL;

    memset(r, 0, sizeof r);
    for (int v = 0; s != NULL && v < REAL_VERSIONS; v++)
      r[v].ran = (opts->versions & 1u << v) &&
                 version_ready(k, s, (real_version)v, env, &r[v]);
    if (s != NULL)
      time_kernel(k, s, env, opts->reps, r);
    for (int v = 0; v < REAL_VERSIONS; v++)
      if (r[v].ran && !r[v].ok) {
        printf("# %s %s WRONG: %s\n", k->name, version_names[v], r[v].why);
        ok = 0;
      }
    if (env->ocl != NULL)
      bench_ocl_reset(env->ocl);
    if (s != NULL)
      k->release(s);
    printf("# median %s (size %ld)", k->name, n);
    for (int v = 0; v < REAL_VERSIONS; v++)
      if (r[v].ran && r[v].runs > 0)
        printf(" %s_ms %.3f (%d runs)", version_names[v], r[v].median * 1e3,
               r[v].runs);
    printf("\nreal %s", k->name);
    print_ms(&r[REAL_POCL], "pocl_ms");
    print_ms(&r[REAL_PORT], "port_ms");
    print_ms(&r[REAL_BEST], "best_ms");
    printf(" best_form %s", k->best_form);
    print_ms(&r[REAL_OMP], "openmp_ms");
    print_ratio(&r[REAL_POCL], &r[REAL_PORT], "port/pocl", &logs[0],
                &counts[0]);
    print_ratio(&r[REAL_POCL], &r[REAL_BEST], "best/pocl", &logs[1],
                &counts[1]);
    print_ratio(&r[REAL_OMP], &r[REAL_BEST], "best/openmp", &logs[2],
                &counts[2]);
    printf(" %s\n", ok ? "ok" : "WRONG");
    fflush(stdout);
    failures += !ok;
    kernels++;
  }
  printf("real geomean");
  for (int j = 0; j < 3; j++) {
    static const char *const labels[3] = {"port/pocl", "best/pocl",
                                          "best/openmp"};
    if (counts[j] > 0)
      printf(" %s %.3f", labels[j], exp(logs[j] / counts[j]));
    else
      printf(" %s -", labels[j]);
  }
  printf(" kernels %d\n", kernels);
  return failures != 0;
}

int real_main(const real_options *opts) {
  fpar_runtime *rt;
  real_env env = {NULL, NULL};
  int bad;

  if (open_fiberpar(&rt, &env) != 0)
    return 1;
  print_header(rt, opts->reps);
  env.ocl = open_opencl(opts->opencl, 0);
  fflush(stdout);
  bad = opts->check ? check_all(opts, &env) : time_all(opts, &env);
  if (env.ocl != NULL)
    bench_ocl_close(env.ocl);
  fpar_queue_destroy(env.q);
  fpar_runtime_destroy(rt);
  return bad;
}
