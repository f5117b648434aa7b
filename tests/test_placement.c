/* SPDX-License-Identifier: MIT */
/* test_placement.c - workers live inside the process's allowed CPU set:
 * binding, place lists, NUMA places, two runtimes in one process,
 * oversubscription, launchers' local ranks, FIBERPAR_DISPLAY.
 *
 * The reference is the kernel's own view: sched_getcpu() and the worker
 * thread's sched_getaffinity() recorded inside kernels, against the set
 * the test gave the process with sched_setaffinity().  Every test runs in
 * its own forked process, so it may rebind itself and set variables. */
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define GROUPS 64
#define SPIN_NS 200000 /* per group: long enough that all workers join */

/* Assert that haystack contains needle, printing both otherwise. */
#define ck_assert_contains(haystack, needle)                                   \
  ck_assert_msg(strstr((haystack), (needle)) != NULL,                          \
                "\"%s\" does not contain \"%s\"", (haystack), (needle))

/* ---- CPU sets (the reference side, plain libc) -------------------------- */

static cpu_set_t process_cpus(void) {
  cpu_set_t s;

  CPU_ZERO(&s);
  ck_assert_int_eq(sched_getaffinity(0, sizeof s, &s), 0);
  return s;
}

/* The k-th CPU of s (k < CPU_COUNT(s)). */
static int nth_cpu(const cpu_set_t *s, int k) {
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, s) && k-- == 0)
      return c;
  ck_abort_msg("the set has fewer CPUs");
  return -1;
}

static void bind_process(const int *cpus, int n) {
  cpu_set_t s;

  CPU_ZERO(&s);
  for (int k = 0; k < n; k++)
    CPU_SET(cpus[k], &s);
  ck_assert_int_eq(sched_setaffinity(0, sizeof s, &s), 0);
}

/* Bind the process to its last allowed CPU (not CPU 0 on most machines,
 * so that a runtime ignoring the binding shows); returns that CPU. */
static int bind_to_last_cpu(void) {
  cpu_set_t all = process_cpus();
  int cpu = nth_cpu(&all, CPU_COUNT(&all) - 1);

  bind_process(&cpu, 1);
  return cpu;
}

/* Parse an OS CPU list such as "0-3,8" (the format of the queries and of
 * /sys/devices/system/node/node<N>/cpulist). */
static cpu_set_t parse_cpus(const char *text) {
  cpu_set_t s;
  const char *p = text;

  CPU_ZERO(&s);
  while (*p != '\0' && *p != '\n') {
    char *end;
    long a = strtol(p, &end, 10), b = a;
    ck_assert_msg(end != p, "bad CPU list \"%s\"", text);
    if (*end == '-')
      b = strtol(end + 1, &end, 10);
    for (long c = a; c <= b; c++)
      CPU_SET((int)c, &s);
    p = *end == ',' ? end + 1 : end;
  }
  return s;
}

static cpu_set_t worker_cpus(fpar_runtime *rt, unsigned w) {
  char buf[256];

  ck_assert_fpar_ok(fpar_runtime_worker_cpus(rt, w, buf, sizeof buf));
  return parse_cpus(buf);
}

static cpu_set_t runtime_cpus(fpar_runtime *rt) {
  char buf[256];

  ck_assert_fpar_ok(fpar_runtime_cpuset(rt, buf, sizeof buf));
  return parse_cpus(buf);
}

static void ck_assert_cpus_eq(cpu_set_t a, cpu_set_t b, const char *what) {
  ck_assert_msg(CPU_EQUAL(&a, &b), "%s: %d CPUs (first %d) != %d (first %d)",
                what, CPU_COUNT(&a), CPU_COUNT(&a) ? nth_cpu(&a, 0) : -1,
                CPU_COUNT(&b), CPU_COUNT(&b) ? nth_cpu(&b, 0) : -1);
}

static void ck_assert_cpus_within(cpu_set_t inner, cpu_set_t outer,
                                  const char *what) {
  cpu_set_t both;

  CPU_AND(&both, &inner, &outer);
  ck_assert_msg(CPU_EQUAL(&both, &inner), "%s: not inside the set", what);
}

/* ---- What kernels see ---------------------------------------------------- */

/* Per group: the CPU it ran on, its thread's binding, and the NUMA node of
 * a page of its local memory. */
typedef struct where {
  int cpu[GROUPS];
  cpu_set_t bound[GROUPS];
  int node[GROUPS];
} where;

static void where_kernel(fpar_item *it, void *args) {
  where *w = args;
  size_t g = fpar_group_id(it, 0);
  volatile char *local = fpar_group_local_memory(it, 4096, 4096);
  struct timespec t0, t;
  int node = -1;

  local[0] = 1; /* the page exists from here on */
  if (syscall(SYS_get_mempolicy, &node, NULL, 0, (void *)local,
              MPOL_F_NODE | MPOL_F_ADDR) != 0)
    node = -1;
  w->node[g] = node;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do /* stay long enough for the other workers to take groups */
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
         SPIN_NS);
  w->cpu[g] = sched_getcpu();
  sched_getaffinity(0, sizeof w->bound[g], &w->bound[g]);
}

/* Run where_kernel on the workers and check that every group ran inside
 * `set`, on a thread bound inside it, with local memory on the NUMA node
 * its worker reports (when the kernel saw only one worker's binding).  The
 * test polls the event (fpar_test_poll()): a thread that waits would run
 * groups too, with its own binding. */
static void check_kernels_inside(fpar_runtime *rt, cpu_set_t set) {
  static where w;
  fpar_queue *q;
  fpar_event *ev;

  ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(GROUPS), fpar_range1(1),
                                      where_kernel, &w, &ev));
  fpar_test_poll(ev);
  fpar_test_wait_ok(ev);
  fpar_queue_destroy(q);
  for (int g = 0; g < GROUPS; g++) {
    ck_assert_msg(w.cpu[g] >= 0 && CPU_ISSET(w.cpu[g], &set),
                  "group %d ran on CPU %d, outside the set", g, w.cpu[g]);
    ck_assert_cpus_within(w.bound[g], set, "a worker's binding");
  }
  if (fpar_runtime_num_threads(rt) == 1) {
    int node;
    ck_assert_fpar_ok(fpar_runtime_worker_numa_node(rt, 0, &node));
    ck_assert_cpus_eq(w.bound[0], worker_cpus(rt, 0),
                      "the kernel's binding vs fpar_runtime_worker_cpus");
    if (node >= 0 && w.node[0] >= 0)
      ck_assert_int_eq(w.node[0], node);
  }
}

static fpar_runtime *create(unsigned threads) {
  fpar_runtime_opts o;
  fpar_runtime *rt;

  fpar_runtime_opts_init(&o);
  o.num_threads = threads;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  return rt;
}

/* ---- Binding ---------------------------------------------------------------
 */

/* taskset -c <last CPU>: one worker, on that CPU, not CPU 0. */
START_TEST(test_binding_one_cpu) {
  cpu_set_t one;
  fpar_runtime *rt;

  bind_to_last_cpu();
  one = process_cpus();
  rt = create(0);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 1);
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt), 1);
  ck_assert_cpus_eq(runtime_cpus(rt), one, "fpar_runtime_cpuset");
  ck_assert_cpus_eq(worker_cpus(rt, 0), one, "worker 0");
  check_kernels_inside(rt, one);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* FIBERPAR_PIN=pu: one worker per CPU of the binding, each on its own. */
START_TEST(test_binding_counts_pus) {
  cpu_set_t all = process_cpus(), bound;
  int cpus[2], n = CPU_COUNT(&all) >= 2 ? 2 : 1;
  fpar_runtime *rt;

  cpus[0] = nth_cpu(&all, CPU_COUNT(&all) - 1);
  cpus[1] = nth_cpu(&all, 0);
  bind_process(cpus, n);
  bound = process_cpus();
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "pu", 1), 0);
  rt = create(0);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), (unsigned)n);
  for (unsigned w = 0; w < (unsigned)n; w++) {
    cpu_set_t c = worker_cpus(rt, w);
    ck_assert_int_eq(CPU_COUNT(&c), 1);
    ck_assert_cpus_within(c, bound, "a pu worker");
  }
  if (n == 2) {
    cpu_set_t a = worker_cpus(rt, 0), b = worker_cpus(rt, 1);
    ck_assert_msg(!CPU_EQUAL(&a, &b), "two pu workers share a CPU");
  }
  check_kernels_inside(rt, bound);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* pin none: not bound, but the kernels still run inside the binding (the
 * threads inherit it) and the count is the binding's. */
START_TEST(test_binding_pin_none) {
  cpu_set_t one;
  fpar_runtime *rt;

  bind_to_last_cpu();
  one = process_cpus();
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "none", 1), 0);
  rt = create(0);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 1);
  check_kernels_inside(rt, one);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* ---- Place lists ------------------------------------------------------------
 */

START_TEST(test_place_list) {
  cpu_set_t all = process_cpus(), want;
  int n = CPU_COUNT(&all), a = nth_cpu(&all, n - 1), b = nth_cpu(&all, 0);
  char list[64];
  fpar_runtime *rt;

  /* Two places, listed last CPU first: worker 0 takes the first entry. */
  snprintf(list, sizeof list, "%d,%d", a, b);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", list, 1), 0);
  rt = create(0);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 2);
  CPU_ZERO(&want);
  CPU_SET(a, &want);
  ck_assert_cpus_eq(worker_cpus(rt, 0), want, "worker 0 of the list");
  CPU_ZERO(&want);
  CPU_SET(b, &want);
  ck_assert_cpus_eq(worker_cpus(rt, 1), want, "worker 1 of the list");
  CPU_SET(a, &want);
  check_kernels_inside(rt, want);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  /* A range is one place of several CPUs (the binding may have holes:
   * take the run of CPUs from b on). */
  for (a = b; a + 1 < CPU_SETSIZE && CPU_ISSET(a + 1, &all);)
    a++;
  snprintf(list, sizeof list, "%d-%d", b, a);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", list, 1), 0);
  rt = create(0);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 1);
  CPU_ZERO(&want);
  for (int c = b; c <= a; c++)
    CPU_SET(c, &want);
  ck_assert_cpus_eq(worker_cpus(rt, 0), want, "the range place");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* The same list through fpar_runtime_opts.places. */
START_TEST(test_place_list_option) {
  cpu_set_t all = process_cpus(), want;
  int cpu = nth_cpu(&all, CPU_COUNT(&all) - 1);
  char list[16];
  fpar_runtime_opts o;
  fpar_runtime *rt;

  snprintf(list, sizeof list, "%d", cpu);
  fpar_runtime_opts_init(&o);
  o.places = list; /* pin left at FPAR_PIN_DEFAULT means the list */
  o.num_threads = 2;
  ck_assert_fpar_ok(fpar_runtime_create(&rt, &o));
  CPU_ZERO(&want);
  CPU_SET(cpu, &want);
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 2);
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt), 2);
  ck_assert_cpus_eq(worker_cpus(rt, 1), want, "worker 1");
  check_kernels_inside(rt, want);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

static void check_list_fails(const char *value, const char *detail) {
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_PIN", value, 1), 0);
  ck_assert_fpar_err(fpar_runtime_create(&rt, NULL), FPAR_EENV);
  ck_assert_contains(fpar_last_error(), "FIBERPAR_PIN=\"");
  ck_assert_contains(fpar_last_error(), value);
  ck_assert_contains(fpar_last_error(), detail);
  unsetenv("FIBERPAR_PIN");
}

START_TEST(test_place_list_errors) {
  static const char *const malformed[] = {"1,",  "0,,1", "1-",          "3-1",
                                          "0;1", "0 1",  "99999999999", "0-x"};
  cpu_set_t all = process_cpus();
  int cpu = nth_cpu(&all, 0), other = cpu + 1;
  char value[32], detail[64];
  fpar_runtime_opts o;
  fpar_runtime *rt;

  for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++)
    check_list_fails(malformed[k], "expected a list such as 0,2,4-7");

  /* A CPU outside the binding, named in the message. */
  bind_process(&cpu, 1);
  snprintf(value, sizeof value, "%d,%d", cpu, other);
  snprintf(detail, sizeof detail, "CPU %d is not in this process's", other);
  check_list_fails(value, detail);

  /* Unknown keywords list what is accepted. */
  check_list_fails("cores", "expected core, pu, numa, none or a list");

  /* Through the options: FPAR_EINVAL naming the field. */
  fpar_runtime_opts_init(&o);
  o.places = value;
  ck_assert_fpar_err(fpar_runtime_create(&rt, &o), FPAR_EINVAL);
  ck_assert_contains(fpar_last_error(), "fpar_runtime_opts.places=\"");
  ck_assert_contains(fpar_last_error(), detail);
  o.pin = FPAR_PIN_CORE;
  ck_assert_fpar_err(fpar_runtime_create(&rt, &o), FPAR_EINVAL);
  ck_assert_contains(fpar_last_error(), "not FPAR_PIN_LIST");
  o.places = NULL;
  o.pin = FPAR_PIN_LIST;
  ck_assert_fpar_err(fpar_runtime_create(&rt, &o), FPAR_EINVAL);
  ck_assert_contains(fpar_last_error(), "places is NULL");

  /* The runtime stays usable after each refusal. */
  rt = create(0);
  check_kernels_inside(rt, process_cpus());
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

/* ---- NUMA places ----------------------------------------------------------
 */

/* Each worker is bound to all the CPUs of its NUMA node in the binding,
 * as /sys lists them. */
START_TEST(test_numa_places) {
  cpu_set_t all = process_cpus();
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_PIN", "numa", 1), 0);
  rt = create(0);
  for (unsigned w = 0; w < fpar_runtime_num_threads(rt); w++) {
    char path[96], text[1024] = "";
    cpu_set_t node_cpus;
    int node;
    FILE *f;
    ck_assert_fpar_ok(fpar_runtime_worker_numa_node(rt, w, &node));
    ck_assert_int_ge(node, 0);
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist",
             node);
    if ((f = fopen(path, "r")) == NULL)
      continue; /* no NUMA information in /sys: nothing to compare */
    ck_assert_ptr_nonnull(fgets(text, sizeof text, f));
    fclose(f);
    node_cpus = parse_cpus(text);
    CPU_AND(&node_cpus, &node_cpus, &all);
    ck_assert_cpus_eq(worker_cpus(rt, w), node_cpus, "a NUMA place");
  }
  check_kernels_inside(rt, all);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* ---- Several runtimes -----------------------------------------------------
 */

/* A second runtime takes the places the first left free; when none are
 * free, it shares and says so. */
START_TEST(test_two_runtimes_take_free_places) {
  cpu_set_t all = process_cpus(), a, b, c;
  fpar_runtime *rt1, *rt2, *rt3;

  if (CPU_COUNT(&all) < 2) {
    rt1 = create(1);
    rt2 = create(1);
    ck_assert_uint_eq(fpar_runtime_oversubscription(rt2), 2);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt2));
    ck_assert_fpar_ok(fpar_runtime_destroy(rt1));
    return;
  }
  int two[2] = {nth_cpu(&all, 0), nth_cpu(&all, 1)};
  bind_process(two, 2);
  ck_assert_int_eq(setenv("FIBERPAR_PIN", "pu", 1), 0);
  rt1 = create(1);
  rt2 = create(1);
  a = worker_cpus(rt1, 0);
  b = worker_cpus(rt2, 0);
  ck_assert_msg(!CPU_EQUAL(&a, &b), "two runtimes pinned to the same CPU");
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt1), 1);
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt2), 1);
  check_kernels_inside(rt2, b);

  /* No place is free: the third shares, counted. */
  rt3 = create(1);
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt3), 2);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt3));

  /* Once the first is gone, its place is free again. */
  ck_assert_fpar_ok(fpar_runtime_destroy(rt1));
  rt1 = create(1);
  c = worker_cpus(rt1, 0);
  ck_assert_cpus_eq(c, a, "the freed place");
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt1), 1);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt1));
  ck_assert_fpar_ok(fpar_runtime_destroy(rt2));
  unsetenv("FIBERPAR_PIN");
}
END_TEST

/* ---- Oversubscription and FIBERPAR_DISPLAY ------------------------------- */

START_TEST(test_oversubscription_stated) {
  int cpu = bind_to_last_cpu();
  char out[4096], want[128];
  fpar_runtime *rt;

  ck_assert_int_eq(setenv("FIBERPAR_NUM_THREADS", "3", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_uint_eq(fpar_runtime_num_threads(rt), 3);
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt), 3);
  snprintf(want, sizeof want,
           "fiberpar: warning: oversubscribed: up to 3 workers share one "
           "place (3 workers on 1 core of CPU set %d); ",
           cpu);
  ck_assert_contains(out, want);
  ck_assert_msg(strstr(strstr(out, "warning") + 1, "warning") == NULL,
                "stated more than once: %s", out);
  for (unsigned w = 0; w < 3; w++) {
    cpu_set_t c = worker_cpus(rt, w);
    ck_assert_int_eq(nth_cpu(&c, 0), cpu);
  }
  check_kernels_inside(rt, process_cpus());
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  /* FIBERPAR_DISPLAY=0 silences it; the query still tells. */
  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "0", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_str_eq(out, "");
  ck_assert_uint_eq(fpar_runtime_oversubscription(rt), 3);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("FIBERPAR_DISPLAY");
  unsetenv("FIBERPAR_NUM_THREADS");
}
END_TEST

START_TEST(test_display) {
  int cpu = bind_to_last_cpu();
  char out[4096], want[128];
  fpar_runtime *rt;

  /* Quiet by default when nothing is shared. */
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  ck_assert_str_eq(out, "");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "1", 1), 0);
  ck_assert_fpar_ok(fpar_test_create_captured(&rt, out, sizeof out));
  snprintf(want, sizeof want, "pid %ld: CPU set %d: 1 core, 1 PU",
           (long)getpid(), cpu);
  ck_assert_contains(out, want);
  ck_assert_contains(out, "pin core, 1 worker\n");
  snprintf(want, sizeof want, "fiberpar: worker 0: CPUs %d, memory on ", cpu);
  ck_assert_contains(out, want);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));

  ck_assert_int_eq(setenv("FIBERPAR_DISPLAY", "loud", 1), 0);
  ck_assert_fpar_err(fpar_runtime_create(&rt, NULL), FPAR_EENV);
  ck_assert_contains(fpar_last_error(),
                     "FIBERPAR_DISPLAY=\"loud\": expected 1, 0 or warn");
  unsetenv("FIBERPAR_DISPLAY");
}
END_TEST

/* ---- Launchers' local ranks -----------------------------------------------
 */

/* An unbound process started as local rank r of n takes its share of the
 * cores; the shares of all ranks are disjoint and cover the set. */
START_TEST(test_local_rank_shares) {
  cpu_set_t all = process_cpus(), seen, share[2];
  fpar_runtime *rt;

  CPU_ZERO(&seen);
  ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1), 0);
  for (int r = 0; r < 2; r++) {
    char rank[4];
    snprintf(rank, sizeof rank, "%d", r);
    ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_RANK", rank, 1), 0);
    rt = create(0);
    share[r] = runtime_cpus(rt);
    ck_assert_int_ge(CPU_COUNT(&share[r]), 1);
    ck_assert_cpus_within(share[r], all, "a rank's share");
    check_kernels_inside(rt, share[r]);
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
    CPU_OR(&seen, &seen, &share[r]);
  }
  if (CPU_COUNT(&all) >= 2) {
    cpu_set_t both;
    CPU_AND(&both, &share[0], &share[1]);
    ck_assert_int_eq(CPU_COUNT(&both), 0);
    ck_assert_cpus_eq(seen, all, "the union of the shares");
  }

  /* A bound process keeps its binding: the launcher placed it. */
  int cpu = nth_cpu(&all, 0);
  bind_process(&cpu, 1);
  rt = create(0);
  ck_assert_cpus_eq(runtime_cpus(rt), process_cpus(), "a bound rank's set");
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
}
END_TEST

/* ---- Query errors ----------------------------------------------------------
 */

START_TEST(test_query_errors) {
  fpar_runtime *rt = create(1);
  char small[1];
  int node;

  ck_assert_fpar_err(fpar_runtime_worker_cpus(rt, 1, small, sizeof small),
                     FPAR_EINVAL);
  ck_assert_contains(fpar_last_error(), "worker 1 does not exist");
  ck_assert_fpar_err(fpar_runtime_worker_numa_node(rt, 7, &node), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_runtime_worker_numa_node(rt, 0, NULL), FPAR_EINVAL);
  ck_assert_fpar_err(fpar_runtime_cpuset(rt, small, sizeof small), FPAR_EINVAL);
  ck_assert_contains(fpar_last_error(), "bytes, buf has 1");
  ck_assert_fpar_err(fpar_runtime_cpuset(rt, NULL, 8), FPAR_EINVAL);
  ck_assert_fpar_ok(fpar_runtime_destroy(rt));
}
END_TEST

static Suite *placement_suite(void) {
  Suite *s = suite_create("placement");
  TCase *tc = fpar_test_case("binding");

  tcase_add_test(tc, test_binding_one_cpu);
  tcase_add_test(tc, test_binding_counts_pus);
  tcase_add_test(tc, test_binding_pin_none);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("places");
  tcase_add_test(tc, test_place_list);
  tcase_add_test(tc, test_place_list_option);
  tcase_add_test(tc, test_place_list_errors);
  tcase_add_test(tc, test_numa_places);
  suite_add_tcase(s, tc);
  tc = fpar_test_case("sharing");
  tcase_add_test(tc, test_two_runtimes_take_free_places);
  tcase_add_test(tc, test_oversubscription_stated);
  tcase_add_test(tc, test_display);
  tcase_add_test(tc, test_local_rank_shares);
  tcase_add_test(tc, test_query_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(placement_suite());
}
