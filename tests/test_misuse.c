/* test_misuse.c - what a user can get wrong outside a kernel's own logic:
 * malformed launch descriptions, size arithmetic that would wrap around,
 * and each time the runtime must stay usable afterwards.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Writes its global id into args: the launch that proves a queue (or a
 * runtime) still works after a refused or failed call. */
static void write_id_kernel(fpar_item *it, void *args) {
  size_t *out = args;

  out[fpar_global_id(it, 0)] = fpar_global_id(it, 0) + 1;
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
  return s;
}

int main(void) {
  return fpar_test_run(misuse_suite());
}
