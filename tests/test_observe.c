/* SPDX-License-Identifier: MIT */
/* test_observe.c - what the runtime shows of itself: worker thread names,
 * FIBERPAR_DISPLAY=1's fields and FIBERPAR_TRACE's file (its JSON is
 * parsed by tests/test_trace.sh). */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiberpar/simd.h>

#include "testutil.h"

/* How many threads of this process are named `name`. */
static int threads_named(const char *name) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;

  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL) {
    char path[300], comm[64] = "";
    FILE *f;
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    if ((f = fopen(path, "r")) == NULL)
      continue; /* the thread has exited */
    if (fgets(comm, sizeof comm, f) != NULL)
      comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
    n += strcmp(comm, name) == 0;
  }
  closedir(d);
  return n;
}

static fpar_runtime *create(unsigned threads) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  o.display = FPAR_DISPLAY_QUIET; /* more workers than cores: no warning */
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  return rt;
}

/* Workers are named fpar-wN in the process's first runtime and
 * fparK-wN in its K-th later one; the names go with the threads. */
START_TEST(test_thread_names) {
  fpar_runtime *first = create(3), *second = create(2);

  ck_assert_int_eq(threads_named("fpar-w0"), 1);
  ck_assert_int_eq(threads_named("fpar-w1"), 1);
  ck_assert_int_eq(threads_named("fpar-w2"), 1);
  ck_assert_int_eq(threads_named("fpar-w3"), 0);
  ck_assert_int_eq(threads_named("fpar1-w0"), 1);
  ck_assert_int_eq(threads_named("fpar1-w1"), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(first));
  ck_assert_int_eq(threads_named("fpar-w0"), 0);
  ck_assert_int_eq(threads_named("fpar1-w1"), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(second));
  ck_assert_int_eq(threads_named("fpar1-w0"), 0);
}
END_TEST

#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" not found in:\n%s", (needle), (haystack))

/* FIBERPAR_DISPLAY=1 prints every field, with the values the environment
 * set; the default prints nothing when nothing is shared. */
START_TEST(test_display_fields) {
  char out[8192], want[160], cpus[64];
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_NUM_THREADS", "2", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "none", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_str_eq(out, "");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "1", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "96K", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_LOCAL_MEM_SIZE", "3M", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_FPENV", "item", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  snprintf(want, sizeof want, "fiberpar: libfiberpar %s: 2 workers,",
           FPAR_VERSION_STRING);
  ck_assert_contains(out, want);
  ck_assert_fpar_ok(fpar_runtime_worker_cpus(rt, 1, cpus, sizeof cpus));
  snprintf(want, sizeof want, "fiberpar: worker 1: CPUs %s (not bound)", cpus);
  ck_assert_contains(out, want);
  ck_assert_contains(out, "fiber stacks of 96 KiB,");
  ck_assert_contains(out, "local memory 3 MiB per worker,");
  ck_assert_contains(out, "groups of up to 4096 work-items,");
  ck_assert_contains(out, "FP environment item,");
  snprintf(want, sizeof want, "SIMD %s with %u lanes,", fpar_math_isa(),
           fpar_math_lanes());
  ck_assert_contains(out, want);
  ck_assert_contains(out, "context switch ");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_FPENV", "shared", 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_STACK_SIZE", "100000", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_contains(out, "fiber stacks of 100 KiB,"); /* whole pages */
  ck_assert_contains(out, "FP environment shared,");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* fpar_runtime_topology() counts the process's allowed CPUs as hardware
 * threads (the kernel's affinity mask is the reference), at least one
 * core and one NUMA node, and no more cores than threads; NULL outputs
 * are skipped. */
START_TEST(test_topology_counts) {
  cpu_set_t allowed;
  unsigned cores = 0, pus = 0, nodes = 0, again = 0;
  fpar_runtime *rt = create(1);

  ck_assert_int_eq(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  ck_assert_fpar_ok(fpar_runtime_topology(rt, &cores, &pus, &nodes));
  ck_assert_uint_eq(pus, (unsigned)CPU_COUNT(&allowed));
  ck_assert_uint_ge(cores, 1);
  ck_assert_uint_le(cores, pus);
  ck_assert_uint_ge(nodes, 1);
  ck_assert_fpar_ok(fpar_runtime_topology(rt, NULL, &again, NULL));
  ck_assert_uint_eq(again, pus);
  ck_assert_fpar_ok(fpar_runtime_topology(rt, NULL, NULL, NULL));
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* fpar_math_lanes() is the width of the instruction set fpar_math_isa()
 * names. */
START_TEST(test_math_lanes) {
  static const struct {
    const char *isa;
    unsigned lanes;
  } widths[] = {{"avx512f", 16}, {"avx2", 8}, {"sse2", 4}, {"scalar", 1}};
  const char *isa = fpar_math_isa();
  size_t k;

  for (k = 0; k < sizeof widths / sizeof *widths; k++)
    if (strcmp(isa, widths[k].isa) == 0) {
      ck_assert_uint_eq(fpar_math_lanes(), widths[k].lanes);
      return;
    }
  ck_abort_msg("unknown instruction set \"%s\"", isa);
}
END_TEST

/* ---- FIBERPAR_TRACE ------------------------------------------------------
 */

/* Global 6 x 5 x 3 in groups of 3 x 5 x 1: six groups of 15 work-items. */
#define TRACE_GROUPS 6
#define TRACE_ITEMS 90

/* Each work-item passes its id to its right neighbour in the group
 * through local memory: two barriers per work-item. */
static void rotate_kernel(fpar_item *it, void *args) {
  unsigned *out = args;
  unsigned *tmp = fpar_group_local_memory(it, 15 * sizeof *tmp, 0);
  size_t lid = fpar_local_linear_id(it);

  tmp[lid] = (unsigned)fpar_global_linear_id(it);
  fpar_barrier(it);
  out[fpar_global_linear_id(it)] = tmp[(lid + 1) % 15];
  fpar_barrier(it);
}

static void plain_kernel(fpar_item *it, void *args) {
  unsigned *out = args;

  out[fpar_global_linear_id(it)] += 1;
}

/* The same in plain C: the global linear id of local (x + 1) % 15. */
static unsigned rotate_reference(size_t g) {
  size_t x = g % 6, y = g / 6 % 5, z = g / 30;
  size_t lid = x % 3 + 3 * y, next = (lid + 1) % 15;

  return (unsigned)(x / 3 * 3 + next % 3 + 6 * (next / 3 + 5 * z));
}

/* Run the named barrier kernel and an unnamed barrier-free one. */
static void run_traced_kernels(fpar_queue *q) {
  unsigned out[TRACE_ITEMS];
  fpar_launch_desc d;
  size_t i;

  fpar_launch_desc_init(&d);
  d.name = "rotate \"x\"";
  d.kernel = rotate_kernel;
  d.args = out;
  d.global = fpar_range3(6, 5, 3);
  d.local = fpar_range3(3, 5, 1);
  ck_assert_fpar_ok(fpar_launch(q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  for (i = 0; i < TRACE_ITEMS; i++)
    ck_assert_uint_eq(out[i], rotate_reference(i));
  ck_assert_fpar_ok(fpar_parallel_for(
      q, fpar_range3(6, 5, 3), fpar_range3(3, 5, 1), plain_kernel, out, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(q));
  for (i = 0; i < TRACE_ITEMS; i++)
    ck_assert_uint_eq(out[i], rotate_reference(i) + 1);
}

/* What the two launches must leave in a trace (its JSON is parsed by
 * tests/test_trace.sh). */
static void check_trace(const char *path, const char *workers) {
  char name[64];
  char *json = fpar_test_read_file(path);
  static const char head[] = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";

  ck_assert_msg(strncmp(json, head, sizeof head - 1) == 0, "not a trace: %.80s",
                json);
  ck_assert_int_eq(fpar_test_count(json, "\"cat\":\"launch\""), 2);
  ck_assert_int_eq(fpar_test_count(json, "\"cat\":\"group\""),
                   2 * TRACE_GROUPS);
  /* The name is escaped, and names each group of its launch. */
  ck_assert_int_eq(fpar_test_count(json, "\"name\":\"rotate \\\"x\\\"\""),
                   1 + TRACE_GROUPS);
  ck_assert_int_eq(fpar_test_count(json, "\"name\":\"(unnamed)\""),
                   1 + TRACE_GROUPS);
  ck_assert_int_eq(fpar_test_count(json, "\"barriers\":2}"), TRACE_GROUPS);
  ck_assert_int_eq(fpar_test_count(json, "\"barriers\":0}"), TRACE_GROUPS);
  ck_assert_int_eq(fpar_test_count(json, "\"group\":[1,0,2]"), 2);
  ck_assert_int_eq(
      fpar_test_count(json, "\"global\":[6,5,3],\"local\":[3,5,1]"), 2);
  snprintf(name, sizeof name, "\"name\":\"%s0\"", workers);
  ck_assert_int_eq(fpar_test_count(json, name), 1);
  snprintf(name, sizeof name, "\"name\":\"%s1\"", workers);
  ck_assert_int_eq(fpar_test_count(json, name), 1);
  ck_assert_int_eq(fpar_test_count(json, "\"name\":\"launches\""), 1);
  ck_assert_msg(strstr(json, "\n]") != NULL && json[strlen(json) - 2] == '}',
                "unterminated trace");
  free(json);
}

static void trace_path(char *buf, size_t len, const char *what) {
  snprintf(buf, len, "%s/fpar_trace_%ld_%s.json",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(), what);
}

/* Destroying the runtime writes the file; a second runtime of the process
 * writes "file.1". */
START_TEST(test_trace_at_destroy) {
  char path[256], second[300];
  fpar_test_env e, e2;

  trace_path(path, sizeof path, "destroy");
  snprintf(second, sizeof second, "%s.1", path);
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "0", 1), 0);
  fpar_test_env_init(&e, 2);
  fpar_test_env_init(&e2, 2);
  run_traced_kernels(e.q);
  run_traced_kernels(e2.q);
  fpar_test_env_fini(&e);
  fpar_test_env_fini(&e2);
  check_trace(path, "fpar-w");
  check_trace(second, "fpar1-w");
  unlink(path);
  unlink(second);
}
END_TEST

/* A program that exits without destroying its runtime gets its trace. */
START_TEST(test_trace_at_exit) {
  char path[256];
  pid_t child;
  int status;

  trace_path(path, sizeof path, "exit");
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    fpar_test_env e;
    fpar_test_env_init(&e, 2);
    run_traced_kernels(e.q);
    exit(0);
  }
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  check_trace(path, "fpar-w");
  unlink(path);
}
END_TEST

/* Work-item 0 returns while the others wait at the barrier. */
static void diverge_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_linear_id(it) != 0)
    fpar_barrier(it);
}

/* A group that a fault ends has its span, marked failed; the launch's
 * result names the fault. */
START_TEST(test_trace_failed_group) {
  char path[256], *json;
  fpar_test_env e;
  fpar_event *ev;

  trace_path(path, sizeof path, "failed");
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8),
                                      diverge_kernel, NULL, &ev));
  ck_assert_fpar_err(fpar_event_wait(ev), FPAR_EDIVERGENCE);
  fpar_event_release(ev);
  fpar_test_env_fini(&e);
  json = fpar_test_read_file(path);
  ck_assert_int_eq(fpar_test_count(json, "\"cat\":\"group\""), 1);
  ck_assert_int_eq(fpar_test_count(json, "\"failed\":true"), 1);
  ck_assert_int_eq(fpar_test_count(json, "\"result\":\"FPAR_EDIVERGENCE\""), 1);
  free(json);
  unlink(path);
}
END_TEST

/* A scoped group function that meets at three group barriers. */
static void scoped_fn(fpar_group *g, void *args) {
  unsigned *out = args;
  int b;

  for (b = 0; b < 3; b++)
    ck_assert_fpar_ok(fpar_group_barrier(g));
  out[fpar_group_get_linear_id(g)] = 1;
}

/* Scoped groups count their group barriers; a name cut inside a UTF-8
 * character (names keep 63 bytes) stays valid UTF-8 in the file. */
START_TEST(test_trace_scoped_and_names) {
  char path[256], name[80], want[90], *json;
  unsigned out[5] = {0};
  fpar_launch_desc d;
  fpar_test_env e;

  trace_path(path, sizeof path, "scoped");
  ck_assert_int_eq(setenv("FIBERPAR_TRACE", path, 1), 0);
  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(5), fpar_range1(16),
                                  scoped_fn, out, NULL));
  fpar_launch_desc_init(&d);
  memset(name, 'a', 62);
  strcpy(name + 62, "\xc3\xa9 and more"); /* U+00E9 from byte 62 on */
  d.name = name;
  d.kernel = plain_kernel;
  d.args = out;
  d.global = fpar_range1(5);
  d.local = fpar_range1(5);
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  fpar_test_env_fini(&e);
  for (int g = 0; g < 5; g++)
    ck_assert_uint_eq(out[g], 2); /* the group function, then the kernel */
  json = fpar_test_read_file(path);
  ck_assert_int_eq(fpar_test_count(json, "\"model\":\"scoped\""), 1);
  ck_assert_int_eq(fpar_test_count(json, "\"barriers\":3}"), 5);
  snprintf(want, sizeof want, "\"name\":\"%.62s?\"", name);
  ck_assert_int_eq(fpar_test_count(json, want),
                   2); /* the launch and its group */
  free(json);
  unlink(path);
}
END_TEST

/* A file that cannot be created is said once; the runtime works
 * untraced. */
START_TEST(test_trace_unwritable) {
  char out[4096];
  fpar_runtime *rt;
  fpar_queue *q;

  ck_assert_int_eq(
      setenv("FIBERPAR_TRACE", "/nonexistent-dir/fpar/trace.json", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_int_eq(fpar_test_count(out, "FIBERPAR_TRACE"), 1);
  ck_assert_contains(out, "cannot create \"/nonexistent-dir/fpar/trace.json\": "
                          "No such file or directory; tracing is off");
  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  run_traced_kernels(q);
  ck_assert_fpar_ok(fpar_queue_destroy(q));
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

static Suite *observe_suite(void) {
  Suite *s = suite_create("observe");
  TCase *tc = tcase_create("names");

  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_thread_names);
  suite_add_tcase(s, tc);
  tc = tcase_create("display");
  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_display_fields);
  tcase_add_test(tc, test_topology_counts);
  tcase_add_test(tc, test_math_lanes);
  suite_add_tcase(s, tc);
  tc = tcase_create("trace");
  tcase_set_timeout(tc, FPAR_TEST_TIMEOUT);
  tcase_add_test(tc, test_trace_at_destroy);
  tcase_add_test(tc, test_trace_at_exit);
  tcase_add_test(tc, test_trace_failed_group);
  tcase_add_test(tc, test_trace_scoped_and_names);
  tcase_add_test(tc, test_trace_unwritable);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(observe_suite());
}
