/* SPDX-License-Identifier: MIT */
/* test_misuse.c - what a user can get wrong outside a kernel's own logic:
 * malformed launch descriptions, size arithmetic that would wrap around,
 * waiting inside a kernel, kernel calls outside kernels, handles used after
 * their owners are gone, a runtime used across fork().  Each must give a
 * clear error, and the runtime must stay usable afterwards.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* Writes its global id into args: the launch that proves a queue (or a
 * runtime) still works after a refused or failed call. */
static void write_id_kernel(fpar_item *it, void *args) {
  size_t *out = args;

  out[fpar_global_id(it, 0)] = fpar_global_id(it, 0) + 1;
}

/* Work-item 0 returns while the others wait at a barrier: divergence. */
static void barrier_then_return_kernel(fpar_item *it, void *args) {
  (void)args;
  if (fpar_local_id(it, 0) != 0)
    fpar_barrier(it);
}

static void check_queue_still_works(fpar_queue *q) {
  size_t out[256], i;
  fpar_event *ev;

  memset(out, 0, sizeof out);
  ck_assert_fpar_ok(fpar_parallel_for(q, fpar_range1(256), fpar_range1(64),
                                      write_id_kernel, out, &ev));
  fpar_test_wait_ok(ev);
  for (i = 0; i < 256; i++)
    ck_assert_uint_eq(out[i], i + 1);
}

/* ---- Launch descriptions ------------------------------------------------- */

/* A one-buffer launch of write_id_kernel on 64 work-items. */
static fpar_launch_desc buffer_desc(const fpar_local_buffer_desc *b,
                                    size_t *out) {
  fpar_launch_desc d;

  fpar_launch_desc_init(&d);
  d.name = "buffered";
  d.kernel = write_id_kernel;
  d.args = out;
  d.global = fpar_range1(64);
  d.local = fpar_range1(64);
  d.local_buffers = b;
  d.num_local_buffers = 1;
  return d;
}

/* Launch d, which must be refused with want and a message naming field;
 * nothing may be submitted. */
static void expect_refused(fpar_queue *q, const fpar_launch_desc *d, int want,
                           const char *field) {
  fpar_event *ev = NULL;

  ck_assert_fpar_err(fpar_launch(q, d, &ev), want);
  ck_assert_ptr_null(ev);
  ck_assert_msg(strstr(fpar_last_error(), field) != NULL,
                "message \"%s\" does not name %s", fpar_last_error(), field);
}

typedef struct bad_buffer {
  const char *what;
  fpar_local_buffer_desc desc;
  int code;
  const char *field;
} bad_buffer;

static const bad_buffer bad_buffers[] = {
    {"alignment 3", {16, 0, 3}, FPAR_EINVAL, "local_buffers[0].align"},
    {"alignment 2^63",
     {16, 0, (size_t)1 << 63},
     FPAR_EINVAL,
     "local_buffers[0].align"},
    {"alignment above a page",
     {16, 0, 2 * FPAR_MAX_LOCAL_ALIGN},
     FPAR_EINVAL,
     "local_buffers[0].align"},
    /* bytes + padding to the alignment wraps around to a few bytes. */
    {"2^64 - 63 bytes",
     {SIZE_MAX - 62, 0, 64},
     FPAR_ELOCALMEM,
     "local_buffers[0"},
    {"2^64 - 1 bytes", {SIZE_MAX, 0, 1}, FPAR_ELOCALMEM, "local_buffers[0"},
    /* bytes_per_item x 64 work-items wraps around. */
    {"per-item bytes x items",
     {0, SIZE_MAX / 32, 0},
     FPAR_ELOCALMEM,
     "bytes_per_item"},
    /* bytes + bytes_per_item x items wraps around. */
    {"fixed + per-item bytes",
     {SIZE_MAX - 64, 2, 1},
     FPAR_ELOCALMEM,
     "bytes_per_item"},
};

START_TEST(test_bad_local_buffer_refused) {
  const bad_buffer *b = &bad_buffers[_i];
  size_t out[64];
  fpar_test_env e;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 2);
  d = buffer_desc(&b->desc, out);
  expect_refused(e.q, &d, b->code, b->field);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* The sum of buffers that each fit must fit with its alignment padding. */
START_TEST(test_local_buffers_sum_with_padding) {
  fpar_local_buffer_desc b[2];
  size_t out[64];
  fpar_test_env e;
  fpar_launch_desc d;
  size_t arena;

  fpar_test_env_init(&e, 2);
  arena = fpar_runtime_local_mem_size(e.rt);
  memset(b, 0, sizeof b);
  b[0].bytes = 1;
  b[0].align = 1;
  b[1].bytes = arena - 64; /* fits alone; not after the padded first one */
  b[1].align = 128;
  d = buffer_desc(b, out);
  d.num_local_buffers = 2;
  expect_refused(e.q, &d, FPAR_ELOCALMEM, "local_buffers[0-1]");
  b[1].bytes = arena - 128; /* exactly fits after the padding */
  ck_assert_fpar_ok(fpar_launch(e.q, &d, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  fpar_test_env_fini(&e);
}
END_TEST

START_TEST(test_too_many_local_buffers) {
  fpar_local_buffer_desc b[FPAR_MAX_LOCAL_BUFFERS + 1];
  size_t out[64];
  fpar_test_env e;
  fpar_launch_desc d;

  fpar_test_env_init(&e, 1);
  memset(b, 0, sizeof b);
  d = buffer_desc(b, out);
  d.num_local_buffers = FPAR_MAX_LOCAL_BUFFERS + 1;
  expect_refused(e.q, &d, FPAR_EINVAL, "num_local_buffers");
  d.local_buffers = NULL;
  d.num_local_buffers = 1;
  expect_refused(e.q, &d, FPAR_EINVAL, "local_buffers is NULL");
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* A group-local object over the largest alignment fails the launch. */
static void overaligned_object_kernel(fpar_item *it, void *args) {
  (void)args;
  (void)fpar_group_local_memory(it, 16, 2 * FPAR_MAX_LOCAL_ALIGN);
}

START_TEST(test_overaligned_group_local_object) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8),
                                      overaligned_object_kernel, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EGROUPLOCAL, "alignment 8192", NULL);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* Memory requests of a scoped group whose sizes wrap around. */
static void huge_private_group(fpar_group *g, void *args) {
  fpar_mem_request r = fpar_require_private_mem(SIZE_MAX - 8, 64, NULL, 0);

  (void)args;
  fpar_memory_environment(g, &r, 1, NULL, NULL);
}

static void overaligned_request_group(fpar_group *g, void *args) {
  fpar_mem_request r =
      fpar_require_local_mem(64, 2 * FPAR_MAX_LOCAL_ALIGN, NULL, 0);

  (void)args;
  fpar_memory_environment(g, &r, 1, NULL, NULL);
}

START_TEST(test_bad_memory_requests) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(2), fpar_range1(16),
                                  huge_private_group, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_ELOCALMEM, "private memory 0", NULL);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(2), fpar_range1(16),
                                  overaligned_request_group, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_EINVAL, "alignment 8192", NULL);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Waiting inside a kernel --------------------------------------------- */

/* What the nested kernel saw: the codes of its calls. */
typedef struct nested_args {
  fpar_queue *q;
  int submit_rc, event_wait_rc, queue_wait_rc, destroy_rc;
  char message[256];
  size_t out[64];
} nested_args;

static void nested_kernel(fpar_item *it, void *args) {
  nested_args *a = args;
  fpar_event *ev = NULL;

  if (fpar_global_id(it, 0) != 0)
    return;
  a->submit_rc = fpar_parallel_for(a->q, fpar_range1(64), fpar_range1(16),
                                   write_id_kernel, a->out, &ev);
  if (a->submit_rc != 0)
    return;
  a->event_wait_rc = fpar_event_wait(ev);
  snprintf(a->message, sizeof a->message, "%s", fpar_last_error());
  a->queue_wait_rc = fpar_queue_wait(a->q);
  a->destroy_rc = fpar_queue_destroy(a->q);
  fpar_event_release(ev);
}

/* A kernel may submit work, but waiting for it inside the kernel would
 * wait for a launch queued behind the kernel's own: every wait says so
 * instead of hanging, and the submitted launch runs afterwards. */
START_TEST(test_wait_inside_kernel_refused) {
  nested_args a;
  fpar_test_env e;
  fpar_event *ev;
  size_t i;

  fpar_test_env_init(&e, 2);
  memset(&a, 0, sizeof a);
  a.q = e.q;
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(32), fpar_range1(8),
                                      nested_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_fpar_ok(a.submit_rc);
  ck_assert_int_eq(a.event_wait_rc, FPAR_EDEADLOCK);
  ck_assert_int_eq(a.queue_wait_rc, FPAR_EDEADLOCK);
  ck_assert_int_eq(a.destroy_rc, FPAR_EDEADLOCK);
  ck_assert_msg(strstr(a.message, "inside a kernel") != NULL, "%s", a.message);
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  for (i = 0; i < 64; i++)
    ck_assert_uint_eq(a.out[i], i + 1);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* Waiting for another runtime's launch inside a kernel is fine. */
typedef struct cross_args {
  fpar_queue *other;
  int rc;
  size_t out[64];
} cross_args;

static void cross_runtime_kernel(fpar_item *it, void *args) {
  cross_args *a = args;
  fpar_event *ev;

  if (fpar_global_id(it, 0) != 0)
    return;
  a->rc = fpar_parallel_for(a->other, fpar_range1(64), fpar_range1(16),
                            write_id_kernel, a->out, &ev);
  if (a->rc == 0) {
    a->rc = fpar_event_wait(ev);
    fpar_event_release(ev);
  }
}

START_TEST(test_wait_for_other_runtime_inside_kernel) {
  fpar_test_env e, other;
  cross_args a;
  fpar_event *ev;
  size_t i;

  fpar_test_env_init(&e, 1);
  fpar_test_env_init(&other, 1);
  memset(&a, 0, sizeof a);
  a.other = other.q;
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8),
                                      cross_runtime_kernel, &a, &ev));
  fpar_test_wait_ok(ev);
  ck_assert_fpar_ok(a.rc);
  for (i = 0; i < 64; i++)
    ck_assert_uint_eq(a.out[i], i + 1);
  fpar_test_env_fini(&other);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Kernel calls outside kernels ---------------------------------------- */

START_TEST(test_kernel_calls_outside_kernel) {
  fpar_item it;

  memset(&it, 0, sizeof it);
  ck_assert_int_eq(fpar_barrier(&it), FPAR_ENOTKERNEL);
  ck_assert_msg(strstr(fpar_last_error(), "test_misuse.c:") != NULL,
                "message \"%s\" does not name the barrier's line",
                fpar_last_error());
  ck_assert_int_eq((fpar_barrier)(&it), FPAR_ENOTKERNEL);
  ck_assert_ptr_null(fpar_group_local_memory(&it, 64, 0));
  ck_assert_msg(strstr(fpar_last_error(), "fpar_group_local_memory") != NULL,
                "%s", fpar_last_error());
  ck_assert_ptr_null(fpar_group_local_memory_for_overwrite(&it, 64, 0));
  ck_assert_ptr_null(fpar_local_buffer(&it, 0));
  ck_assert_msg(strstr(fpar_last_error(), "fpar_local_buffer") != NULL, "%s",
                fpar_last_error());
}
END_TEST

static void count_item(const fpar_s_item *si, void *ctx) {
  (void)si;
  ++*(int *)ctx;
}

static void count_group(fpar_group *g, void *ctx) {
  (void)g;
  ++*(int *)ctx;
}

static void count_single(void *ctx) {
  ++*(int *)ctx;
}

/* A group kept from a group function and used after it returned, on the
 * host thread: every operation refuses and runs nothing. */
static void keep_group_function(fpar_group *g, void *args) {
  *(fpar_group *)args = *g;
}

START_TEST(test_group_calls_outside_group_function) {
  fpar_test_env e;
  fpar_group g;
  int runs = 0;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(1), fpar_range1(8),
                                  keep_group_function, &g, NULL));
  ck_assert_fpar_ok(fpar_queue_wait(e.q));
  ck_assert_int_eq(fpar_distribute_items(&g, count_item, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_msg(strstr(fpar_last_error(), "fpar_distribute_items") != NULL,
                "%s", fpar_last_error());
  ck_assert_int_eq(fpar_distribute_items_and_wait(&g, count_item, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_distribute_groups(&g, count_group, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_distribute_groups_and_wait(&g, count_group, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_single_item(&g, count_single, &runs), FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_single_item_and_wait(&g, count_single, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_group_barrier(&g), FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_memory_environment(&g, NULL, 0, NULL, NULL),
                   FPAR_ENOTKERNEL);
  ck_assert_int_eq(fpar_parallel_for_work_item(&g, count_item, &runs),
                   FPAR_ENOTKERNEL);
  ck_assert_ptr_null(fpar_private_memory_create(&g, 16));
  ck_assert_int_eq(runs, 0);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* fpar_barrier in a scoped group function fails that launch. */
static void barrier_in_group_function(fpar_group *g, void *args) {
  fpar_item it;

  (void)g;
  (void)args;
  memset(&it, 0, sizeof it);
  fpar_barrier(&it);
}

START_TEST(test_item_barrier_in_group_function) {
  fpar_test_env e;
  fpar_event *ev;

  fpar_test_env_init(&e, 1);
  ck_assert_fpar_ok(fpar_parallel(e.q, fpar_range1(2), fpar_range1(8),
                                  barrier_in_group_function, NULL, &ev));
  fpar_test_wait_fault(ev, FPAR_ENOTKERNEL, "fpar_group_barrier",
                       "test_misuse.c:");
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

/* ---- Lifetimes ------------------------------------------------------------
 */

/* Keeps its work-item busy for a while; sink has one entry per
 * work-item. */
static void slow_kernel(fpar_item *it, void *args) {
  volatile size_t *sink = args;
  size_t i;

  for (i = 0; i < 20000; i++)
    sink[fpar_global_id(it, 0)] += i;
}

/* Events outlive their queue and their runtime: waiting on them and
 * reading them afterwards is valid (AddressSanitizer in CI checks that no
 * freed memory is touched). */
START_TEST(test_events_outlive_queue_and_runtime) {
  fpar_event *after_queue, *after_runtime, *failed;
  size_t sink[256];
  fpar_test_env e;
  uint64_t t0, t1, t2;

  fpar_test_env_init(&e, 2);
  memset(sink, 0, sizeof sink);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(256), fpar_range1(16),
                                      slow_kernel, sink, &after_queue));
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(256), fpar_range1(16),
                                      slow_kernel, sink, &after_runtime));
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(8), fpar_range1(8),
                                      barrier_then_return_kernel, NULL,
                                      &failed));
  ck_assert_fpar_ok(fpar_queue_destroy(e.q));
  ck_assert_fpar_ok(fpar_event_wait(after_queue));
  ck_assert_int_eq(fpar_test_state(after_queue), FPAR_COMPLETE);
  fpar_event_release(after_queue);
  ck_assert_fpar_ok(fpar_runtime_destroy(e.rt));
  ck_assert_fpar_ok(fpar_event_wait(after_runtime));
  ck_assert_fpar_ok(fpar_event_profile(after_runtime, &t0, &t1, &t2));
  ck_assert_uint_le(t0, t1);
  ck_assert_uint_le(t1, t2);
  fpar_event_release(after_runtime);
  ck_assert_int_eq(fpar_event_wait(failed), FPAR_EDIVERGENCE);
  ck_assert_ptr_nonnull(fpar_event_error(failed));
  ck_assert_ptr_nonnull(strstr(fpar_event_error(failed), "work-item"));
  fpar_event_release(failed);
}
END_TEST

/* ---- fork() ----------------------------------------------------------------
 */

/* Exit codes of the child, one per check, so the parent can say which
 * failed. */
enum {
  CHILD_OK = 0,
  CHILD_LAUNCH = 10,
  CHILD_QUEUE_CREATE,
  CHILD_QUEUE_WAIT,
  CHILD_EVENT_WAIT,
  CHILD_QUEUE_DESTROY,
  CHILD_RUNTIME_DESTROY,
  CHILD_OWN_RUNTIME,
  CHILD_OWN_RESULT
};

static int child_uses_parent_runtime(fpar_test_env *e, fpar_event *pending) {
  fpar_test_env own;
  fpar_runtime_opts o;
  fpar_queue *q2;
  size_t out[256], i;

  if (fpar_parallel_for(e->q, fpar_range1(64), fpar_range1(16), write_id_kernel,
                        out, NULL) != FPAR_EFORK ||
      strstr(fpar_last_error(), "fork") == NULL)
    return CHILD_LAUNCH;
  if (fpar_queue_create(e->rt, 0, &q2) != FPAR_EFORK)
    return CHILD_QUEUE_CREATE;
  if (fpar_queue_wait(e->q) != FPAR_EFORK)
    return CHILD_QUEUE_WAIT;
  if (fpar_event_result(pending) != FPAR_EBUSY ||
      fpar_event_wait(pending) != FPAR_EFORK)
    return CHILD_EVENT_WAIT;
  if (fpar_queue_destroy(e->q) != FPAR_EFORK)
    return CHILD_QUEUE_DESTROY;
  if (fpar_runtime_destroy(e->rt) != FPAR_EFORK)
    return CHILD_RUNTIME_DESTROY;
  /* A runtime of the child's own works. */
  fpar_runtime_opts_init(&o);
  o.num_threads = 2;
  if (fpar_runtime_create(&own.rt, &o) != 0 ||
      fpar_queue_create(own.rt, 0, &own.q) != 0)
    return CHILD_OWN_RUNTIME;
  memset(out, 0, sizeof out);
  if (fpar_parallel_for(own.q, fpar_range1(256), fpar_range1(64),
                        write_id_kernel, out, NULL) != 0 ||
      fpar_queue_wait(own.q) != 0)
    return CHILD_OWN_RUNTIME;
  for (i = 0; i < 256; i++)
    if (out[i] != i + 1)
      return CHILD_OWN_RESULT;
  if (fpar_queue_destroy(own.q) != 0 || fpar_runtime_destroy(own.rt) != 0)
    return CHILD_OWN_RUNTIME;
  return CHILD_OK;
}

/* Holds its launch back until the parent lets it go, so that the child
 * inherits an unfinished event. */
static void gate_kernel(fpar_item *it, void *args) {
  volatile int *gate = args;

  (void)it;
  while (!*gate)
    ;
}

START_TEST(test_runtime_used_across_fork) {
  volatile int gate = 0;
  fpar_test_env e;
  fpar_event *pending;
  int status;
  pid_t pid;

  /* ThreadSanitizer cannot start threads in the child of a threaded
   * process, which the child's own runtime needs. */
  if (FPAR_TEST_TSAN)
    return;

  fpar_test_env_init(&e, 2);
  ck_assert_fpar_ok(fpar_parallel_for(e.q, fpar_range1(1), fpar_range1(1),
                                      gate_kernel, (void *)&gate, &pending));
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(child_uses_parent_runtime(&e, pending));
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  gate = 1;
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK,
                "child failed check %d (status 0x%x)", WEXITSTATUS(status),
                status);
  fpar_test_wait_ok(pending);
  check_queue_still_works(e.q);
  fpar_test_env_fini(&e);
}
END_TEST

static Suite *misuse_suite(void) {
  Suite *s = suite_create("misuse");
  TCase *tc;

  tc = fpar_test_case("launch_descriptions");
  tcase_add_loop_test(tc, test_bad_local_buffer_refused, 0,
                      sizeof bad_buffers / sizeof bad_buffers[0]);
  tcase_add_test(tc, test_local_buffers_sum_with_padding);
  tcase_add_test(tc, test_too_many_local_buffers);
  tcase_add_test(tc, test_overaligned_group_local_object);
  tcase_add_test(tc, test_bad_memory_requests);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("nested_waits");
  tcase_add_test(tc, test_wait_inside_kernel_refused);
  tcase_add_test(tc, test_wait_for_other_runtime_inside_kernel);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("outside_kernels");
  tcase_add_test(tc, test_kernel_calls_outside_kernel);
  tcase_add_test(tc, test_group_calls_outside_group_function);
  tcase_add_test(tc, test_item_barrier_in_group_function);
  suite_add_tcase(s, tc);

  tc = fpar_test_case("lifetimes");
  tcase_add_test(tc, test_events_outlive_queue_and_runtime);
  tcase_add_test(tc, test_runtime_used_across_fork);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return fpar_test_run(misuse_suite());
}
