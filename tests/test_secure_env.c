/* SPDX-License-Identifier: MIT */
/* test_secure_env.c - secure-execution mode without a setuid program: the
 * library's question "is this process privileged?" (fpar__env_secure())
 * is answered here by FPAR_TEST_SECURE=1, and the whole runtime must then
 * behave as with an empty environment.  The suite links the library's
 * static test build, where this definition takes the place of the
 * system's (tests/setuid_trace.sh runs the real thing as root).
 *
 * Run as `test_secure_env --hwloc-env` it is the child the HWLOC_* test
 * starts (see hwloc_child()). */
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fiberpar/phase.h>

#include "testutil.h"

int fpar__env_secure(void);

int fpar__env_secure(void) {
  const char *s = getenv("FPAR_TEST_SECURE");

  return s != NULL && strcmp(s, "1") == 0;
}

/* A phase kernel that calls fpar_barrier(): it runs on fibers
 * (FIBERPAR_PHASE=fibers) and fails as loops, the default. */
FPAR_PHASE_KERNEL(phase_with_barrier, it, p, char, st) {
  int *ran = p;
  FPAR_PHASE_BEGIN();
  fpar_barrier(it);
  ran[fpar_global_linear_id(it)] = 1;
  FPAR_PHASE_END();
}

/* What a program sees of its runtime and prints. */
typedef struct observed {
  int create;
  unsigned threads;
  size_t stack, local;
  char cpus[64];
  int launch; /* of phase_with_barrier, phase mode left to the default */
  int traced; /* a file appeared in the trace's folder */
  char said[4096];
} observed;

/* FIBERPAR_TRACE's file, in a folder of its own, empty between runs:
 * the process's second runtime would write "file.1". */
static char trace_dir[256], trace[300];

/* Whether the trace folder holds a file; it is emptied. */
static int traced(void) {
  DIR *d = opendir(trace_dir);
  struct dirent *e;
  char path[600];
  int n = 0;

  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL)
    if (e->d_name[0] != '.') {
      snprintf(path, sizeof path, "%s/%s", trace_dir, e->d_name);
      unlink(path);
      n++;
    }
  closedir(d);
  return n > 0;
}

/* Create a runtime with opts (NULL: defaults), look at it, run one
 * launch, destroy it. */
static void observe(const fpar_runtime_opts *opts, observed *ob) {
  fpar_launch_desc d;
  fpar_test_stderr c;
  fpar_runtime *rt;
  fpar_queue *q;
  fpar_event *ev;
  int ran[8];

  memset(ob, 0, sizeof *ob);
  fpar_test_stderr_begin(&c);
  ob->create = fpar_runtime_create(&rt, opts);
  if (ob->create == 0) {
    ob->threads = fpar_runtime_num_threads(rt);
    ob->stack = fpar_runtime_stack_size(rt);
    ob->local = fpar_runtime_local_mem_size(rt);
    ck_assert_fpar_ok(
        fpar_runtime_worker_cpus(rt, 0, ob->cpus, sizeof ob->cpus));
    ck_assert_fpar_ok(fpar_queue_create(rt, 0, &q));
    fpar_launch_desc_init(&d);
    d.def = &phase_with_barrier;
    d.args = ran;
    d.global = fpar_range1(8);
    d.local = fpar_range1(8);
    ob->launch = fpar_launch(q, &d, &ev);
    if (ob->launch == 0) {
      ob->launch = fpar_event_wait(ev);
      fpar_event_release(ev);
    }
    ck_assert_fpar_ok(fpar_queue_destroy(q));
    ck_assert_fpar_ok(fpar_runtime_destroy(rt));
  }
  fpar_test_stderr_end(&c, ob->said, sizeof ob->said);
  ob->traced = traced();
}

static void assert_same(const observed *a, const observed *b) {
  ck_assert_int_eq(a->create, b->create);
  ck_assert_uint_eq(a->threads, b->threads);
  ck_assert_uint_eq(a->stack, b->stack);
  ck_assert_uint_eq(a->local, b->local);
  ck_assert_str_eq(a->cpus, b->cpus);
  ck_assert_int_eq(a->launch, b->launch);
  ck_assert_int_eq(a->traced, b->traced);
  ck_assert_str_eq(a->said, b->said);
}

static char threads[24];

/* Valid values, each of which changes what observe() sees on any machine
 * (threads: one more than the CPUs, set by setup()). */
static const char *const valid[][2] = {
    {"FIBERPAR_NUM_THREADS", threads}, {"FIBERPAR_STACK_SIZE", "256K"},
    {"FIBERPAR_LOCAL_MEM_SIZE", "8M"}, {"FIBERPAR_DISPLAY", "1"},
    {"FIBERPAR_PHASE", "fibers"},      {"FIBERPAR_TRACE", trace},
};
#define NVALID (sizeof valid / sizeof *valid)

/* Values the library refuses (FPAR_EENV) when it reads them. */
static const char *const malformed[][2] = {
    {"FIBERPAR_NUM_THREADS", "banana"}, {"FIBERPAR_PIN", "sideways"},
    {"FIBERPAR_DISPLAY", "loud"},       {"FIBERPAR_STACK_SIZE", "1"},
    {"FIBERPAR_LOCAL_MEM_SIZE", "-5"},  {"FIBERPAR_SPIN_US", "many"},
    {"FIBERPAR_FPENV", "mine"},         {"FIBERPAR_MAX_STACKS", "2"},
    {"FIBERPAR_STACK_GUARD", "wall"},   {"FIBERPAR_PHASE", "sideways"},
};
#define NMALFORMED (sizeof malformed / sizeof *malformed)

/* The MPI launchers' variables the library reads (lib/env.c). */
static const char *const launcher[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "MPI_LOCALRANKID",
    "MPI_LOCALNRANKS",
    "MV2_COMM_WORLD_LOCAL_RANK",
    "MV2_COMM_WORLD_LOCAL_SIZE",
    "PALS_LOCAL_RANKID",
    "PALS_LOCAL_SIZE",
    "SLURM_LOCALID",
    "SLURM_NTASKS_PER_NODE",
};

/* Each test starts with an empty environment as far as the library goes,
 * and an empty trace folder. */
static void setup(void) {
  observed warm_up;
  size_t k;

  snprintf(threads, sizeof threads, "%ld", sysconf(_SC_NPROCESSORS_ONLN) + 1);
  snprintf(trace_dir, sizeof trace_dir, "%s/fpar_secure_%ld",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
  snprintf(trace, sizeof trace, "%s/trace.json", trace_dir);
  ck_assert_int_eq(mkdir(trace_dir, 0700), 0);
  for (k = 0; k < NVALID; k++)
    unsetenv(valid[k][0]);
  for (k = 0; k < NMALFORMED; k++)
    unsetenv(malformed[k][0]);
  for (k = 0; k < sizeof launcher / sizeof *launcher; k++)
    unsetenv(launcher[k]);
  unsetenv("FPAR_TEST_SECURE");
  /* One run before the test's, so that what a process prints once (a
   * sanitizer's note on its first context switch) is not compared. */
  observe(NULL, &warm_up);
}

static void teardown(void) {
  rmdir(trace_dir);
}

/* Outside secure mode each valid value shows (the test sees them). */
START_TEST(test_valid_read) {
  observed empty, set;

  observe(NULL, &empty);
  ck_assert_fpar_ok(empty.create);
  ck_assert_int_eq(setenv(valid[_i][0], valid[_i][1], 1), 0);
  observe(NULL, &set);
  ck_assert_fpar_ok(set.create);
  ck_assert_msg(
      set.threads != empty.threads || set.stack != empty.stack ||
          set.local != empty.local || strcmp(set.cpus, empty.cpus) != 0 ||
          set.launch != empty.launch || set.traced != empty.traced ||
          strcmp(set.said, empty.said) != 0,
      "%s=%s changed nothing the test sees", valid[_i][0], valid[_i][1]);
}
END_TEST

/* In secure mode all of them together change nothing at all. */
START_TEST(test_valid_ignored) {
  observed empty, set;
  size_t k;

  observe(NULL, &empty);
  ck_assert_int_eq(setenv("FPAR_TEST_SECURE", "1", 1), 0);
  for (k = 0; k < NVALID; k++)
    ck_assert_int_eq(setenv(valid[k][0], valid[k][1], 1), 0);
  observe(NULL, &set);
  assert_same(&set, &empty);
  ck_assert_str_eq(set.said, "");
  ck_assert_int_eq(set.traced, 0);
}
END_TEST

/* Outside secure mode a malformed value fails clearly, naming itself; in
 * secure mode it is not even read. */
START_TEST(test_malformed) {
  observed ob;
  fpar_runtime_opts o;

  ck_assert_int_eq(setenv(malformed[_i][0], malformed[_i][1], 1), 0);
  observe(NULL, &ob);
  ck_assert_int_eq(ob.create != 0 ? ob.create : ob.launch, FPAR_EENV);
  ck_assert_ptr_nonnull(strstr(fpar_last_error(), malformed[_i][0]));
  ck_assert_int_eq(setenv("FPAR_TEST_SECURE", "1", 1), 0);
  observe(NULL, &ob);
  ck_assert_fpar_ok(ob.create);
  ck_assert_int_eq(ob.launch, FPAR_EINVAL); /* loops, the default */
  /* The program's own choice still applies. */
  fpar_runtime_opts_init(&o);
  o.num_threads = 1;
  o.stack_size = 128 * 1024;
  observe(&o, &ob);
  ck_assert_fpar_ok(ob.create);
  ck_assert_uint_eq(ob.threads, 1);
  ck_assert_uint_eq(ob.stack, 128 * 1024);
}
END_TEST

/* The launchers' local-rank variables are environment too: the second
 * of two ranks gets the second half of the CPUs, unless in secure mode. */
START_TEST(test_local_rank_ignored) {
  observed empty, set;

  observe(NULL, &empty);
  ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1), 0);
  ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1), 0);
  observe(NULL, &set);
  if (empty.threads >= 2) /* one CPU cannot be halved */
    ck_assert_str_ne(set.cpus, empty.cpus);
  ck_assert_int_eq(setenv("FPAR_TEST_SECURE", "1", 1), 0);
  observe(NULL, &set);
  assert_same(&set, &empty);
}
END_TEST

/* Only the program's own FPAR_DISPLAY_ALL says that the environment is
 * ignored. */
START_TEST(test_display_says_secure) {
  fpar_runtime_opts o;
  observed ob;

  fpar_runtime_opts_init(&o);
  o.display = FPAR_DISPLAY_ALL;
  observe(&o, &ob);
  ck_assert_ptr_null(strstr(ob.said, "secure-execution"));
  ck_assert_int_eq(setenv("FPAR_TEST_SECURE", "1", 1), 0);
  observe(&o, &ob);
  ck_assert_msg(strstr(ob.said, "fiberpar: secure-execution mode: the "
                                "FIBERPAR_* and HWLOC_* environment "
                                "variables are ignored\n") != NULL,
                "display without the secure mode: %s", ob.said);
}
END_TEST

/* The child: exit status 1 when HWLOC_XMLFILE is still set, + 2 for
 * HWLOC_PLUGINS_PATH, + 4 when HWLOCX or NOT_HWLOC_X went too, + 8 when
 * no runtime can be made (hwloc reading a file that is not XML). */
static int hwloc_child(void) {
  fpar_runtime_opts o;
  fpar_runtime *rt;
  int status = 0;

  status |= getenv("HWLOC_XMLFILE") != NULL;
  status |= (getenv("HWLOC_PLUGINS_PATH") != NULL) << 1;
  status |= (getenv("HWLOCX") == NULL || getenv("NOT_HWLOC_X") == NULL) << 2;
  fpar_runtime_opts_init(&o);
  o.display = FPAR_DISPLAY_QUIET;
  if (fpar_runtime_create(&rt, &o) != 0)
    status |= 8;
  else
    fpar_runtime_destroy(rt);
  return status;
}

/* Start this program with hwloc's variables set (HWLOC_XMLFILE at a file
 * that is not XML); its status. */
static int run_hwloc_child(int secure) {
  char xml[320];
  FILE *f;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  pid_t child;
  int status;

  if (n <= 0)
    return -1;
  self[n] = '\0';
  snprintf(xml, sizeof xml, "%s/topology.xml", trace_dir);
  ck_assert_ptr_nonnull(f = fopen(xml, "w"));
  fputs("not a topology\n", f);
  fclose(f);
  child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    setenv("HWLOC_XMLFILE", xml, 1);
    setenv("HWLOC_PLUGINS_PATH", "/nonexistent/fpar", 1);
    setenv("HWLOCX", "kept", 1);
    setenv("NOT_HWLOC_X", "kept", 1);
    if (secure)
      setenv("FPAR_TEST_SECURE", "1", 1);
    else
      unsetenv("FPAR_TEST_SECURE");
    execl(self, self, "--hwloc-env", (char *)NULL);
    _exit(127);
  }
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  unlink(xml);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* In secure mode hwloc's variables are gone by the time the program
 * runs, and a topology is made as without them; outside it hwloc obeys
 * them (and fails on the file). */
START_TEST(test_hwloc_env_removed) {
  int plain = run_hwloc_child(0);

  if (plain < 0)
    return; /* no /proc to start ourselves from */
  ck_assert_int_eq(plain, 1 | 2 | 8);
  ck_assert_int_eq(run_hwloc_child(1), 0);
}
END_TEST

static Suite *secure_suite(void) {
  Suite *s = suite_create("secure_env");
  TCase *tc = fpar_test_case("environment");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, test_valid_read, 0, NVALID);
  tcase_add_test(tc, test_valid_ignored);
  tcase_add_loop_test(tc, test_malformed, 0, NMALFORMED);
  tcase_add_test(tc, test_local_rank_ignored);
  tcase_add_test(tc, test_display_says_secure);
  tcase_add_test(tc, test_hwloc_env_removed);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--hwloc-env") == 0)
    return hwloc_child();
  return fpar_test_run(secure_suite());
}
