/* SPDX-License-Identifier: MIT */
/* test_signals.c - the runtime's SIGSEGV handler must be invisible to
 * everything but fiber stack overflows: signals sent with kill(), faults
 * outside fiber stacks (on the host thread or on a worker) and SIGBUS
 * reach the handler the user installed before the runtime, SIG_IGN, or
 * the default action, as they would without the library.  A user handler
 * installed after the runtime that chains to the one it replaced keeps
 * overflow detection working; a runtime created after it puts its handler
 * back in front.
 *
 * Each test runs the scenario in a child process and checks how the child
 * ended, since the default action ends the process.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- Scenario plumbing ----------------------------------------------------
 */

/* Run scenario() in a child; return its wait status. */
static int run_child(int (*scenario)(void)) {
  int status;
  pid_t pid = fork();

  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(scenario());
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  return status;
}

static void expect_exit_ok(int status) {
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %s %d",
                WIFEXITED(status) ? "failed check" : "died of",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static void expect_killed_by(int status, int sig) {
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
                "child %s %d, expected death by signal %d",
                WIFEXITED(status) ? "exited with" : "died of",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                sig);
}

/* A runtime and queue of the child's, or NULL fields on failure. */
static fpar_test_env child_env(void) {
  fpar_test_env e;
  fpar_runtime_opts o;

  memset(&e, 0, sizeof e);
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  if (fpar_runtime_create(&e.rt, &o) != 0)
    e.rt = NULL;
  else if (fpar_queue_create(e.rt, 0, &e.q) != 0)
    e.q = NULL;
  return e;
}

/* ---- User handlers ------------------------------------------------------- */

static volatile sig_atomic_t user_calls;
static volatile sig_atomic_t user_code;
static void *volatile user_addr;
static struct sigaction user_previous;

/* A handler for faults on a page the scenario made PROT_NONE: records the
 * fault and makes the page writable, so the access succeeds on return. */
static void user_handler(int sig, siginfo_t *info, void *uctx) {
  (void)sig;
  (void)uctx;
  user_calls++;
  user_code = info->si_code;
  user_addr = info->si_addr;
  if (info->si_code > 0) {
    uintptr_t page = (uintptr_t)info->si_addr & ~(uintptr_t)4095;
    mprotect((void *)page, 4096, PROT_READ | PROT_WRITE);
  }
}

/* The same, passing what it does not own to the handler it replaced (the
 * convention libsigsegv and the JVMs follow). */
static void chaining_user_handler(int sig, siginfo_t *info, void *uctx) {
  if (info->si_code > 0 && info->si_addr != user_addr) {
    user_previous.sa_sigaction(sig, info, uctx);
    return;
  }
  user_handler(sig, info, uctx);
}

/* A stack overflow can only be handled on an alternate signal stack, so a
 * handler that chains overflows to the runtime needs SA_ONSTACK. */
static int install(int sig, void (*fn)(int, siginfo_t *, void *),
                   struct sigaction *previous) {
  struct sigaction sa;

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  return sigaction(sig, &sa, previous);
}

static void *guarded_page(void) {
  void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* ---- Kernels ------------------------------------------------------------- */

/* Work-item 3 writes to a PROT_NONE page: a fault on a worker that is no
 * stack overflow. */
static void touch_page_kernel(fpar_item *it, void *args) {
  if (fpar_local_linear_id(it) == 3)
    *(volatile int *)args = 42;
}

static void overflow_kernel(fpar_item *it, void *args) {
  volatile unsigned char seed = 1;

  fpar_barrier(it);
  if (fpar_local_linear_id(it) == 1)
    *(size_t *)args = fpar_test_recurse_deep(&seed, 1u << 20);
}

/* 0 when a launch of overflow_kernel on e fails with FPAR_ESTACKOVERFLOW. */
static int overflow_reported(fpar_test_env *e) {
  size_t out = 0;
  fpar_event *ev;
  int rc;

  if (fpar_parallel_for(e->q, fpar_range1(8), fpar_range1(8), overflow_kernel,
                        &out, &ev) != 0)
    return 1;
  rc = fpar_event_wait(ev);
  fpar_event_release(ev);
  return rc == FPAR_ESTACKOVERFLOW ? 0 : 1;
}

/* ---- Scenarios ----------------------------------------------------------- */

/* No handler of the user's: a SIGSEGV sent with kill() ends the process. */
static int kill_without_user_handler(void) {
  fpar_test_env e = child_env();

  if (e.q == NULL)
    return 1;
  kill(getpid(), SIGSEGV);
  return 2; /* still alive: the signal was swallowed */
}

START_TEST(test_kill_segv_ends_process) {
  expect_killed_by(run_child(kill_without_user_handler), SIGSEGV);
}
END_TEST

/* The same from a worker thread, while it runs a kernel. */
static void kill_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_linear_id(it) == 0)
    kill(getpid(), SIGSEGV);
}

static int kill_from_kernel(void) {
  fpar_test_env e = child_env();

  if (e.q == NULL)
    return 1;
  fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8), kill_kernel, NULL,
                    NULL);
  fpar_queue_wait(e.q);
  sleep(1);
  return 2;
}

START_TEST(test_kill_segv_from_kernel_ends_process) {
  expect_killed_by(run_child(kill_from_kernel), SIGSEGV);
}
END_TEST

/* A real fault outside any fiber stack, with no handler of the user's,
 * ends the process as it would without the library. */
static int fault_without_user_handler(void) {
  fpar_test_env e = child_env();
  volatile int *p = guarded_page();

  if (e.q == NULL || p == NULL)
    return 1;
  *p = 1;
  return 2;
}

START_TEST(test_fault_without_user_handler_ends_process) {
  expect_killed_by(run_child(fault_without_user_handler), SIGSEGV);
}
END_TEST

/* A handler installed before the runtime gets sent signals and faults on
 * the host thread and on workers; the runtime keeps detecting overflows. */
static int user_handler_before_runtime(void) {
  fpar_test_env e;
  int *page = guarded_page();
  fpar_event *ev;

  if (page == NULL || install(SIGSEGV, user_handler, NULL) != 0)
    return 1;
  e = child_env();
  if (e.q == NULL)
    return 2;
  kill(getpid(), SIGSEGV);
  if (user_calls != 1 || user_code > 0)
    return 3;
  *(volatile int *)page = 7; /* host-thread fault, fixed by the handler */
  if (user_calls != 2 || user_addr != page || *page != 7)
    return 4;
  mprotect(page, 4096, PROT_NONE);
  if (fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8), touch_page_kernel,
                        page, &ev) != 0 ||
      fpar_event_wait(ev) != 0)
    return 5;
  fpar_event_release(ev);
  if (user_calls != 3 || user_addr != page || *page != 42)
    return 6;
  if (overflow_reported(&e) != 0)
    return 7;
  if (user_calls != 3)
    return 8; /* the overflow is the runtime's, not the user's */
  return 0;
}

START_TEST(test_user_handler_before_runtime) {
  expect_exit_ok(run_child(user_handler_before_runtime));
}
END_TEST

/* SIG_IGN set before the runtime: a sent SIGSEGV stays ignored. */
static int ignored_before_runtime(void) {
  fpar_test_env e;

  signal(SIGSEGV, SIG_IGN);
  e = child_env();
  if (e.q == NULL)
    return 1;
  kill(getpid(), SIGSEGV);
  return overflow_reported(&e);
}

START_TEST(test_sig_ign_before_runtime) {
  expect_exit_ok(run_child(ignored_before_runtime));
}
END_TEST

/* A chaining handler installed after the runtime: overflows still reach
 * the runtime through it, everything else stays the user's. */
static int chaining_handler_after_runtime(void) {
  fpar_test_env e = child_env();
  int *page = guarded_page();

  if (e.q == NULL || page == NULL)
    return 1;
  user_addr = page;
  if (install(SIGSEGV, chaining_user_handler, &user_previous) != 0)
    return 2;
  if (overflow_reported(&e) != 0)
    return 3;
  *(volatile int *)page = 5;
  if (user_calls != 1 || *page != 5)
    return 4;
  return 0;
}

START_TEST(test_chaining_handler_after_runtime) {
  expect_exit_ok(run_child(chaining_handler_after_runtime));
}
END_TEST

/* A handler that does not chain, installed between two runtimes: the
 * second runtime puts its handler back in front, chained to the user's. */
static int runtime_after_user_handler(void) {
  fpar_test_env first = child_env(), second;

  if (first.q == NULL || install(SIGSEGV, user_handler, NULL) != 0)
    return 1;
  second = child_env();
  if (second.q == NULL)
    return 2;
  if (overflow_reported(&second) != 0 || overflow_reported(&first) != 0)
    return 3;
  kill(getpid(), SIGSEGV);
  if (user_calls != 1)
    return 4;
  return 0;
}

START_TEST(test_runtime_created_after_user_handler) {
  expect_exit_ok(run_child(runtime_after_user_handler));
}
END_TEST

/* SIGBUS (an access past the end of a mapped file) is the user's. */
static void bus_handler(int sig, siginfo_t *info, void *uctx) {
  (void)sig;
  (void)info;
  (void)uctx;
  _exit(0);
}

static int sigbus_reaches_user(void) {
  fpar_test_env e;
  char path[] = "/tmp/fpar-sigbus-XXXXXX";
  int fd = mkstemp(path);
  volatile char *p;

  if (fd < 0)
    return 1;
  unlink(path);
  p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0); /* an empty file */
  if (p == MAP_FAILED || install(SIGBUS, bus_handler, NULL) != 0)
    return 2;
  e = child_env();
  if (e.q == NULL)
    return 3;
  (void)p[0];
  return 4;
}

START_TEST(test_sigbus_reaches_user_handler) {
  expect_exit_ok(run_child(sigbus_reaches_user));
}
END_TEST

static int sigbus_default(void) {
  fpar_test_env e = child_env();
  char path[] = "/tmp/fpar-sigbus-XXXXXX";
  int fd = mkstemp(path);
  volatile char *p;

  if (fd < 0 || e.q == NULL)
    return 1;
  unlink(path);
  p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return 2;
  (void)p[0];
  return 3;
}

START_TEST(test_sigbus_default_action) {
  expect_killed_by(run_child(sigbus_default), SIGBUS);
}
END_TEST

static Suite *signals_suite(void) {
  Suite *s = suite_create("signals");
  TCase *tc;

  tc = fpar_test_case("default_action");
  tcase_add_test(tc, test_kill_segv_ends_process);
  tcase_add_test(tc, test_kill_segv_from_kernel_ends_process);
  tcase_add_test(tc, test_fault_without_user_handler_ends_process);
  tcase_add_test(tc, test_sigbus_default_action);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("user_handlers");
  tcase_add_test(tc, test_user_handler_before_runtime);
  tcase_add_test(tc, test_sig_ign_before_runtime);
  tcase_add_test(tc, test_chaining_handler_after_runtime);
  tcase_add_test(tc, test_runtime_created_after_user_handler);
  tcase_add_test(tc, test_sigbus_reaches_user_handler);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(signals_suite());
}
